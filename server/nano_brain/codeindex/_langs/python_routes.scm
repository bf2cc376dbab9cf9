;; Python route declarations (Flask, FastAPI, Django), read by codeindex/_langs/python_routes.py.
;; Every pattern captures its whole node as @route.

;; @app.get("/x"), @bp.route("/x", methods=[...]) on a function
((decorated_definition
   (decorator (call
     function: (attribute object: (_) @route.owner attribute: (identifier) @route.verb)
     arguments: (argument_list) @route.args))
   definition: (function_definition) @route.def) @route
 (#any-of? @route.verb
   "route" "get" "post" "put" "delete" "patch" "head" "options" "api_route" "websocket"))

;; app.add_url_rule(...), app.register_blueprint(...), app.include_router(...)
((call
   function: (attribute object: (_) @route.owner attribute: (identifier) @route.verb)
   arguments: (argument_list) @route.args) @route
 (#any-of? @route.verb "add_url_rule" "add_api_route" "register_blueprint" "include_router"))

;; Django: path("x/", view), re_path(r"^x/$", view), url(...)
((call
   function: (identifier) @route.verb
   arguments: (argument_list . (string)) @route.args) @route
 (#any-of? @route.verb "path" "re_path" "url"))

;; bp = Blueprint("x", __name__, url_prefix="/api"), router = APIRouter(prefix="/items")
((assignment
   left: (identifier) @route.var
   right: (call function: [(identifier) @route.ctor (attribute attribute: (identifier) @route.ctor)]
                arguments: (argument_list) @route.args)) @route
 (#any-of? @route.ctor "Blueprint" "APIRouter"))
