"""What every language's rules provide, with defaults that fit C-like grammars.

A language is mostly data: tree-sitter queries in a ``.scm`` file beside its module
(definitions, calls, imports, and for Python assignments), compiled into one query that runs
in C and hands back only the nodes extraction needs, plus a few hooks for what a query cannot
say (a Go method's receiver type, whether a Java field is a constant, how an import statement
binds names). The driver in ``parse.py`` is shared.

Capture conventions:

- definitions: ``@def.<kind>`` on the defining node and ``@name`` on its name; ``@scope`` on a
  node that only names a scope (a Rust ``impl``) and is not a symbol itself; optionally
  ``@doc`` on the node holding its documentation inside the body (a Python docstring) and
  ``@body`` on its body, which spare the hooks a walk of the tree.
- calls: ``@call`` on the call and ``@name`` on the called name; the callee expression is the
  call's text up to the end of the name, the receiver what precedes the name in it. A call
  that starts with its name (no receiver) may capture just ``@callee`` on the name: one node
  less per match, and bare calls are a third of a tree's matches.
- imports: ``@import`` on each import statement, read by :meth:`LanguageRules.read_imports`.
- assignments: ``@assign.target`` on the target of an assignment (which starts the
  assignment) and ``@assign.value`` on its value (only languages whose receivers the resolver
  can type).
"""

from __future__ import annotations

import functools
import re
import textwrap
from pathlib import Path

import tree_sitter
from tree_sitter import Node

from ..languages import get_language
from ..model import ImportEdge

_HERE = Path(__file__).parent
_WS = re.compile(r"\s+")
_SIGNATURE_CAP = 400


class LanguageRules:
    """Defaults for one language; subclasses override the queries and the hooks that differ."""

    language = ""
    #: query files beside this module, joined into the language's one query
    query_files: tuple[str, ...] = ()
    comment_types: frozenset[str] = frozenset({"comment"})
    #: node types a definition can sit inside whose leading comment documents it
    doc_wrappers: frozenset[str] = frozenset()
    #: node types between a doc comment and its definition that do not break the comment
    doc_transparent: frozenset[str] = frozenset()
    self_names: tuple[str, ...] = ("this",)
    super_names: tuple[str, ...] = ("super",)
    #: bare ``f()`` inside a class may mean ``this.f()`` (Java, Ruby)
    implicit_self = False

    # -- compiled query --------------------------------------------------------------------

    @functools.cached_property
    def query_source(self) -> str:
        return "\n".join((_HERE / name).read_text(encoding="utf-8") for name in self.query_files)

    @functools.cached_property
    def query(self) -> tree_sitter.Query:
        """All patterns in one query: one pass over the tree instead of one per concern (the
        traversal, not the matching, dominates a query's cost)."""
        return tree_sitter.Query(get_language(self.language), self.query_source)

    # -- symbols ---------------------------------------------------------------------------

    def refine_kind(self, kind: str, node: Node, parent_kind: str | None) -> str | None:
        """The final kind of a definition (None drops it); functions in classes are methods."""
        if kind == "function" and parent_kind in (
            "class",
            "interface",
            "struct",
            "enum",
            "trait",
            "impl",
        ):
            return "method"
        return kind

    def name_of(self, name_node: Node, kind: str) -> str:
        return _text(name_node)

    def qualifier(self, node: Node, kind: str) -> str | None:
        """A scope the definition belongs to without being nested in it (Go receivers)."""
        return None

    def range_node(self, node: Node) -> Node:
        """The node whose lines and text make up the symbol (decorators included)."""
        return node

    def body_node(self, node: Node) -> Node | None:
        return node.child_by_field_name("body")

    def signature(self, node: Node, body: Node | None, src: bytes) -> str:
        if body is not None and body.start_byte > node.start_byte:
            raw = src[node.start_byte : body.start_byte]
        else:
            raw = src[node.start_byte : node.end_byte].split(b"\n", 1)[0]
        return clean_signature(raw.decode("utf-8", "replace"))

    def docstring(self, node: Node, src: bytes) -> tuple[str | None, Node | None]:
        """The documentation and, when it lives inside the body, the node holding it."""
        anchor: Node | None = self.range_node(node)
        while anchor is not None:
            doc = self._leading_comments(anchor)
            if doc:
                return doc, None
            parent = anchor.parent
            climb = (
                parent is not None
                and parent.type in self.doc_wrappers
                and parent.named_children[0] == anchor
            )
            anchor = parent if climb else None
        return None, None

    def captured_docstring(self, doc: Node) -> tuple[str | None, Node | None]:
        """The documentation from the node a query captured as ``@doc`` (see ``docstring``)."""
        return None, None

    def captured_bases(self, bases: Node) -> tuple[str, ...]:
        """The base names from the node a query captured as ``@bases``."""
        return ()

    def bases(self, node: Node) -> tuple[str, ...]:
        return ()

    def self_names_for(self, caller: Node | None) -> tuple[str, ...]:
        """Receiver names meaning 'this instance' inside ``caller`` (Go names its receiver)."""
        return self.self_names

    # -- file level ------------------------------------------------------------------------

    def read_imports(self, node: Node, path: str) -> list[ImportEdge]:
        return []

    def namespace(self, root: Node) -> str | None:
        return None

    def default_export(self, root: Node) -> str | None:
        return None

    # -- helpers ---------------------------------------------------------------------------

    def _leading_comments(self, node: Node) -> str | None:
        """Contiguous comments right above ``node`` (no blank line, not trailing code)."""
        parts: list[str] = []
        row = node.start_point.row
        prev = node.prev_named_sibling
        while prev is not None:
            if prev.type in self.doc_transparent and prev.end_point.row >= row - 1:
                row = prev.start_point.row
                prev = prev.prev_named_sibling
                continue
            if prev.type not in self.comment_types or prev.end_point.row < row - 1:
                break
            before = prev.prev_sibling
            if (
                before is not None
                and before.end_point.row == prev.start_point.row
                and (before.type not in self.comment_types)
            ):
                break  # a trailing comment of the previous line's code
            parts.append(_text(prev).rstrip())
            row = prev.start_point.row
            prev = prev.prev_named_sibling
        if not parts:
            return None
        return clean_comment("\n".join(reversed(parts))) or None


def _text(node: Node) -> str:
    data = node.text
    return data.decode("utf-8", "replace") if data is not None else ""


text = _text


def clean_signature(raw: str) -> str:
    sig = _WS.sub(" ", raw).strip()
    sig = sig.removesuffix("{").rstrip()
    if sig.endswith(":") and not sig.endswith("::"):
        sig = sig[:-1].rstrip()
    return sig[:_SIGNATURE_CAP]


_COMMENT_PREFIX = re.compile(r"^\s*(///?!?|#+!?)\s?")


def clean_comment(raw: str) -> str:
    """Comment text without its markers: ``/** * */``, ``//``, ``///``, ``#``."""
    lines: list[str] = []
    for chunk in raw.split("\n"):
        stripped = chunk.strip()
        if stripped.startswith("/*"):
            stripped = stripped[2:].lstrip("*!")
        if stripped.endswith("*/"):
            stripped = stripped[:-2].rstrip("*")
        if stripped.startswith("*"):
            stripped = stripped[1:]
            lines.append(stripped[1:] if stripped.startswith(" ") else stripped)
            continue
        lines.append(_COMMENT_PREFIX.sub("", stripped, count=1))
    return textwrap.dedent("\n".join(lines)).strip()


def string_literal_value(raw: str) -> str:
    """The content of a quoted literal: ``'x'``, ``"x"``, `` `x` ``."""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] in "'\"`" and raw[-1] == raw[0]:
        return raw[1:-1]
    return raw


def line_of(node: Node) -> int:
    return node.start_point.row + 1
