"""Go: functions, methods (qualified by receiver type), structs, interfaces (and their
methods), other named types, package-level constants and variables; imports; package name."""

from __future__ import annotations

import re

from tree_sitter import Node

from ..model import ImportEdge
from .base import LanguageRules, clean_signature, line_of, string_literal_value, text

_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class GoRules(LanguageRules):
    language = "go"
    query_files = ("go.scm", "go_routes.scm")
    doc_wrappers = frozenset(
        {"type_declaration", "const_declaration", "var_declaration", "var_spec_list"}
    )
    self_names = ()

    def refine_kind(self, kind: str, node: Node, parent_kind: str | None) -> str | None:
        if kind == "type" and node.type == "type_spec":
            shape = node.child_by_field_name("type")
            if shape is not None and shape.type == "struct_type":
                return "struct"
            if shape is not None and shape.type == "interface_type":
                return "interface"
        return super().refine_kind(kind, node, parent_kind)

    def qualifier(self, node: Node, kind: str) -> str | None:
        if node.type != "method_declaration":
            return None
        receiver = node.child_by_field_name("receiver")
        param = receiver.named_children[0] if receiver and receiver.named_children else None
        typ = param.child_by_field_name("type") if param is not None else None
        if typ is None:
            return None
        match = _TYPE_NAME.search(text(typ).lstrip("*"))
        return match.group(0) if match else None

    def signature(self, node: Node, body: Node | None, src: bytes) -> str:
        sig = super().signature(node, body, src)
        if node.type in ("type_spec", "type_alias"):
            return clean_signature("type " + sig)
        if node.type == "const_spec":
            return clean_signature("const " + sig)
        if node.type == "var_spec":
            return clean_signature("var " + sig)
        return sig

    def body_node(self, node: Node) -> Node | None:
        return node.child_by_field_name("body") if node.type.endswith("_declaration") else None

    def self_names_for(self, caller: Node | None) -> tuple[str, ...]:
        if caller is None or caller.type != "method_declaration":
            return ()
        receiver = caller.child_by_field_name("receiver")
        param = receiver.named_children[0] if receiver and receiver.named_children else None
        name = param.child_by_field_name("name") if param is not None else None
        return (text(name),) if name is not None else ()

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        source = node.child_by_field_name("path")
        if source is None:
            return []
        alias = node.child_by_field_name("name")
        alias_text = text(alias) if alias is not None else None
        module = string_literal_value(text(source))
        if alias_text == "_":
            return [ImportEdge(path, module, "", None, line_of(node))]
        if alias_text == ".":
            return [ImportEdge(path, module, "*", None, line_of(node))]
        return [ImportEdge(path, module, None, alias_text, line_of(node))]

    def namespace(self, root: Node) -> str | None:
        for child in root.named_children:
            if child.type == "package_clause":
                ident = child.named_children[0] if child.named_children else None
                return text(ident) if ident is not None else None
        return None
