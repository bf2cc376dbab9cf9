"""Python: functions, classes, methods, module-level constants/variables, PEP 695 aliases."""

from __future__ import annotations

import inspect

from tree_sitter import Node

from ..model import ImportEdge
from .base import LanguageRules, line_of, text


class PythonRules(LanguageRules):
    language = "python"
    query_files = ("python.scm", "python_routes.scm")
    self_names = ("self", "cls")

    def refine_kind(self, kind: str, node: Node, parent_kind: str | None) -> str | None:
        if kind == "variable":
            name = node.child_by_field_name("left")
            label = text(name) if name is not None else ""
            if label == "__all__" or (label.startswith("__") and label.endswith("__")):
                return None  # module metadata, not an API
            return "constant" if label.lstrip("_").isupper() else "variable"
        return super().refine_kind(kind, node, parent_kind)

    def range_node(self, node: Node) -> Node:
        parent = node.parent
        if parent is not None and parent.type == "decorated_definition":
            return parent
        return node

    def body_node(self, node: Node) -> Node | None:
        if node.type == "assignment":
            return None
        return node.child_by_field_name("body")

    def docstring(self, node: Node, src: bytes) -> tuple[str | None, Node | None]:
        body = node.child_by_field_name("body")
        if body is None or node.type == "assignment" or body.named_child_count == 0:
            return None, None
        first = body.named_children[0]
        if first.type != "expression_statement" or first.named_child_count != 1:
            return None, None
        literal = first.named_children[0]
        if literal.type != "string":
            return None, None
        return self.captured_docstring(literal)

    def captured_docstring(self, doc: Node) -> tuple[str | None, Node | None]:
        parts = [text(c) for c in doc.named_children if c.type == "string_content"]
        cleaned = inspect.cleandoc("".join(parts)) if parts else ""
        return (cleaned or None), doc.parent

    def bases(self, node: Node) -> tuple[str, ...]:
        supers = node.child_by_field_name("superclasses")
        return self.captured_bases(supers) if supers is not None else ()

    def captured_bases(self, bases: Node) -> tuple[str, ...]:
        return tuple(text(c) for c in bases.named_children if c.type in ("identifier", "attribute"))

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        line = line_of(node)
        out: list[ImportEdge] = []
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "dotted_name":
                    out.append(ImportEdge(path, text(child), None, None, line))
                elif child.type == "aliased_import":
                    mod = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if mod is not None:
                        out.append(ImportEdge(path, text(mod), None, _opt(alias), line))
            return out
        module_node = node.child_by_field_name("module_name")
        module = text(module_node) if module_node is not None else ""
        skip = module_node.start_byte if module_node is not None else -1
        for child in node.named_children:
            if child.start_byte == skip:
                continue
            if child.type == "wildcard_import":
                out.append(ImportEdge(path, module, "*", None, line))
            elif child.type == "dotted_name":
                out.append(ImportEdge(path, module, text(child), None, line))
            elif child.type == "aliased_import":
                name = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                if name is not None:
                    out.append(ImportEdge(path, module, text(name), _opt(alias), line))
        return out


def _opt(node: Node | None) -> str | None:
    return text(node) if node is not None else None
