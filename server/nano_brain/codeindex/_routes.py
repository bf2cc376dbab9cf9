"""HTTP routes declared in source code: what one file says about them (no other file needed).

A file states *facts*; linking them across the workspace (``_route_links``) makes routes:

- ``route``: a method and a path declared on a router (``@bp.get("/x")``, ``app.get("/x", h)``,
  ``r.GET("/x", h)``, ``@GetMapping``, ``path("x/", view)``, Rails ``get``/``resources``), with
  its handler: a qualified name when the handler is defined right there (a decorated function,
  an annotated method), else the handler expression as written (``views.index``, ``h.List``),
  resolved later like a call written at the same place;
- ``router``: a variable holding a router and its own prefix (``Blueprint(url_prefix=)``,
  ``APIRouter(prefix=)``, ``new Router({prefix})``, ``v1 := r.Group("/v1")``, whose parent is
  ``r``);
- ``mount``: a router mounted under a prefix on another (``register_blueprint``,
  ``include_router``, ``app.use("/api", router)``, Django ``include("app.urls")``);
- ``export``: the router a JavaScript module exports (``module.exports = router``).

The tree-sitter queries (``_langs/*_routes.scm``) find the candidate nodes; the rules below
read them. Paths are kept as the framework writes their parameters (``{id}``, ``:id``,
``<int:id>``). Only literal paths count: a path built at run time is not a declaration.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tree_sitter import Node

from ._langs.base import line_of, text
from .model import RouteFact

FACT_KINDS = ("route", "router", "mount", "export")
#: Django's routes belong to their module, not to a variable.
MODULE_ROUTER = "<module>"
#: Mount targets that name a module rather than an expression.
MODULE_PREFIX = "module:"
REQUIRE_PREFIX = "require:"
#: A Rails handler (``Admin::UsersController#index``), resolved by class and method name.
RAILS_PREFIX = "rails:"
INLINE_HANDLER = "(inline function)"
ANY = "ANY"
_HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE")
_MAX_ROUTES_PER_FILE = 5000
_SLASHES = re.compile(r"/{2,}")


@dataclass(slots=True)
class _Ctx:
    path: str
    #: (start byte, end byte) of a definition node -> its qualified name
    defs: dict[tuple[int, int], str]
    #: innermost symbol around a byte offset
    scope_of: Callable[[int], str | None]
    #: modules the file imports, as written
    imports: frozenset[str]
    out: list[RouteFact]

    def add(self, fact: RouteFact) -> None:
        if len(self.out) < _MAX_ROUTES_PER_FILE:
            self.out.append(fact)

    def imports_any(self, *needles: str) -> bool:
        return any(n in m for m in self.imports for n in needles)


def extract_routes(
    language: str,
    matches: list[dict[str, list[Node]]],
    path: str,
    defs: dict[tuple[int, int], str],
    scope_of: Callable[[int], str | None],
    imports: Iterable[str],
) -> list[RouteFact]:
    """The route facts of one file from its query matches (``@route`` captures)."""
    reader = _READERS.get(language)
    if reader is None or not matches:
        return []
    ctx = _Ctx(path, defs, scope_of, frozenset(imports), [])
    reader(matches, ctx)
    return ctx.out


# -- shared helpers ----------------------------------------------------------------------------

_STRING_TYPES = frozenset(
    {
        "string",
        "string_literal",
        "interpreted_string_literal",
        "raw_string_literal",
        "template_string",
    }
)
_INTERPOLATION = frozenset({"interpolation", "template_substitution", "escape_interpolation"})


def literal(node: Node | None) -> str | None:
    """The value of a string literal without interpolation (None for anything else)."""
    if node is None:
        return None
    if node.type == "simple_symbol":  # Ruby :photos
        return text(node)[1:]
    if node.type == "hash_key_symbol":
        return text(node)
    if node.type not in _STRING_TYPES:
        return None
    if any(c.type in _INTERPOLATION for c in node.named_children):
        return None
    raw = text(node)
    raw = raw.lstrip("rRbBuU")  # Python prefixes (an f-string has interpolation or is plain)
    if raw[:1] in "fF":
        raw = raw[1:]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(raw) >= 2 * len(quote) and raw.startswith(quote) and raw.endswith(quote):
            return raw[len(quote) : -len(quote)]
    return None


def _flat(node: Node | None) -> str | None:
    """An expression's text with its blanks removed (``a . b`` -> ``a.b``)."""
    return "".join(text(node).split()) if node is not None else None


def join_paths(*parts: str) -> str:
    """Route paths joined with one slash between parts; a trailing slash of the last part is
    kept (``/api`` + ``users/`` -> ``/api/users/``); runs of slashes become one."""
    pieces = [_SLASHES.sub("/", p).strip("/") for p in parts if p and p.strip("/")]
    joined = "/" + "/".join(pieces)
    last = next((p for p in reversed(parts) if p and p.strip("/")), "")
    if last.endswith("/") and joined != "/":
        joined += "/"
    return joined


# -- Python: Flask, FastAPI, Django --------------------------------------------------------------

_FASTAPI_ONLY = frozenset({"api_route", "include_router", "add_api_route", "websocket"})


def _py_args(args: Node) -> tuple[list[Node], dict[str, Node]]:
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    for child in args.named_children:
        if child.type == "keyword_argument":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is not None and value is not None:
                keywords[text(name)] = value
        elif child.type not in ("comment", "list_splat", "dictionary_splat"):
            positional.append(child)
    return positional, keywords


def _py_strings(node: Node | None) -> list[str]:
    if node is None:
        return []
    if node.type in ("list", "tuple", "set"):
        return [v for v in (literal(c) for c in node.named_children) if v is not None]
    value = literal(node)
    return [value] if value is not None else []


def _py_handler(node: Node | None) -> str | None:
    """The view a route names: ``views.index``; ``View.as_view()`` names the class."""
    if node is None:
        return None
    if node.type == "call":
        func = node.child_by_field_name("function")
        if func is not None and func.type == "attribute":
            attr = func.child_by_field_name("attribute")
            if attr is not None and text(attr) == "as_view":
                return _flat(func.child_by_field_name("object"))
        return None
    if node.type in ("identifier", "attribute"):
        return _flat(node)
    if node.type == "lambda":
        return INLINE_HANDLER
    return None


def _py_framework(ctx: _Ctx, verb: str) -> str:
    if verb in _FASTAPI_ONLY or (ctx.imports_any("fastapi") and not ctx.imports_any("flask")):
        return "fastapi"
    return "flask"


def _python(matches: list[dict[str, list[Node]]], ctx: _Ctx) -> None:
    django_file = posixpath.basename(ctx.path) == "urls.py"
    for caps in matches:
        node = caps["route"][0]
        if "route.var" in caps:
            _py_router(caps, ctx)
            continue
        verb = text(caps["route.verb"][0])
        positional, keywords = _py_args(caps["route.args"][0])
        owner = _flat(caps["route.owner"][0]) if "route.owner" in caps else None
        framework = _py_framework(ctx, verb)
        if "route.def" in caps:
            definition = caps["route.def"][0]
            rule = positional[0] if positional else keywords.get("path") or keywords.get("rule")
            route_path = literal(rule)
            if route_path is None or not (route_path == "" or route_path.startswith("/")):
                continue
            if verb in ("route", "api_route"):
                methods = [m.upper() for m in _py_strings(keywords.get("methods"))] or ["GET"]
            elif verb == "websocket":
                methods = ["WEBSOCKET"]
            else:
                methods = [verb.upper()]
            handler = ctx.defs.get((definition.start_byte, definition.end_byte))
            for method in methods:
                ctx.add(
                    RouteFact(
                        "route",
                        framework,
                        line_of(node),
                        method,
                        route_path,
                        owner,
                        handler,
                        handler,
                        ctx.scope_of(node.start_byte),
                    )
                )
        elif verb in ("add_url_rule", "add_api_route"):
            rule = positional[0] if positional else keywords.get("rule") or keywords.get("path")
            route_path = literal(rule)
            if route_path is None:
                continue
            if verb == "add_url_rule":
                view = keywords.get("view_func") or (positional[2] if len(positional) > 2 else None)
            else:
                view = keywords.get("endpoint") or (positional[1] if len(positional) > 1 else None)
            methods = [m.upper() for m in _py_strings(keywords.get("methods"))] or ["GET"]
            for method in methods:
                ctx.add(
                    RouteFact(
                        "route",
                        framework,
                        line_of(node),
                        method,
                        route_path,
                        owner,
                        _py_handler(view),
                        None,
                        ctx.scope_of(node.start_byte),
                    )
                )
        elif verb in ("register_blueprint", "include_router"):
            child = (
                positional[0] if positional else keywords.get("blueprint") or keywords.get("router")
            )
            key = "url_prefix" if verb == "register_blueprint" else "prefix"
            prefix = literal(keywords.get(key)) if key in keywords else ""
            if child is None or prefix is None:
                continue
            ctx.add(
                RouteFact(
                    "mount",
                    framework,
                    line_of(node),
                    None,
                    prefix,
                    owner,
                    _flat(child),
                    None,
                    ctx.scope_of(node.start_byte),
                )
            )
        elif verb in ("path", "re_path", "url") and (django_file or _in_urlpatterns(node)):
            _django(node, verb, positional, keywords, ctx)


def _in_urlpatterns(node: Node) -> bool:
    parent = node.parent
    for _ in range(4):
        if parent is None:
            return False
        if parent.type in ("assignment", "augmented_assignment"):
            left = parent.child_by_field_name("left")
            return left is not None and text(left) == "urlpatterns"
        parent = parent.parent
    return False


def _django(
    node: Node, verb: str, positional: list[Node], keywords: dict[str, Node], ctx: _Ctx
) -> None:
    route_path = literal(positional[0]) if positional else literal(keywords.get("route"))
    view = positional[1] if len(positional) > 1 else keywords.get("view")
    if route_path is None or view is None:
        return
    if verb != "path":  # a regular expression: anchors are not part of the path
        route_path = route_path.removeprefix("^").removesuffix("$")
    line = line_of(node)
    if view.type == "call" and text(view.child_by_field_name("function") or view) == "include":
        args = view.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is not None and first.type == "tuple" and first.named_children:
            first = first.named_children[0]
        module = literal(first)
        if module:
            ctx.add(
                RouteFact(
                    "mount", "django", line, None, route_path, MODULE_ROUTER, MODULE_PREFIX + module
                )
            )
        return
    handler = _py_handler(view)
    if handler:
        ctx.add(RouteFact("route", "django", line, ANY, route_path, MODULE_ROUTER, handler))


def _py_router(caps: dict[str, list[Node]], ctx: _Ctx) -> None:
    node = caps["route"][0]
    ctor = text(caps["route.ctor"][0]).rsplit(".", 1)[-1]
    _, keywords = _py_args(caps["route.args"][0])
    key = "url_prefix" if ctor == "Blueprint" else "prefix"
    prefix = literal(keywords.get(key)) if key in keywords else ""
    if prefix is None:
        return
    framework = "flask" if ctor == "Blueprint" else "fastapi"
    ctx.add(
        RouteFact(
            "router",
            framework,
            line_of(node),
            None,
            prefix,
            None,
            text(caps["route.var"][0]),
            None,
            ctx.scope_of(node.start_byte),
        )
    )


# -- JavaScript / TypeScript: Express, Koa ------------------------------------------------------

_JS_VERBS = {
    "get": "GET",
    "post": "POST",
    "put": "PUT",
    "delete": "DELETE",
    "del": "DELETE",
    "patch": "PATCH",
    "head": "HEAD",
    "options": "OPTIONS",
    "all": ANY,
}
_JS_ROUTERISH = re.compile(r"(?i)^(app|api|server|router|routes?|.*router|.*app)$")
_JS_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})


def _js_handler(node: Node) -> str | None:
    if node.type in _JS_FUNCTIONS:
        return INLINE_HANDLER
    if node.type in ("identifier", "member_expression"):
        return _flat(node)
    if node.type == "call_expression":  # asyncHandler(users.list): the wrapped handler
        args = node.child_by_field_name("arguments")
        inner = [
            a for a in (args.named_children if args is not None else []) if a.type != "comment"
        ]
        if len(inner) == 1:
            return _js_handler(inner[0])
    return None


def _js_child(node: Node) -> str | None:
    """What ``use`` mounts: a router variable, ``x.routes()``, or ``require('./x')``."""
    if node.type in ("identifier", "member_expression"):
        return _flat(node)
    if node.type == "call_expression":
        func = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if func is not None and func.type == "identifier" and text(func) == "require":
            first = args.named_children[0] if args is not None and args.named_children else None
            module = literal(first)
            return REQUIRE_PREFIX + module if module else None
        if func is not None and func.type == "member_expression":
            prop = func.child_by_field_name("property")
            if prop is not None and text(prop) in ("routes", "middleware"):
                return _flat(func.child_by_field_name("object"))
    return None


def _js_framework(ctx: _Ctx) -> str:
    return "koa" if ctx.imports_any("koa") else "express"


def _javascript(matches: list[dict[str, list[Node]]], ctx: _Ctx) -> None:
    routers: set[str] = set()
    calls: list[dict[str, list[Node]]] = []
    for caps in matches:
        if "route.var" in caps:
            _js_router(caps, ctx, routers)
        elif "route.export" in caps:
            node = caps["route"][0]
            ctx.add(
                RouteFact(
                    "export",
                    _js_framework(ctx),
                    line_of(node),
                    None,
                    None,
                    None,
                    text(caps["route.export"][0]),
                )
            )
        else:
            calls.append(caps)
    framework = _js_framework(ctx)
    server = ctx.imports_any("express", "koa", "router")
    for caps in calls:
        node = caps["route"][0]
        verb = text(caps["route.verb"][0])
        owner_node = caps["route.owner"][0]
        args = [a for a in caps["route.args"][0].named_children if a.type != "comment"]
        scope = ctx.scope_of(node.start_byte)
        if verb == "prefix":  # Koa: router.prefix('/x')
            prefix = literal(args[0]) if args else None
            if prefix is not None and owner_node.type == "identifier":
                ctx.add(
                    RouteFact(
                        "router",
                        framework,
                        line_of(node),
                        None,
                        prefix,
                        None,
                        text(owner_node),
                        None,
                        scope,
                    )
                )
            continue
        if verb == "use":
            prefix = literal(args[0]) if args else None
            children = args[1:] if prefix is not None else args
            owner = _flat(owner_node)
            for child in children:
                target = _js_child(child)
                if target:
                    ctx.add(
                        RouteFact(
                            "mount",
                            framework,
                            line_of(node),
                            None,
                            prefix or "",
                            owner,
                            target,
                            None,
                            scope,
                        )
                    )
            continue
        method = _JS_VERBS[verb]
        route_path: str | None
        chained = _js_route_chain(owner_node)
        if chained is not None:  # router.route('/x').get(h).post(h2)
            owner_node, route_path = chained
            handlers = args
        else:
            route_path = literal(args[0]) if args else None
            handlers = args[1:]
        if route_path is None or not handlers or not route_path.startswith(("/", "*")):
            continue
        owner = _flat(owner_node) or ""
        if not (owner in routers or server or _JS_ROUTERISH.match(owner)):
            continue  # a client call (http.get('/x', cb)) is no route
        handler = _js_handler(handlers[-1])
        if handler is None:
            continue
        ctx.add(
            RouteFact(
                "route", framework, line_of(node), method, route_path, owner, handler, None, scope
            )
        )


def _js_route_chain(owner: Node) -> tuple[Node, str] | None:
    node = owner
    for _ in range(len(_JS_VERBS) + 2):
        if node.type != "call_expression":
            return None
        func = node.child_by_field_name("function")
        if func is None or func.type != "member_expression":
            return None
        prop = func.child_by_field_name("property")
        obj = func.child_by_field_name("object")
        if prop is None or obj is None:
            return None
        if text(prop) == "route":
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            value = literal(first)
            return (obj, value) if value is not None else None
        if text(prop) not in _JS_VERBS:
            return None
        node = obj
    return None


def _js_router(caps: dict[str, list[Node]], ctx: _Ctx, routers: set[str]) -> None:
    node = caps["route"][0]
    name = text(caps["route.var"][0])
    ctor = text(caps["route.ctor"][0]).rsplit(".", 1)[-1]
    prefix = ""
    if ctor in ("Router", "KoaRouter"):
        for arg in caps["route.args"][0].named_children:
            if arg.type != "object":
                continue
            for pair in arg.named_children:
                key = pair.child_by_field_name("key") if pair.type == "pair" else None
                if key is not None and text(key).strip("'\"") == "prefix":
                    prefix = literal(pair.child_by_field_name("value")) or ""
    routers.add(name)
    framework = "koa" if ctor in ("Koa", "KoaRouter") or ctx.imports_any("koa") else "express"
    ctx.add(
        RouteFact(
            "router",
            framework,
            line_of(node),
            None,
            prefix,
            None,
            name,
            None,
            ctx.scope_of(node.start_byte),
        )
    )


# -- Go: net/http, Gin, Echo -----------------------------------------------------------------

_GO_VERBS = {m: m for m in _HTTP_METHODS} | {"Any": ANY}


def _go_framework(ctx: _Ctx) -> str:
    if ctx.imports_any("labstack/echo"):
        return "echo"
    if ctx.imports_any("gin-gonic/gin"):
        return "gin"
    return "gin"


def _go_handler(node: Node) -> str | None:
    if node.type in ("identifier", "selector_expression"):
        return _flat(node)
    if node.type == "func_literal":
        return INLINE_HANDLER
    if node.type in ("call_expression", "type_conversion_expression"):
        # http.HandlerFunc(f), mw(f): the wrapped function
        args = node.child_by_field_name("arguments")
        inner = args.named_children if args is not None else []
        if len(inner) == 1:
            return _go_handler(inner[0])
    return None


def _go(matches: list[dict[str, list[Node]]], ctx: _Ctx) -> None:
    for caps in matches:
        node = caps["route"][0]
        verb = text(caps["route.verb"][0])
        owner_node = caps["route.owner"][0]
        args = [a for a in caps["route.args"][0].named_children if a.type != "comment"]
        scope = ctx.scope_of(node.start_byte)
        line = line_of(node)
        owner = _go_owner(owner_node, ctx, scope, line)
        if "route.var" in caps:  # v1 := r.Group("/v1")
            prefix = literal(args[0]) if args else None
            if prefix is not None:
                ctx.add(
                    RouteFact(
                        "router",
                        _go_framework(ctx),
                        line,
                        None,
                        prefix,
                        owner,
                        text(caps["route.var"][0]),
                        None,
                        scope,
                    )
                )
            continue
        strings = [literal(a) for a in args]
        if verb in _GO_VERBS:
            method, route_path, handlers, framework = (
                _GO_VERBS[verb],
                strings[0] if strings else None,
                args[1:],
                _go_framework(ctx),
            )  # noqa: E501
        elif verb in ("Handle", "Add") and len(args) >= 3 and strings[0] and strings[1] is not None:
            # Gin Handle("GET", "/x", h), Echo Add("GET", "/x", h)
            method, route_path, handlers = strings[0].upper(), strings[1], args[2:]
            framework = _go_framework(ctx)
        elif verb in ("Handle", "HandleFunc") and len(args) == 2 and strings[0] is not None:
            pattern = strings[0]
            method, _, rest = pattern.partition(" ")
            if rest and method.upper() in _HTTP_METHODS:  # Go 1.22: "GET /items/{id}"
                method, route_path = method.upper(), rest.strip()
            else:
                method, route_path = ANY, pattern
            handlers, framework = args[1:], "net/http"
        else:
            continue
        if route_path is None or not handlers:
            continue
        if not route_path.startswith("/") and not (route_path == "" and framework != "net/http"):
            if "/" not in route_path:
                continue
            route_path = "/" + route_path.split("/", 1)[1] if route_path[0] != "/" else route_path
        handler = _go_handler(handlers[-1])
        if handler is None:
            continue
        ctx.add(
            RouteFact("route", framework, line, method, route_path, owner, handler, None, scope)
        )


def _go_owner(node: Node, ctx: _Ctx, scope: str | None, line: int) -> str:
    """The router a call is made on; ``r.Group("/v1").GET(...)`` records the group."""
    if node.type == "call_expression":
        func = node.child_by_field_name("function")
        if func is not None and func.type == "selector_expression":
            field = func.child_by_field_name("field")
            operand = func.child_by_field_name("operand")
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            prefix = literal(first)
            if field is not None and text(field) == "Group" and operand is not None and prefix:
                name = _flat(node) or ""
                ctx.add(
                    RouteFact(
                        "router",
                        _go_framework(ctx),
                        line,
                        None,
                        prefix,
                        _go_owner(operand, ctx, scope, line),
                        name,
                        None,
                        scope,
                    )
                )
                return name
    return _flat(node) or ""


# -- Java: Spring ------------------------------------------------------------------------------

_SPRING = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "DeleteMapping": "DELETE",
    "PatchMapping": "PATCH",
    "RequestMapping": None,
}


def _annotations(modifiers: Node | None) -> list[tuple[str, Node]]:
    if modifiers is None:
        return []
    out: list[tuple[str, Node]] = []
    for child in modifiers.named_children:
        if child.type in ("annotation", "marker_annotation"):
            name = child.child_by_field_name("name")
            if name is not None:
                out.append((text(name).rsplit(".", 1)[-1], child))
    return out


def _java_values(node: Node | None) -> list[str]:
    if node is None:
        return []
    if node.type == "element_value_array_initializer":
        return [v for v in (literal(c) for c in node.named_children) if v is not None]
    value = literal(node)
    return [value] if value is not None else []


def _mapping(annotation: Node) -> tuple[list[str], list[str]]:
    """Paths and methods of a ``@...Mapping`` (no paths: ``[""]``; no methods: ``[]``)."""
    args = annotation.child_by_field_name("arguments")
    paths: list[str] = []
    methods: list[str] = []
    for child in args.named_children if args is not None else []:
        if child.type == "element_value_pair":
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            name = text(key) if key is not None else ""
            if name in ("value", "path"):
                paths += _java_values(value)
            elif name == "method" and value is not None:
                methods += [
                    m.rsplit(".", 1)[-1].upper() for m in re.findall(r"[\w.]+", text(value))
                ]
        else:
            paths += _java_values(child)
    return paths or [""], methods


def _java(matches: list[dict[str, list[Node]]], ctx: _Ctx) -> None:
    seen: set[int] = set()
    for caps in matches:
        cls = caps["route"][0]
        if cls.start_byte in seen:
            continue
        seen.add(cls.start_byte)
        modifiers = next((c for c in cls.named_children if c.type == "modifiers"), None)
        prefixes = [""]
        for name, annotation in _annotations(modifiers):
            if name == "RequestMapping":
                prefixes = _mapping(annotation)[0]
        body = cls.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type != "method_declaration":
                continue
            mods = next((c for c in member.named_children if c.type == "modifiers"), None)
            for name, annotation in _annotations(mods):
                if name not in _SPRING:
                    continue
                paths, methods = _mapping(annotation)
                fixed = _SPRING[name]
                wanted = [fixed] if fixed else (methods or [ANY])
                handler = ctx.defs.get((member.start_byte, member.end_byte))
                for prefix in prefixes:
                    for sub in paths:
                        for method in wanted:
                            ctx.add(
                                RouteFact(
                                    "route",
                                    "spring",
                                    line_of(member),
                                    method,
                                    join_paths(prefix, sub),
                                    None,
                                    handler,
                                    handler,
                                )
                            )


# -- Ruby: Rails routes.rb -----------------------------------------------------------------------

_RAILS_VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE"}
#: (action, method, path suffix, on the member (``/:id``))
_RESOURCES = (
    ("index", "GET", "", False),
    ("new", "GET", "/new", False),
    ("create", "POST", "", False),
    ("show", "GET", "", True),
    ("edit", "GET", "/edit", True),
    ("update", "PATCH", "", True),
    ("update", "PUT", "", True),
    ("destroy", "DELETE", "", True),
)


@dataclass(frozen=True, slots=True)
class _Scope:
    path: str = ""
    module: str = ""  # controller namespace, ``admin/`` style
    controller: str | None = None  # inside resources: its controller
    member: str | None = None  # inside resources: the member path (``/photos/:id``)
    collection: str | None = None  # inside resources: the collection path
    nested: str | None = None  # inside resources: the path nested resources hang from
    on: str | None = None  # inside member/collection blocks: which


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _camel(name: str) -> str:
    return "::".join(
        "".join(part[:1].upper() + part[1:] for part in seg.split("_"))
        for seg in name.split("/")
        if seg
    )


def _rails_handler(controller: str, action: str) -> str:
    return f"{RAILS_PREFIX}{_camel(controller)}Controller#{action}"


def _ruby(matches: list[dict[str, list[Node]]], ctx: _Ctx) -> None:
    for caps in matches:
        body = caps["route.body"][0].child_by_field_name("body")
        if body is not None:
            _rails_block(body, _Scope(), ctx, 0)


def _rails_args(call: Node) -> tuple[list[Node], dict[str, Node], list[tuple[Node, Node]]]:
    """Positional arguments, ``key: value`` options, and ``'path' => 'c#a'`` pairs."""
    args = call.child_by_field_name("arguments")
    positional: list[Node] = []
    options: dict[str, Node] = {}
    arrows: list[tuple[Node, Node]] = []
    for child in args.named_children if args is not None else []:
        if child.type == "pair":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is None or value is None:
                continue
            if key.type in ("hash_key_symbol", "simple_symbol"):
                options[text(key).strip(":")] = value
            else:
                arrows.append((key, value))
        elif child.type in ("hash", "argument_list"):
            for pair in child.named_children:
                if pair.type == "pair":
                    key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                    if key is not None and value is not None:
                        options[text(key).strip(":")] = value
        else:
            positional.append(child)
    return positional, options, arrows


def _symbols(node: Node | None) -> list[str]:
    if node is None:
        return []
    if node.type == "array":
        return [v for v in (literal(c) for c in node.named_children) if v is not None]
    value = literal(node)
    return [value] if value is not None else []


def _rails_block(body: Node, scope: _Scope, ctx: _Ctx, depth: int) -> None:
    if depth > 12:
        return
    for stmt in body.named_children:
        if stmt.type != "call" or stmt.child_by_field_name("receiver") is not None:
            continue
        method = stmt.child_by_field_name("method")
        if method is None:
            continue
        name = text(method)
        block = stmt.child_by_field_name("block")
        inner = block.child_by_field_name("body") if block is not None else None
        positional, options, arrows = _rails_args(stmt)
        if name in _RAILS_VERBS or name == "match":
            _rails_verb(stmt, name, positional, options, arrows, scope, ctx)
        elif name == "root":
            target = literal(positional[0]) if positional else literal(options.get("to"))
            if target and "#" in target:
                controller, action = target.split("#", 1)
                ctx.add(
                    RouteFact(
                        "route",
                        "rails",
                        line_of(stmt),
                        "GET",
                        join_paths(scope.path),
                        None,
                        _rails_handler(scope.module + controller, action),
                    )
                )
        elif name in ("resources", "resource"):
            for resource in [v for v in (literal(p) for p in positional) if v]:
                child = _rails_resources(stmt, resource, name == "resource", options, scope, ctx)
                if inner is not None:
                    _rails_block(inner, child, ctx, depth + 1)
        elif name in ("namespace", "scope") and inner is not None:
            first = literal(positional[0]) if positional else None
            path_opt = literal(options.get("path")) if "path" in options else None
            module_opt = literal(options.get("module")) if "module" in options else None
            if name == "namespace" and first:
                sub = _Scope(join_paths(scope.path, path_opt or first), f"{scope.module}{first}/")
            else:
                prefix = path_opt if path_opt is not None else (first or "")
                module = f"{scope.module}{module_opt}/" if module_opt else scope.module
                sub = _Scope(
                    join_paths(scope.path, prefix) if prefix else scope.path,
                    module,
                    scope.controller,
                    scope.member,
                    scope.collection,
                    scope.nested,
                )
            _rails_block(inner, sub, ctx, depth + 1)
        elif name in ("member", "collection") and inner is not None and scope.controller:
            sub = _Scope(
                scope.path,
                scope.module,
                scope.controller,
                scope.member,
                scope.collection,
                scope.nested,
                name,
            )
            _rails_block(inner, sub, ctx, depth + 1)


def _rails_verb(
    stmt: Node,
    name: str,
    positional: list[Node],
    options: dict[str, Node],
    arrows: list[tuple[Node, Node]],
    scope: _Scope,
    ctx: _Ctx,
) -> None:
    target = literal(options.get("to")) if "to" in options else None
    raw: str | None = None
    symbol = False
    if arrows:
        raw, target = literal(arrows[0][0]), literal(arrows[0][1])
    elif positional:
        raw = literal(positional[0])
        symbol = positional[0].type == "simple_symbol"
    if raw is None:
        return
    if name == "match":
        methods = [m.upper() for m in _symbols(options.get("via"))] or [ANY]
        methods = [ANY if m == "ALL" else m for m in methods]
    else:
        methods = [_RAILS_VERBS[name]]
    controller = literal(options.get("controller")) if "controller" in options else None
    action = literal(options.get("action")) if "action" in options else None
    if target and "#" in target:
        controller, action = target.split("#", 1)
    on = scope.on or (literal(options.get("on")) if "on" in options else None)
    if scope.controller and on in ("member", "collection"):
        base = scope.member if on == "member" else scope.collection
        route_path = join_paths(base or "", raw)
        controller = controller or scope.controller
        action = action or raw.strip("/")
    elif scope.controller and symbol:  # `get :preview` directly in resources: a member route
        route_path = join_paths(scope.member or "", raw)
        controller = controller or scope.controller
        action = action or raw
    else:
        route_path = join_paths(scope.path, raw)
        if controller is None:
            parts = [p for p in raw.strip("/").split("/") if p and not p.startswith((":", "*"))]
            if len(parts) >= 2:
                controller, action = "/".join(parts[:-1]), action or parts[-1]
        if controller is not None:
            controller = scope.module + controller
    handler = _rails_handler(controller, action) if controller and action else None
    for method in methods:
        ctx.add(RouteFact("route", "rails", line_of(stmt), method, route_path, None, handler))


def _rails_resources(
    stmt: Node, resource: str, singular: bool, options: dict[str, Node], scope: _Scope, ctx: _Ctx
) -> _Scope:
    only = set(_symbols(options.get("only"))) if "only" in options else None
    excepted = set(_symbols(options.get("except")))
    segment = literal(options.get("path")) if "path" in options else resource
    controller = literal(options.get("controller")) if "controller" in options else None
    controller = scope.module + (controller or (resource if not singular else resource + "s"))
    base = scope.nested if scope.nested is not None else scope.path
    collection = join_paths(base, segment or resource)
    member = collection if singular else join_paths(collection, f":{_singular(resource)}_id")
    member_path = collection if singular else join_paths(collection, ":id")
    for action, method, suffix, on_member in _RESOURCES:
        if (only is not None and action not in only) or action in excepted:
            continue
        if singular and action == "index":
            continue
        route_path = (member_path if on_member else collection) + suffix
        ctx.add(
            RouteFact(
                "route",
                "rails",
                line_of(stmt),
                method,
                route_path,
                None,
                _rails_handler(controller, action),
            )
        )
    return _Scope(scope.path, scope.module, controller, member_path, collection, member)


_READERS: dict[str, Callable[[list[dict[str, list[Node]]], _Ctx], None]] = {
    "python": _python,
    "javascript": _javascript,
    "typescript": _javascript,
    "tsx": _javascript,
    "go": _go,
    "java": _java,
    "ruby": _ruby,
}
