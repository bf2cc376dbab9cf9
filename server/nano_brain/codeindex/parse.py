"""Turn one source file into symbols, imports and call sites (no database, no other files).

The per-language knowledge lives in ``_langs`` (tree-sitter queries plus a few hooks); this
module is the shared driver: run the queries, nest definitions by byte range, name them
``path::Outer.inner``, attach each call to its innermost enclosing symbol.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor

from ._langs import rules_for
from ._langs.base import LanguageRules
from ._routes import extract_routes
from .errors import UnsupportedLanguageError
from .languages import get_language, get_parser, language_for_path
from .model import Assignment, CallSite, FileIndex, RouteFact, Symbol

log = logging.getLogger(__name__)

#: Size cap of a symbol's searchable text (signature + docstring + body).
SEARCH_TEXT_CAP = 2000
_SUMMARY_CAP = 300
_NON_WORD = re.compile(r"[_\W]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CALLEE_CAP = 160
_BLANKS = re.compile(rb"[\s\x1c-\x1f]")  # what str.split() splits ASCII on


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
    #: the pattern captured the body (and the docstring, base list) itself
    captured: bool = False
    body: Node | None = None
    doc: Node | None = None
    bases: Node | None = None


def parse_file(rel_path: str, source: bytes, language: str | None = None) -> FileIndex:
    """Parse ``source`` (the content of ``rel_path``, relative to the workspace root).

    ``language`` defaults to the one implied by the file name. Syntax errors do not raise:
    tree-sitter recovers, and the result is flagged ``has_errors``.
    """
    return _parse(rel_path, source, language, captures=True)


def parse_file_reference(rel_path: str, source: bytes, language: str | None = None) -> FileIndex:
    """The extraction as it was before the queries captured bodies and docstrings: the same
    driver, finding them by walking the tree from each definition. Kept while the tests
    compare the two on every fixture."""
    return _parse(rel_path, source, language, captures=False)


def parse_spans(rel_path: str, source: bytes) -> list[tuple[str, str, int, int]]:
    """(dotted name, kind, first line, last line) of each symbol :func:`parse_file` finds in
    ``source``, in its order: the history's spans of a past version of a file.

    Only the language's definition patterns run and no Symbol is built (no signature,
    docstring, digest or search text): most of a tree's matches are calls, and the history
    parses thousands of versions.
    """
    lang = _language(rel_path, None)
    rules = rules_for(lang)
    root = get_parser(lang).parse(source).root_node
    found: list[_Def] = []
    for _, caps in QueryCursor(_definition_query(lang)).matches(root):
        _collect_definition(rules, caps, found, captures=False)
    return [
        (d.dotted, d.kind, *_lines(rules.range_node(d.node)))
        for d, _ in _named(rules, found)
        if d.kind != "impl"
    ]


#: Captures that make a match something other than a definition (see ``_parse``).
_NOT_DEFINITION = frozenset({"route", "call", "callee", "assign.target", "import"})
#: A query's strings and comments, which may hold ``@`` that captures nothing.
_QUERY_NOISE = re.compile(r'"(?:[^"\\]|\\.)*"|;[^\n]*')
_CAPTURE = re.compile(r"@([\w.-]+)")


@functools.cache
def _definition_query(language: str) -> Query:
    """The language's query with only the patterns ``_parse`` reads definitions from left
    enabled (a query of its own: the full one is shared by every parse)."""
    source = rules_for(language).query_source
    query = Query(get_language(language), source)
    raw = source.encode()
    for i in range(query.pattern_count):
        # a pattern's bytes run to the next pattern, so they may end with comments
        text = raw[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)].decode()
        names = set(_CAPTURE.findall(_QUERY_NOISE.sub(" ", text)))
        defines = any(n == "scope" or n.startswith("def.") for n in names)
        if not defines or names & _NOT_DEFINITION:
            query.disable_pattern(i)
    return query


def _parse(
    rel_path: str,
    source: bytes,
    language: str | None,
    *,
    captures: bool,
) -> FileIndex:
    lang = _language(rel_path, language)
    rules = rules_for(lang)
    root = get_parser(lang).parse(source).root_node
    index = FileIndex(path=rel_path, language=lang, has_errors=root.has_error)
    raw_defs: list[_Def] = []
    raw_calls: list[tuple[Node, Node]] = []
    raw_assigns: list[tuple[Node, Node]] = []
    raw_routes: list[dict[str, list[Node]]] = []
    for _, caps in QueryCursor(rules.query).matches(root):
        if "route" in caps:
            raw_routes.append(caps)
        elif "call" in caps:
            raw_calls.append((caps["call"][0], caps["name"][0]))
        elif "callee" in caps:  # a bare call: the call starts where its name does
            callee = caps["callee"][0]
            raw_calls.append((callee, callee))
        elif "assign.target" in caps:  # an assignment starts with its target
            raw_assigns.append((caps["assign.target"][0], caps["assign.value"][0]))
        elif "import" in caps:
            index.imports.extend(rules.read_imports(caps["import"][0], rel_path))
        else:
            _collect_definition(rules, caps, raw_defs, captures)
    defs = _definitions(rules, raw_defs, rel_path, source, index)
    index.calls = _calls(rules, raw_calls, rel_path, source, defs)
    receivers = {c.receiver for c in index.calls if c.receiver}
    if raw_assigns and receivers:
        index.assignments = _assignments(raw_assigns, rel_path, source, defs, receivers)
    index.imports.sort(key=lambda imp: imp.line)
    if raw_routes:
        index.routes = _routes(lang, raw_routes, rel_path, defs, index)
    index.namespace = rules.namespace(root)
    index.default_export = rules.default_export(root)
    return index


def _language(rel_path: str, language: str | None) -> str:
    lang = language or language_for_path(rel_path)
    if lang is None:
        raise UnsupportedLanguageError(f"{rel_path}: not a source file the code index parses")
    return lang


def _collect_definition(
    rules: LanguageRules, caps: dict[str, list[Node]], out: list[_Def], captures: bool
) -> None:
    names = caps.get("name")
    if not names:
        return
    for key, nodes in caps.items():
        if key == "scope":
            kind = "impl"
        elif key.startswith("def."):
            kind = key[4:]
        else:
            continue
        node = nodes[0]
        name = rules.name_of(names[0], kind)
        if name:
            d = _Def(node, name, kind, node.start_byte, node.end_byte)
            if captures and "body" in caps:
                d.captured = True
                d.body = caps["body"][0]
                d.doc = caps["doc"][0] if "doc" in caps else None
                d.bases = caps["bases"][0] if "bases" in caps else None
            out.append(d)


def _definitions(
    rules: LanguageRules, found: list[_Def], path: str, src: bytes, index: FileIndex
) -> list[_Def]:
    """Every definition in source order, nested, named and (unless a scope) made a Symbol."""
    out: list[_Def] = []
    by_dotted: dict[str, Symbol] = {}
    pending_parent: list[tuple[Symbol, str]] = []
    for d, prefix in _named(rules, found):
        out.append(d)
        if d.kind == "impl":
            continue
        d.symbol = _symbol(rules, d, path, src)
        by_dotted.setdefault(d.dotted, d.symbol)
        if prefix:
            pending_parent.append((d.symbol, prefix[:-1]))
        index.symbols.append(d.symbol)
    for symbol, owner in pending_parent:
        parent_symbol = by_dotted.get(owner)
        symbol.parent = parent_symbol.qualified_name if parent_symbol is not None else None
    return out


def _named(rules: LanguageRules, found: list[_Def]) -> Iterator[tuple[_Def, str]]:
    """Each definition the rules keep, in source order, with its parent, final kind and
    ``dotted`` name (a repeated name numbered ``#2``, ``#3``...), and the prefix of that name
    (``Outer.`` or a qualifier; empty at the top). Both the symbols and the spans are named
    here, so the two cannot disagree."""
    raw: list[_Def] = []
    seen: set[tuple[int, int, str]] = set()
    for d in found:
        ident = (d.start, d.end, d.name)
        if ident not in seen:
            seen.add(ident)
            raw.append(d)
    raw.sort(key=lambda d: (d.start, -d.end))

    stack: list[_Def] = []
    used: dict[str, int] = {}
    for d in raw:
        while stack and not (
            stack[-1].start <= d.start
            and d.end <= stack[-1].end
            and (stack[-1].start, stack[-1].end) != (d.start, d.end)
        ):
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
        yield d, prefix


def _lines(node: Node) -> tuple[int, int]:
    """A node's first and last line, counted from 1."""
    return node.start_point.row + 1, node.end_point.row + 1


def _symbol(rules: LanguageRules, d: _Def, path: str, src: bytes) -> Symbol:
    node = d.node
    outer = rules.range_node(node)
    if d.captured:
        body = d.body
        doc, _ = rules.captured_docstring(d.doc) if d.doc is not None else (None, None)
        bases = rules.captured_bases(d.bases) if d.bases is not None else ()
    else:
        body = rules.body_node(node)
        doc, _ = rules.docstring(node, src)
        bases = rules.bases(node)
    signature = rules.signature(node, body, src)
    whole = src[outer.start_byte : outer.end_byte]
    start_line, end_line = _lines(outer)
    return Symbol(
        qualified_name=f"{path}::{d.dotted}",
        name=d.name,
        kind=d.kind,
        path=path,
        language=rules.language,
        signature=signature,
        docstring=doc,
        start_line=start_line,
        end_line=end_line,
        sha256=hashlib.sha256(whole).hexdigest(),
        bases=bases,
        # the source as written: the code model embeds real code better than a digest of it
        # (CoSQA: MRR +0.035), and its words are the words to find it by
        search_text=whole[: SEARCH_TEXT_CAP * 4].decode("utf-8", "replace")[:SEARCH_TEXT_CAP],
        search_title=search_title(f"{path}::{d.dotted}", d.name, doc),
    )


def search_title(qualified_name: str, name: str, docstring: str | None) -> str:
    """What a symbol's search chunk is titled by: its name, the name's words, the docstring's
    first paragraph.

    Queries describe code in words ("parse a json file"); names hold them joined
    (``parseJsonFile``), which the word index cannot split, and the summary line of a
    docstring says what the code does. Titles weigh more than bodies in lexical search and
    lead the text a symbol is embedded from (measured on CoSQA: +0.04 MRR on either leg).
    """
    words = _name_words(name)
    summary = (docstring or "").strip().split("\n\n", 1)[0]
    summary = " ".join(summary.split())[:_SUMMARY_CAP]
    return "\n".join(p for p in (qualified_name, words, summary) if p)


@functools.lru_cache(maxsize=8192)
def _name_words(name: str) -> str:
    # names repeat across a workspace (__init__, get, run): split each once per process
    return " ".join(identifier_words(name))


def identifier_words(name: str) -> list[str]:
    """``parseHTTPResponse_v2`` -> ``["parse", "http", "response", "v", "2"]``."""
    return [w.lower() for part in _NON_WORD.split(name) for w in _CAMEL.findall(part)]


def _calls(
    rules: LanguageRules,
    found: list[tuple[Node, Node]],
    path: str,
    src: bytes,
    defs: list[_Def],
) -> list[CallSite]:
    """Call sites in source order, each attributed to its innermost enclosing symbol.

    This loop runs once per call in the workspace (hundreds of thousands on a cold index),
    hence the inlined, allocation-light code.
    """
    # the call patterns of a language are mutually exclusive: no duplicates to drop
    keyed = sorted(
        ((call.start_byte, name.start_byte, name) for call, name in found),
        key=lambda item: (item[0], item[1]),
    )
    symbols = [d for d in defs if d.symbol is not None]
    n_symbols = len(symbols)
    out: list[CallSite] = []
    append = out.append
    stack: list[_Def] = []
    i = 0
    caller_name: str | None = None
    self_names: tuple[str, ...] = rules.self_names_for(None)
    current: _Def | None = None
    super_names = rules.super_names
    for start, name_start, name in keyed:
        if (i < n_symbols and symbols[i].start <= start) or (stack and stack[-1].end <= start):
            i = _enclosing_at(start, symbols, i, stack)
            caller = stack[-1] if stack else None
            if caller is not current:
                current = caller
                symbol = caller.symbol if caller is not None else None
                caller_name = symbol.qualified_name if symbol is not None else None
                self_names = rules.self_names_for(caller.node if caller is not None else None)
        name_text = src[name_start : name.end_byte].decode("utf-8", "replace")
        if name_start > start:
            head = src[start:name_start].decode("utf-8", "replace")
            if head.startswith("new") and (len(head) == 3 or head[3].isspace()):
                head = head[3:]  # JS/Java `new Cls()` / `new ns.Cls()`
            head = head.strip()
            receiver: str | None = head.rstrip(".:?&").rstrip() or None
        else:
            receiver = None
        if receiver is None:
            callee = name_text
            receiver_kind = "none"
        else:
            callee = head + name_text
            if " " in callee or "\n" in callee or "\t" in callee:
                # shown as written (one space per run of blanks); the receiver is compared
                # with names, so it loses its blanks
                callee = " ".join(callee.split())
                receiver = "".join(receiver.split())
            if receiver in self_names:
                receiver_kind = "self"
            elif receiver in super_names or receiver.startswith("super("):
                receiver_kind = "super"
            else:
                receiver_kind = "other"
            if len(receiver) > _CALLEE_CAP:
                receiver = receiver[:_CALLEE_CAP]
        append(
            CallSite(
                path,
                caller_name,
                callee if len(callee) <= _CALLEE_CAP else callee[: _CALLEE_CAP - 1] + "…",
                name_text,
                receiver,
                receiver_kind,
                name.start_point[0] + 1,
            )
        )
    return out


def _enclosing_at(start: int, symbols: list[_Def], i: int, stack: list[_Def]) -> int:
    """Move ``stack`` (the symbols enclosing the last call, outermost first) to byte
    ``start``: enter the symbols from ``symbols[i]`` on that begin before it, leave those
    that end before it. Returns the index of the next symbol to enter."""
    n_symbols = len(symbols)
    while i < n_symbols and symbols[i].start <= start:
        nxt = symbols[i]
        while stack and stack[-1].end <= nxt.start:
            stack.pop()
        stack.append(nxt)
        i += 1
    while stack and stack[-1].end <= start:
        stack.pop()
    return i


def _assignments(
    found: list[tuple[Node, Node]],
    path: str,
    src: bytes,
    defs: list[_Def],
    receivers: set[str],
) -> list[Assignment]:
    """Assignments in source order, each attributed to its innermost enclosing scope
    (a function or class; a module-level variable's own symbol is not a scope).

    Only assignments to a name some call of the file uses as its receiver are kept: the
    resolver reads them for nothing else, and most assignments (constants, locals) are not.
    """
    symbols = [
        d for d in defs if d.symbol is not None and d.symbol.kind not in ("variable", "constant")
    ]
    # most targets are plain ASCII names no call uses: their bytes decide without decoding
    # (a file has tens of assignments for each one kept)
    wanted = {r.encode() for r in receivers}
    kept: list[tuple[int, str, Node, Node]] = []
    for target, value in found:
        start = target.start_byte
        raw = src[start : target.end_byte]
        if raw in wanted:
            kept.append((start, raw.decode(), target, value))
        elif not raw.isascii() or _BLANKS.search(raw):
            name = "".join(raw.decode("utf-8", "replace").split())
            if name in receivers:
                kept.append((start, name, target, value))
    kept.sort(key=lambda k: k[0])
    out: list[Assignment] = []
    stack: list[_Def] = []
    i = 0
    for start, name, target, value in kept:
        while i < len(symbols) and symbols[i].start <= start:
            while stack and stack[-1].end <= symbols[i].start:
                stack.pop()
            stack.append(symbols[i])
            i += 1
        while stack and stack[-1].end <= start:
            stack.pop()
        scope = stack[-1].symbol if stack else None
        called = None
        if value.type == "call":
            func = value.child_by_field_name("function")
            if func is not None and func.type in ("identifier", "attribute"):
                called = "".join(_node_text(func).split())
        out.append(
            Assignment(
                path,
                scope.qualified_name if scope is not None else None,
                name,
                called,
                target.start_point[0] + 1,
            )
        )
    return out


def _routes(
    language: str,
    matches: list[dict[str, list[Node]]],
    path: str,
    defs: list[_Def],
    index: FileIndex,
) -> list[RouteFact]:
    """The file's route facts, with handlers defined in place named by their symbols."""
    named = [d for d in defs if d.symbol is not None]
    spans = {
        (d.node.start_byte, d.node.end_byte): symbol.qualified_name
        for d in defs
        if (symbol := d.symbol) is not None
    }
    scopes = [d for d in named if d.kind not in ("variable", "constant")]

    def scope_of(offset: int) -> str | None:
        inner = None
        for d in scopes:  # in source order: the last one holding the offset is the innermost
            if d.start <= offset < d.end:
                inner = d
        return inner.symbol.qualified_name if inner is not None and inner.symbol else None

    return extract_routes(
        language, matches, path, spans, scope_of, (i.module for i in index.imports)
    )


def _node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")
