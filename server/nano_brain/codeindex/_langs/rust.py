"""Rust: functions, methods (named by their ``impl``/``trait``), structs, enums, traits, type
aliases, consts/statics, inline modules, ``macro_rules!``; ``use`` trees."""

from __future__ import annotations

import re

from tree_sitter import Node

from ..model import ImportEdge
from .base import LanguageRules, line_of, text

_GENERICS = re.compile(r"<.*", re.S)


class RustRules(LanguageRules):
    language = "rust"
    query_files = ("rust.scm",)
    comment_types = frozenset({"line_comment", "block_comment"})
    doc_transparent = frozenset({"attribute_item"})
    self_names = ("self", "Self")

    def name_of(self, name_node: Node, kind: str) -> str:
        if kind != "impl":
            return text(name_node)
        bare = _GENERICS.sub("", text(name_node)).strip().lstrip("&*").strip()
        bare = bare.removeprefix("mut ").removeprefix("dyn ").strip()
        return bare.rsplit("::", 1)[-1]

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        arg = node.child_by_field_name("argument")
        if arg is None:
            return []
        line = line_of(node)
        return [ImportEdge(path, m, n, a, line) for m, n, a in _use_tree(arg, "")]


def _join(prefix: str, part: str) -> str:
    return f"{prefix}::{part}" if prefix else part


def _use_tree(node: Node, prefix: str) -> list[tuple[str, str | None, str | None]]:
    """(module, name, alias) for every name a ``use`` tree binds."""
    kind = node.type
    if kind in ("identifier", "self", "crate", "super"):
        if kind == "self" and prefix:
            return [(prefix, None, None)]
        return [(prefix, text(node), None)] if prefix else [(text(node), None, None)]
    if kind == "scoped_identifier":
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        module = _join(prefix, text(path)) if path is not None else prefix
        return [(module, text(name) if name is not None else None, None)]
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        inner = _use_tree(path, prefix) if path is not None else []
        alias_text = text(alias) if alias is not None else None
        return [(m, n, alias_text) for m, n, _ in inner[:1]]
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        lst = node.child_by_field_name("list")
        new_prefix = _join(prefix, text(path)) if path is not None else prefix
        return _use_tree(lst, new_prefix) if lst is not None else []
    if kind == "use_list":
        out: list[tuple[str, str | None, str | None]] = []
        for child in node.named_children:
            out.extend(_use_tree(child, prefix))
        return out
    if kind == "use_wildcard":
        star = node.named_children[0] if node.named_children else None
        module = _join(prefix, text(star)) if star is not None else prefix
        return [(module, "*", None)]
    return []
