"""Turn one source file into symbols, imports and call sites (no database, no other files).

The per-language knowledge lives in ``_langs`` (tree-sitter queries plus a few hooks); this
module is the shared driver: run the queries, nest definitions by byte range, name them
``path::Outer.inner``, attach each call to its innermost enclosing symbol.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor

from ._langs import rules_for
from ._langs.base import LanguageRules, line_of, text
from .errors import UnsupportedLanguageError
from .languages import get_parser, language_for_path
from .model import CallSite, FileIndex, Symbol

log = logging.getLogger(__name__)

#: Size cap of a symbol's searchable text (signature + docstring + body).
SEARCH_TEXT_CAP = 2000
_CALLEE_CAP = 200


@dataclass(slots=True)
class _Def:
    """A definition while the file is being read; becomes a Symbol unless it is a scope."""

    node: Node
    name: str
    kind: str
    start: int
    end: int
    parent: _Def | None = None
    dotted: str = ""
    symbol: Symbol | None = None


def parse_file(rel_path: str, source: bytes, language: str | None = None) -> FileIndex:
    """Parse ``source`` (the content of ``rel_path``, relative to the workspace root).

    ``language`` defaults to the one implied by the file name. Syntax errors do not raise:
    tree-sitter recovers, and the result is flagged ``has_errors``.
    """
    lang = language or language_for_path(rel_path)
    if lang is None:
        raise UnsupportedLanguageError(f"{rel_path}: not a source file the code index parses")
    rules = rules_for(lang)
    tree = get_parser(lang).parse(source)
    root = tree.root_node
    index = FileIndex(path=rel_path, language=lang, has_errors=root.has_error)
    defs = _definitions(rules, root, rel_path, source, index)
    index.calls = _calls(rules, root, rel_path, defs)
    if rules.imports_query is not None:
        for node in _captures(rules.imports_query, root).get("import", ()):
            index.imports.extend(rules.read_imports(node, rel_path))
    index.namespace = rules.namespace(root)
    index.default_export = rules.default_export(root)
    return index


def _captures(query: object, root: Node) -> dict[str, list[Node]]:
    return QueryCursor(query).captures(root)  # type: ignore[arg-type]


def _definitions(
    rules: LanguageRules, root: Node, path: str, src: bytes, index: FileIndex
) -> list[_Def]:
    """Every definition in source order, nested, named and (unless a scope) made a Symbol."""
    raw: list[_Def] = []
    seen: set[tuple[int, int, str]] = set()
    for _, caps in QueryCursor(rules.definitions_query).matches(root):
        names = caps.get("name")
        if not names:
            continue
        for key, nodes in caps.items():
            if key == "scope":
                kind = "impl"
            elif key.startswith("def."):
                kind = key[4:]
            else:
                continue
            node = nodes[0]
            name = rules.name_of(names[0], kind)
            ident = (node.start_byte, node.end_byte, name)
            if name and ident not in seen:
                seen.add(ident)
                raw.append(_Def(node, name, kind, node.start_byte, node.end_byte))
    raw.sort(key=lambda d: (d.start, -d.end))

    out: list[_Def] = []
    stack: list[_Def] = []
    used: dict[str, int] = {}
    by_dotted: dict[str, Symbol] = {}
    pending_parent: list[tuple[Symbol, str]] = []
    for d in raw:
        while stack and not (stack[-1].start <= d.start and d.end <= stack[-1].end
                             and (stack[-1].start, stack[-1].end) != (d.start, d.end)):
            stack.pop()
        parent = stack[-1] if stack else None
        kind = rules.refine_kind(d.kind, d.node, parent.kind if parent else None)
        if kind is None:
            continue
        d.kind, d.parent = kind, parent
        prefix = parent.dotted + "." if parent is not None else ""
        qualifier = rules.qualifier(d.node, kind)
        if qualifier:
            prefix += qualifier + "."
        dotted = prefix + d.name
        if kind != "impl":
            count = used.get(dotted, 0) + 1
            used[dotted] = count
            if count > 1:
                dotted = f"{dotted}#{count}"
        d.dotted = dotted
        stack.append(d)
        out.append(d)
        if kind == "impl":
            continue
        d.symbol = _symbol(rules, d, path, src)
        by_dotted.setdefault(dotted, d.symbol)
        if prefix:
            pending_parent.append((d.symbol, prefix[:-1]))
        index.symbols.append(d.symbol)
    for symbol, owner in pending_parent:
        parent_symbol = by_dotted.get(owner)
        symbol.parent = parent_symbol.qualified_name if parent_symbol is not None else None
    return out


def _symbol(rules: LanguageRules, d: _Def, path: str, src: bytes) -> Symbol:
    node = d.node
    outer = rules.range_node(node)
    body = rules.body_node(node)
    signature = rules.signature(node, body, src)
    doc, doc_node = rules.docstring(node, src)
    whole = src[outer.start_byte : outer.end_byte]
    if body is not None:
        body_start = doc_node.end_byte if doc_node is not None else body.start_byte
        body_text = src[body_start : node.end_byte]
    else:
        body_text = src[node.start_byte : node.end_byte]
    parts = [signature]
    if doc:
        parts.append(doc)
    parts.append(body_text[: SEARCH_TEXT_CAP * 2].decode("utf-8", "replace").strip())
    return Symbol(
        qualified_name=f"{path}::{d.dotted}",
        name=d.name,
        kind=d.kind,
        path=path,
        language=rules.language,
        signature=signature,
        docstring=doc,
        start_line=outer.start_point.row + 1,
        end_line=outer.end_point.row + 1,
        sha256=hashlib.sha256(whole).hexdigest(),
        bases=rules.bases(node),
        search_text="\n".join(p for p in parts if p)[:SEARCH_TEXT_CAP],
    )


def _calls(rules: LanguageRules, root: Node, path: str, defs: list[_Def]) -> list[CallSite]:
    """Call sites in source order, each attributed to its innermost enclosing symbol."""
    found: list[tuple[int, Node, Node, Node | None, Node | None]] = []
    seen: set[tuple[int, int]] = set()
    for _, caps in QueryCursor(rules.calls_query).matches(root):
        call = caps["call"][0]
        name = caps["name"][0]
        key = (call.start_byte, name.start_byte)
        if key in seen:
            continue
        seen.add(key)
        receiver = caps.get("receiver")
        callee = caps.get("callee")
        found.append((call.start_byte, call, name, receiver[0] if receiver else None,
                      callee[0] if callee else None))
    found.sort(key=lambda f: f[0])

    symbols = [d for d in defs if d.symbol is not None]
    out: list[CallSite] = []
    stack: list[_Def] = []
    i = 0
    for start, call, name, receiver, callee in found:
        while i < len(symbols) and symbols[i].start <= start:
            nxt = symbols[i]
            while stack and stack[-1].end <= nxt.start:
                stack.pop()
            stack.append(nxt)
            i += 1
        while stack and stack[-1].end <= start:
            stack.pop()
        caller = stack[-1] if stack else None
        out.append(_call_site(rules, path, caller, call, name, receiver, callee))
    return out


def _call_site(
    rules: LanguageRules,
    path: str,
    caller: _Def | None,
    call: Node,
    name: Node,
    receiver: Node | None,
    callee: Node | None,
) -> CallSite:
    if callee is not None:
        callee_text = text(callee)
    elif receiver is not None:
        callee_text = (call.text or b"")[: name.end_byte - call.start_byte].decode(
            "utf-8", "replace"
        )
    else:
        callee_text = text(name)
    receiver_text = text(receiver) if receiver is not None else None
    if receiver_text is None:
        receiver_kind = "none"
    elif receiver_text in rules.self_names_for(caller.node if caller else None):
        receiver_kind = "self"
    elif receiver_text in rules.super_names or receiver_text.startswith("super("):
        receiver_kind = "super"
    else:
        receiver_kind = "other"
    return CallSite(
        path=path,
        caller=caller.symbol.qualified_name if caller is not None and caller.symbol else None,
        callee=" ".join(callee_text.split())[:_CALLEE_CAP],
        name=text(name),
        receiver=" ".join(receiver_text.split()) if receiver_text is not None else None,
        receiver_kind=receiver_kind,
        line=line_of(name),
    )
