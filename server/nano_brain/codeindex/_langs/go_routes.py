"""Route facts of Go files: net/http, Gin, Echo (rules reading the matches of
``go_routes.scm``; :mod:`nano_brain.codeindex._routes` says what the facts are)."""

from __future__ import annotations

from tree_sitter import Node

from ..model import RouteFact
from .base import line_of, text
from .routing import (
    ANY,
    HTTP_METHODS,
    INLINE_HANDLER,
    RouteCtx,
    flat,
    literal,
)

_GO_VERBS = {m: m for m in HTTP_METHODS} | {"Any": ANY}


def _go_framework(ctx: RouteCtx) -> str:
    if ctx.imports_any("labstack/echo"):
        return "echo"
    if ctx.imports_any("gin-gonic/gin"):
        return "gin"
    return "gin"


def _go_handler(node: Node) -> str | None:
    if node.type in ("identifier", "selector_expression"):
        return flat(node)
    if node.type == "func_literal":
        return INLINE_HANDLER
    if node.type in ("call_expression", "type_conversion_expression"):
        # http.HandlerFunc(f), mw(f): the wrapped function
        args = node.child_by_field_name("arguments")
        inner = args.named_children if args is not None else []
        if len(inner) == 1:
            return _go_handler(inner[0])
    return None


def read_routes(matches: list[dict[str, list[Node]]], ctx: RouteCtx) -> None:
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
                ctx.add_router(
                    _go_framework(ctx), line, prefix, text(caps["route.var"][0]), scope, owner=owner
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
            if rest and method.upper() in HTTP_METHODS:  # Go 1.22: "GET /items/{id}"
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


def _go_owner(node: Node, ctx: RouteCtx, scope: str | None, line: int) -> str:
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
                name = flat(node) or ""
                ctx.add_router(
                    _go_framework(ctx),
                    line,
                    prefix,
                    name,
                    scope,
                    owner=_go_owner(operand, ctx, scope, line),
                )
                return name
    return flat(node) or ""
