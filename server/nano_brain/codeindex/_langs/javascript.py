"""JavaScript, TypeScript and TSX: functions, classes, methods, top-level bindings, and (TS)
interfaces, type aliases, enums, namespaces; ES imports, ``require`` and re-exports."""

from __future__ import annotations

from tree_sitter import Node

from ..model import ImportEdge
from .base import LanguageRules, clean_signature, line_of, string_literal_value, text

_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)


class JavaScriptRules(LanguageRules):
    language = "javascript"
    query_files: tuple[str, ...] = ("javascript.scm", "javascript_routes.scm")
    doc_wrappers = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})
    self_names = ("this",)

    def refine_kind(self, kind: str, node: Node, parent_kind: str | None) -> str | None:
        if kind == "variable":
            value = node.child_by_field_name("value")
            if value is not None and value.type in _FUNCTION_VALUES:
                return "function"
            if value is not None and value.type == "class":
                return "class"
            if value is not None and value.type == "call_expression":
                func = value.child_by_field_name("function")
                if func is not None and text(func) == "require":
                    return None  # an import binding, recorded as an ImportEdge
            decl = node.parent
            if decl is not None and decl.child_count and decl.children[0].type == "const":
                return "constant"
            return "variable"
        return super().refine_kind(kind, node, parent_kind)

    def range_node(self, node: Node) -> Node:
        parent = node.parent
        if (
            node.type == "variable_declarator"
            and parent is not None
            and parent.named_child_count == 1
        ):
            return parent
        return node

    def body_node(self, node: Node) -> Node | None:
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in _FUNCTION_VALUES | {"class"}:
                return value.child_by_field_name("body")
            return None
        return node.child_by_field_name("body")

    def signature(self, node: Node, body: Node | None, src: bytes) -> str:
        sig = super().signature(node, body, src)
        if node.type == "variable_declarator" and node.parent is not None:
            keyword = node.parent.children[0].type if node.parent.child_count else ""
            if keyword in ("const", "let", "var"):
                sig = clean_signature(f"{keyword} {sig}")
        return sig

    def bases(self, node: Node) -> tuple[str, ...]:
        out: list[str] = []
        for child in node.named_children:
            if child.type != "class_heritage":
                continue
            for part in child.named_children:
                if part.type == "extends_clause":
                    out.extend(text(v) for v in part.children_by_field_name("value"))
                elif part.type in ("identifier", "member_expression"):
                    out.append(text(part))
        return tuple(out)

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        line = line_of(node)
        if node.type == "variable_declarator":
            return self._require(node, path, line)
        source = node.child_by_field_name("source")
        if source is None:
            return []
        module = string_literal_value(text(source))
        out: list[ImportEdge] = []
        if node.type == "export_statement":
            for child in node.named_children:
                if child.type == "export_clause":
                    out.extend(_specifiers(child, path, module, line))
            return out or [ImportEdge(path, module, "*", None, line)]
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            return [ImportEdge(path, module, "", None, line)]  # side effects only
        for child in clause.named_children:
            if child.type == "identifier":
                out.append(ImportEdge(path, module, "default", text(child), line))
            elif child.type == "namespace_import":
                ident = next((c for c in child.named_children if c.type == "identifier"), None)
                out.append(ImportEdge(path, module, "*", _opt(ident), line))
            elif child.type == "named_imports":
                out.extend(_specifiers(child, path, module, line))
        return out

    def _require(self, node: Node, path: str, line: int) -> list[ImportEdge]:
        value = node.child_by_field_name("value")
        target = node.child_by_field_name("name")
        if value is None or target is None:
            return []
        func = value.child_by_field_name("function")
        if func is None or text(func) != "require":
            return []
        args = value.child_by_field_name("arguments")
        literal = args.named_children[0] if args is not None and args.named_children else None
        if literal is None or literal.type != "string":
            return []
        module = string_literal_value(text(literal))
        if target.type == "identifier":
            return [ImportEdge(path, module, None, text(target), line)]
        out: list[ImportEdge] = []
        if target.type == "object_pattern":
            for part in target.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    out.append(ImportEdge(path, module, text(part), None, line))
                elif part.type == "pair_pattern":
                    key = part.child_by_field_name("key")
                    val = part.child_by_field_name("value")
                    if key is not None and val is not None and val.type == "identifier":
                        out.append(ImportEdge(path, module, text(key), text(val), line))
        return out

    def default_export(self, root: Node) -> str | None:
        for child in root.named_children:
            if child.type != "export_statement":
                continue
            if not any(c.type == "default" for c in child.children):
                continue
            decl = child.child_by_field_name("declaration")
            if decl is not None:
                name = decl.child_by_field_name("name")
                return text(name) if name is not None else None
            value = child.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                return text(value)
        return None


class TypeScriptRules(JavaScriptRules):
    language = "typescript"
    query_files = ("javascript.scm", "typescript.scm", "javascript_routes.scm")
    doc_wrappers = JavaScriptRules.doc_wrappers | {"expression_statement"}


class TsxRules(TypeScriptRules):
    language = "tsx"


def _specifiers(clause: Node, path: str, module: str, line: int) -> list[ImportEdge]:
    """The names of ``{a, b as c}`` in an import or a re-export, each with its alias."""
    out: list[ImportEdge] = []
    for spec in clause.named_children:
        name = spec.child_by_field_name("name")
        if name is not None:
            out.append(
                ImportEdge(path, module, text(name), _opt(spec.child_by_field_name("alias")), line)
            )
    return out


def _opt(node: Node | None) -> str | None:
    return text(node) if node is not None else None
