"""Ruby: classes, modules, instance and singleton methods, top-level constants; ``require``."""

from __future__ import annotations

from tree_sitter import Node

from ..model import ImportEdge
from .base import LanguageRules, line_of, string_literal_value, text

_REQUIRES = frozenset({"require", "require_relative", "load"})


class RubyRules(LanguageRules):
    language = "ruby"
    query_files = ("ruby.scm", "ruby_routes.scm")
    doc_wrappers = frozenset({"body_statement"})
    self_names = ("self",)
    implicit_self = True

    def refine_kind(self, kind: str, node: Node, parent_kind: str | None) -> str | None:
        if kind == "method" and parent_kind not in ("class", "module"):
            return "function"
        return kind

    def body_node(self, node: Node) -> Node | None:
        body = node.child_by_field_name("body")
        if body is not None:
            return body
        params = node.child_by_field_name("parameters")
        return params.next_named_sibling if params is not None else None

    def signature(self, node: Node, body: Node | None, src: bytes) -> str:
        return super().signature(node, None, src)

    def bases(self, node: Node) -> tuple[str, ...]:
        sup = node.child_by_field_name("superclass")
        if sup is None or not sup.named_children:
            return ()
        return (text(sup.named_children[0]),)

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        method = node.child_by_field_name("method")
        if method is None or text(method) not in _REQUIRES:
            return []
        args = node.child_by_field_name("arguments")
        literal = args.named_children[0] if args is not None and args.named_children else None
        if literal is None:
            return []
        module = string_literal_value(text(literal))
        if text(method) == "require_relative" and not module.startswith("."):
            module = "./" + module
        return [ImportEdge(path, module, "", None, line_of(node))]
