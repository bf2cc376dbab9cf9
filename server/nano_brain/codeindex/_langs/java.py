"""Java: classes, records, interfaces, annotation types, enums, methods and constructors,
``static final`` (and interface) constants; imports; the package name."""

from __future__ import annotations

import re

from tree_sitter import Node

from ..model import ImportEdge
from .base import LanguageRules, line_of, text

_GENERICS = re.compile(r"<.*", re.S)


class JavaRules(LanguageRules):
    language = "java"
    query_files = ("java.scm", "java_routes.scm")
    comment_types = frozenset({"line_comment", "block_comment"})
    doc_wrappers = frozenset({"field_declaration", "constant_declaration"})
    self_names = ("this",)
    implicit_self = True

    def refine_kind(self, kind: str, node: Node, parent_kind: str | None) -> str | None:
        if kind == "constant":
            decl = node.parent
            if decl is None:
                return None
            if decl.type == "constant_declaration" or parent_kind == "interface":
                return "constant"
            mods = next((c for c in decl.children if c.type == "modifiers"), None)
            words = set(text(mods).split()) if mods is not None else set()
            return "constant" if {"static", "final"} <= words else None
        return super().refine_kind(kind, node, parent_kind)

    def range_node(self, node: Node) -> Node:
        parent = node.parent
        if node.type == "variable_declarator" and parent is not None:
            return parent
        return node

    def signature(self, node: Node, body: Node | None, src: bytes) -> str:
        if node.type == "variable_declarator" and node.parent is not None:
            node = node.parent
        return super().signature(node, body, src)

    def bases(self, node: Node) -> tuple[str, ...]:
        sup = node.child_by_field_name("superclass")
        if sup is None or not sup.named_children:
            return ()
        return (_GENERICS.sub("", text(sup.named_children[0])).strip(),)

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        target = next(
            (c for c in node.named_children if c.type in ("scoped_identifier", "identifier")),
            None,
        )
        if target is None:
            return []
        full = text(target)
        line = line_of(node)
        if any(c.type == "asterisk" for c in node.children):
            return [ImportEdge(path, full, "*", None, line)]
        module, _, name = full.rpartition(".")
        return [ImportEdge(path, module, name, None, line)]

    def namespace(self, root: Node) -> str | None:
        for child in root.named_children:
            if child.type == "package_declaration":
                ident = next(
                    (
                        c
                        for c in child.named_children
                        if c.type in ("scoped_identifier", "identifier")
                    ),
                    None,
                )
                return text(ident) if ident is not None else None
        return None
