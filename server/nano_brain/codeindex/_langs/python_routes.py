"""Route facts of Python files: Flask, FastAPI, Django (rules reading the matches of
``python_routes.scm``; :mod:`nano_brain.codeindex._routes` says what the facts are)."""

from __future__ import annotations

import posixpath

from tree_sitter import Node

from ..model import RouteFact
from .base import line_of, text
from .routing import (
    ANY,
    INLINE_HANDLER,
    MODULE_PREFIX,
    MODULE_ROUTER,
    RouteCtx,
    flat,
    literal,
)

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
                return flat(func.child_by_field_name("object"))
        return None
    if node.type in ("identifier", "attribute"):
        return flat(node)
    if node.type == "lambda":
        return INLINE_HANDLER
    return None


def _py_framework(ctx: RouteCtx, verb: str) -> str:
    if verb in _FASTAPI_ONLY or (ctx.imports_any("fastapi") and not ctx.imports_any("flask")):
        return "fastapi"
    return "flask"


def read_routes(matches: list[dict[str, list[Node]]], ctx: RouteCtx) -> None:
    """Decorated views, ``add_url_rule``/``add_api_route``, blueprints and routers mounted on
    others, and Django's ``urlpatterns``."""
    django_file = posixpath.basename(ctx.path) == "urls.py"
    for caps in matches:
        node = caps["route"][0]
        if "route.var" in caps:
            _py_router(caps, ctx)
            continue
        verb = text(caps["route.verb"][0])
        positional, keywords = _py_args(caps["route.args"][0])
        owner = flat(caps["route.owner"][0]) if "route.owner" in caps else None
        if "route.def" in caps:
            _py_decorated(caps, verb, positional, keywords, owner, ctx)
        elif verb in ("add_url_rule", "add_api_route"):
            _py_added(node, verb, positional, keywords, owner, ctx)
        elif verb in ("register_blueprint", "include_router"):
            _py_mount(node, verb, positional, keywords, owner, ctx)
        elif verb in ("path", "re_path", "url") and (django_file or _in_urlpatterns(node)):
            _django(node, verb, positional, keywords, ctx)


def _py_decorated(
    caps: dict[str, list[Node]],
    verb: str,
    positional: list[Node],
    keywords: dict[str, Node],
    owner: str | None,
    ctx: RouteCtx,
) -> None:
    """A view declared by its decorator (``@app.get("/x")``, ``@bp.route(...)``)."""
    node, definition = caps["route"][0], caps["route.def"][0]
    rule = positional[0] if positional else keywords.get("path") or keywords.get("rule")
    route_path = literal(rule)
    if route_path is None or not (route_path == "" or route_path.startswith("/")):
        return
    if verb in ("route", "api_route"):
        methods = _py_methods(keywords)
    elif verb == "websocket":
        methods = ["WEBSOCKET"]
    else:
        methods = [verb.upper()]
    handler = ctx.defs.get((definition.start_byte, definition.end_byte))
    _py_routes(node, _py_framework(ctx, verb), methods, route_path, owner, handler, handler, ctx)


def _py_added(
    node: Node,
    verb: str,
    positional: list[Node],
    keywords: dict[str, Node],
    owner: str | None,
    ctx: RouteCtx,
) -> None:
    """A view added by a call (``add_url_rule``, ``add_api_route``)."""
    rule = positional[0] if positional else keywords.get("rule") or keywords.get("path")
    route_path = literal(rule)
    if route_path is None:
        return
    if verb == "add_url_rule":
        view = keywords.get("view_func") or (positional[2] if len(positional) > 2 else None)
    else:
        view = keywords.get("endpoint") or (positional[1] if len(positional) > 1 else None)
    methods = _py_methods(keywords)
    _py_routes(
        node, _py_framework(ctx, verb), methods, route_path, owner, _py_handler(view), None, ctx
    )


def _py_methods(keywords: dict[str, Node]) -> list[str]:
    """The methods a ``methods=[...]`` keyword names (Flask's default: GET only)."""
    return [m.upper() for m in _py_strings(keywords.get("methods"))] or ["GET"]


def _py_routes(
    node: Node,
    framework: str,
    methods: list[str],
    route_path: str,
    owner: str | None,
    target: str | None,
    handler: str | None,
    ctx: RouteCtx,
) -> None:
    """One route fact for each method the view takes."""
    line, scope = line_of(node), ctx.scope_of(node.start_byte)
    for method in methods:
        ctx.add(
            RouteFact(
                "route",
                framework,
                line,
                method=method,
                path=route_path,
                owner=owner,
                target=target,
                handler=handler,
                scope=scope,
            )
        )


def _py_mount(
    node: Node,
    verb: str,
    positional: list[Node],
    keywords: dict[str, Node],
    owner: str | None,
    ctx: RouteCtx,
) -> None:
    """A blueprint or router mounted on another (``register_blueprint``, ``include_router``)."""
    child = positional[0] if positional else keywords.get("blueprint") or keywords.get("router")
    prefix = _py_prefix(keywords, flask=verb == "register_blueprint")
    if child is None or prefix is None:
        return
    ctx.add(
        RouteFact(
            "mount",
            _py_framework(ctx, verb),
            line_of(node),
            path=prefix,
            owner=owner,
            target=flat(child),
            scope=ctx.scope_of(node.start_byte),
        )
    )


def _py_prefix(keywords: dict[str, Node], *, flask: bool) -> str | None:
    """The prefix a blueprint (Flask's ``url_prefix``) or a router (FastAPI's ``prefix``) is
    given: "" when none is, None when it is no plain string."""
    key = "url_prefix" if flask else "prefix"
    return literal(keywords.get(key)) if key in keywords else ""


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
    node: Node, verb: str, positional: list[Node], keywords: dict[str, Node], ctx: RouteCtx
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
                    "mount",
                    "django",
                    line,
                    path=route_path,
                    owner=MODULE_ROUTER,
                    target=MODULE_PREFIX + module,
                )
            )
        return
    handler = _py_handler(view)
    if handler:
        ctx.add(RouteFact("route", "django", line, ANY, route_path, MODULE_ROUTER, handler))


def _py_router(caps: dict[str, list[Node]], ctx: RouteCtx) -> None:
    node = caps["route"][0]
    ctor = text(caps["route.ctor"][0]).rsplit(".", 1)[-1]
    _, keywords = _py_args(caps["route.args"][0])
    prefix = _py_prefix(keywords, flask=ctor == "Blueprint")
    if prefix is None:
        return
    framework = "flask" if ctor == "Blueprint" else "fastapi"
    ctx.add_router(
        framework, line_of(node), prefix, text(caps["route.var"][0]), ctx.scope_of(node.start_byte)
    )
