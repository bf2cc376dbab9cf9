"""Route facts of JavaScript and TypeScript files: Express, Koa (rules reading the matches
of ``javascript_routes.scm``; :mod:`nano_brain.codeindex._routes` says what the facts are)."""

from __future__ import annotations

import re

from tree_sitter import Node

from ..model import RouteFact
from .base import line_of, text
from .routing import (
    ANY,
    INLINE_HANDLER,
    REQUIRE_PREFIX,
    RouteCtx,
    flat,
    literal,
)

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
        return flat(node)
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
        return flat(node)
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
                return flat(func.child_by_field_name("object"))
    return None


def _js_framework(ctx: RouteCtx) -> str:
    return "koa" if ctx.imports_any("koa") else "express"


def read_routes(matches: list[dict[str, list[Node]]], ctx: RouteCtx) -> None:
    """Routers and what a module exports first, then the calls on routers and apps (a call
    counts as a route on a router the file made, or in a file that imports a server)."""
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
                    target=text(caps["route.export"][0]),
                )
            )
        else:
            calls.append(caps)
    framework = _js_framework(ctx)
    server = ctx.imports_any("express", "koa", "router")
    for caps in calls:
        _js_call(caps, ctx, framework, server, routers)


def _js_call(
    caps: dict[str, list[Node]], ctx: RouteCtx, framework: str, server: bool, routers: set[str]
) -> None:
    """One call on a router or an app: ``prefix`` (Koa), ``use`` (mounts) or a verb (a route)."""
    node = caps["route"][0]
    verb = text(caps["route.verb"][0])
    owner_node = caps["route.owner"][0]
    args = [a for a in caps["route.args"][0].named_children if a.type != "comment"]
    scope = ctx.scope_of(node.start_byte)
    if verb == "prefix":  # Koa: router.prefix('/x')
        prefix = literal(args[0]) if args else None
        if prefix is not None and owner_node.type == "identifier":
            ctx.add_router(framework, line_of(node), prefix, text(owner_node), scope)
        return
    if verb == "use":
        _js_use(node, owner_node, args, framework, scope, ctx)
        return
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
        return
    owner = flat(owner_node) or ""
    if not (owner in routers or server or _JS_ROUTERISH.match(owner)):
        return  # a client call (http.get('/x', cb)) is no route
    handler = _js_handler(handlers[-1])
    if handler is None:
        return
    ctx.add(
        RouteFact(
            "route",
            framework,
            line_of(node),
            method=method,
            path=route_path,
            owner=owner,
            target=handler,
            scope=scope,
        )
    )


def _js_use(
    node: Node, owner_node: Node, args: list[Node], framework: str, scope: str | None, ctx: RouteCtx
) -> None:
    """``app.use('/api', router)``: each router (or module) mounted, under the prefix if any."""
    prefix = literal(args[0]) if args else None
    children = args[1:] if prefix is not None else args
    owner = flat(owner_node)
    for child in children:
        target = _js_child(child)
        if target:
            ctx.add(
                RouteFact(
                    "mount",
                    framework,
                    line_of(node),
                    path=prefix or "",
                    owner=owner,
                    target=target,
                    scope=scope,
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


def _js_router(caps: dict[str, list[Node]], ctx: RouteCtx, routers: set[str]) -> None:
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
    ctx.add_router(framework, line_of(node), prefix, name, ctx.scope_of(node.start_byte))
