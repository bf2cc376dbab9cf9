;; JavaScript/TypeScript route declarations (Express, Koa), read by codeindex/_langs/javascript_routes.py.
;; Every pattern captures its whole node as @route.

;; app.get("/x", h), router.post(...), app.use("/api", router), router.route("/x").get(h)
((call_expression
   function: (member_expression object: (_) @route.owner property: (property_identifier) @route.verb)
   arguments: (arguments) @route.args) @route
 (#any-of? @route.verb
   "get" "post" "put" "delete" "del" "patch" "head" "options" "all" "use" "prefix"))

;; const app = express(), router = express.Router(), router = new Router({ prefix: "/x" })
((variable_declarator
   name: (identifier) @route.var
   value: [(call_expression
             function: [(identifier) @route.ctor (member_expression property: (property_identifier) @route.ctor)]
             arguments: (arguments) @route.args)
           (new_expression
             constructor: [(identifier) @route.ctor (member_expression property: (property_identifier) @route.ctor)]
             arguments: (arguments) @route.args)]) @route
 (#any-of? @route.ctor "Router" "express" "Koa" "KoaRouter"))

;; module.exports = router; export default router
((assignment_expression
   left: (member_expression object: (identifier) @route.module property: (property_identifier) @route.exports)
   right: (identifier) @route.export) @route
 (#eq? @route.module "module") (#eq? @route.exports "exports"))
(export_statement value: (identifier) @route.export) @route
