"""Route facts of Java files: Spring (rules reading the matches of ``java_routes.scm``;
:mod:`nano_brain.codeindex._routes` says what the facts are)."""

from __future__ import annotations

import re

from tree_sitter import Node

from ..model import RouteFact
from .base import line_of, text
from .routing import (
    ANY,
    RouteCtx,
    join_paths,
    literal,
)

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


def read_routes(matches: list[dict[str, list[Node]]], ctx: RouteCtx) -> None:
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
                                    method=method,
                                    path=join_paths(prefix, sub),
                                    target=handler,
                                    handler=handler,
                                )
                            )
