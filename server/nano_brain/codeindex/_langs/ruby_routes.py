"""Route facts of Ruby files: Rails routes.rb (rules reading the matches of
``ruby_routes.scm``; :mod:`nano_brain.codeindex._routes` says what the facts are)."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ..model import RouteFact
from .base import line_of, text
from .routing import (
    ANY,
    RAILS_PREFIX,
    RouteCtx,
    join_paths,
    literal,
)

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


def read_routes(matches: list[dict[str, list[Node]]], ctx: RouteCtx) -> None:
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


def _rails_block(body: Node, scope: _Scope, ctx: RouteCtx, depth: int) -> None:
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
                        method="GET",
                        path=join_paths(scope.path),
                        target=_rails_handler(scope.module + controller, action),
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
    ctx: RouteCtx,
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
    stmt: Node,
    resource: str,
    singular: bool,
    options: dict[str, Node],
    scope: _Scope,
    ctx: RouteCtx,
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
                method=method,
                path=route_path,
                target=_rails_handler(controller, action),
            )
        )
    return _Scope(scope.path, scope.module, controller, member_path, collection, member)
