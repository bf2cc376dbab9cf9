"""What each LSP feature computes, from a :class:`Context` (folder + buffer) to lsprotocol.

Handlers in :mod:`.server` stay thin: they find the context and call one function here.
Everything here reads the Brain and the code index through their public methods.
"""

from __future__ import annotations

import json
import keyword
import logging
import re
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lsprotocol import types as lsp

from ..codeindex import AnchorInfo, Symbol
from ..errors import InvalidInputError, NanoBrainError
from ..filters import Filters
from ..text import body_under_title, one_line
from ..timeutil import parse_instant
from ..why import author_label, hover_history
from .options import InitializationOptions
from .render import (
    CommitView,
    HistoryView,
    NoteView,
    RelatedView,
    SessionView,
    hover_markdown,
    lens_title,
)
from .text import innermost, path_to_uri, symbols_named, word_at
from .workspaces import Folder

log = logging.getLogger(__name__)

SOURCE = "nano-brain"
# Words that name no symbol worth a memory lookup: keywords of the indexed languages.
_NOISE = frozenset(
    {
        *keyword.kwlist,
        *keyword.softkwlist,
        "self",
        "this",
        "func",
        "function",
        "const",
        "let",
        "var",
        "return",
        "package",
        "import",
        "export",
        "public",
        "private",
        "static",
        "void",
        "int",
        "str",
        "bool",
        "true",
        "false",
        "null",
        "nil",
        "new",
        "fn",
        "impl",
        "struct",
        "string",
        "type",
        "interface",
        "extends",
        "implements",
        "default",
    }  # fmt: skip
)


@dataclass(frozen=True, slots=True)
class Context:
    """A document as the sidecar sees it: its folder, path in the index, text and symbols."""

    folder: Folder
    uri: str
    rel: str
    lines: list[str]
    symbols: list[Symbol]

    def symbol(self, qualified_name: str) -> Symbol | None:
        return next((s for s in self.symbols if s.qualified_name == qualified_name), None)


# -- anchors -----------------------------------------------------------------------------------


def anchors_of(folder: Folder, names: list[str]) -> list[AnchorInfo]:
    """Anchors on these symbols whose notes a default read shows: none that were deleted,
    retracted or superseded (the successor carries the anchor when it was moved to it)."""
    if not names:
        return []
    return folder.reader.code.anchors(symbols=names, visible=Filters())


def staleness(anchor: AnchorInfo, ctx: Context | None) -> str | None:
    """None when the anchored code is as it was; else ``changed`` or ``missing``.

    The open buffer wins over the index: an unsaved edit already makes a note stale.
    """
    live = ctx.symbol(anchor.qualified_name) if ctx and anchor.path == ctx.rel else None
    if live is not None:
        return None if live.sha256 == anchor.symbol_sha256 else "changed"
    if ctx is not None and anchor.path == ctx.rel and ctx.symbols:
        return "missing"  # the file is open and parsed, and the symbol is not in it
    state = anchor.state
    return None if state == "ok" else state


def note_views(
    folder: Folder, anchors: list[AnchorInfo], ctx: Context | None, snippet_chars: int
) -> list[NoteView]:
    views: list[NoteView] = []
    for anchor in anchors:
        try:
            doc = folder.reader.brain.get(anchor.note_id)
        except NanoBrainError:
            continue
        body = body_under_title(doc.content or "", doc.title)
        views.append(
            NoteView(
                id=doc.id,
                title=doc.title,
                status=doc.status,
                tags=tuple(doc.tags),
                collection=doc.collection,
                created_at=parse_instant(doc.created_at),
                snippet=one_line(body, snippet_chars),
                symbol=anchor.qualified_name,
                stale=staleness(anchor, ctx),
                author=author_label(doc.author),
            )
        )
    return views


# -- hover ---------------------------------------------------------------------------------------


def hover(
    ctx: Context,
    position: lsp.Position,
    options: InitializationOptions,
    started: float | None = None,
) -> lsp.Hover | None:
    """Notes anchored to the symbol under the cursor, then related memories; None if neither.

    The related-memory search starts first and runs while the anchored notes are read; the
    hover then waits for it until ``hover.related_budget_ms`` after ``started`` (when the
    request arrived; ``time.perf_counter()``) at most.
    """
    started = time.perf_counter() if started is None else started
    opts = options.hover
    word = word_at(ctx.lines, position.line, position.character)
    if not word:
        return None
    line = position.line + 1
    named = symbols_named(ctx.symbols, word, line)
    targets = [s.qualified_name for s in named[:3]]
    if not targets:
        targets = indexed_named(ctx.folder, word)[:3]
    query = hover_query(word, targets[0] if targets else None) if opts.max_related else ""
    pending = None
    if query:
        try:
            pending = ctx.folder.related.begin(query)
        except NanoBrainError as exc:  # the anchored notes are still worth a hover
            log.info("no related memory: %s", exc)
    anchors = anchors_of(ctx.folder, targets)
    notes = note_views(ctx.folder, anchors, ctx, opts.snippet_chars)[: opts.max_notes]
    related: list[RelatedView] = []
    if pending is not None:
        budget = opts.related_budget_ms / 1000 - (time.perf_counter() - started)
        found_related = ctx.folder.related.wait(pending, budget if opts.related_budget_ms else None)
        exclude = {n.id for n in notes}
        related = [r for r in found_related or [] if r.id not in exclude][: opts.max_related]
    history = history_view(ctx.folder, targets[0], opts) if targets else None
    shown = notes or (history is not None and (history.commits or history.sessions))
    symbol = targets[0].split("::", 1)[-1] if targets and shown else None
    routes = routes_of(ctx.folder, targets[:1])
    text = hover_markdown(symbol, notes, related, history=history, routes=routes)
    if text is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))


#: What a folder's first related-memory search looks for (any words do).
WARM_UP_QUERY = "nano brain memory"


def warm_up(folder: Folder, options: InitializationOptions) -> None:
    """One related-memory search as the folder opens, so that the first hover's search costs
    what later ones do: the first search of a process runs the model's first inference and
    reads the store cold (24 ms against 7-9 ms for the next ones, on a small store), which
    the hover's budget (`hover.related_budget_ms`, 25 ms) cut short, so the first hover
    lacked the related memory the same hover showed a moment later."""
    if options.hover.enabled and options.hover.max_related:
        started = time.perf_counter()
        folder.related.lookup(WARM_UP_QUERY, None)
        log.debug("related memory warmed up in %.1f ms", 1000 * (time.perf_counter() - started))


def symbol_at(ctx: Context, line: int, character: int) -> str | None:
    """The qualified name of the symbol a hover at (0-based) line and character is about."""
    word = word_at(ctx.lines, line, character)
    if not word:
        return None
    named = symbols_named(ctx.symbols, word, line + 1)
    if named:
        return named[0].qualified_name
    exact = indexed_named(ctx.folder, word)
    return exact[0] if exact else None


def indexed_named(folder: Folder, word: str) -> list[str]:
    """Qualified names of indexed symbols named ``word`` (among the first few found)."""
    try:
        found = folder.reader.code.symbols(word, limit=5)
    except InvalidInputError:  # no symbol has such a name (over 1000 characters)
        return []
    return [s.qualified_name for s in found if s.name == word]


def history_view(folder: Folder, qualified_name: str, opts: Any) -> HistoryView:
    """The newest commits that changed the symbol and sessions that edited its file, and the
    link that opens the full "why" view (a few indexed lookups: no search)."""
    commits: list[CommitView] = []
    sessions: list[SessionView] = []
    if opts.max_commits or opts.max_sessions:
        try:
            found, touched = hover_history(
                folder.reader.brain,
                qualified_name,
                qualified_name.split("::", 1)[0],
                commits=opts.max_commits,
                sessions=opts.max_sessions,
            )
        except NanoBrainError as exc:  # the notes are still worth a hover
            log.info("no history for %s: %s", qualified_name, exc)
            found, touched = [], []
        commits = [CommitView(c.hash, c.subject, c.author, c.date, c.change) for c in found]
        sessions = [SessionView(t.id, t.title, t.updated_at, t.via) for t in touched]
    return HistoryView(commits, sessions, why_link(qualified_name, folder.root))


def why_link(qualified_name: str, root: Path) -> str:
    """A ``command:`` URI running ``nano-brain.why`` for the symbol (VS Code opens the view)."""
    args = json.dumps([{"symbol": qualified_name, "root": str(root)}], separators=(",", ":"))
    return f"command:nano-brain.why?{quote(args)}"


def routes_of(folder: Folder, names: list[str]) -> list[str]:
    """``METHOD /path`` of the routes these symbols handle (an indexed lookup)."""
    if not names:
        return []
    try:
        found = folder.reader.routes.of_symbols(names)
    except NanoBrainError as exc:
        log.info("no routes for %s: %s", names[0], exc)
        return []
    return list(dict.fromkeys(r.label for r in found))


def prefetch_queries(ctx: Context, limit: int = 100) -> list[str]:
    """The hover queries of a file (for prefetching): the symbols it defines, top first, then
    the symbols it calls, as resolved by the code index (a hover at a call site searches for
    the callee)."""
    queries = [hover_query(s.name, s.qualified_name) for s in ctx.symbols]
    try:
        calls = ctx.folder.reader.code.calls_in([s.qualified_name for s in ctx.symbols], ctx.rel)
    except NanoBrainError as exc:
        log.info("no callees to prefetch for %s: %s", ctx.rel, exc)
        calls = []
    queries += [hover_query(c.name, c.callee) for c in calls if c.callee]
    return [q for q in dict.fromkeys(queries) if q][:limit]


_SUBWORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def hover_query(word: str, qualified_name: str | None) -> str:
    """What a hover searches memory for: the words of the symbol's name, then its container's.

    ``RefundPolicy.refund_amount`` -> ``refund amount policy``. The signature is left out on
    purpose: parameter names, keywords and defaults (``value``, ``limit=10``) matched notes
    that merely share a common word, and their OR-fallback tripled the search time (measured
    on 10k notes: 50 ms -> 10 ms, with better hits). Empty when nothing is worth a search.
    """
    if word in _NOISE or len(word) < 3:
        return ""
    local = qualified_name.split("::", 1)[-1] if qualified_name else word
    names = [word, *reversed(local.split(".")[:-1])]
    words: list[str] = []
    for name in names:
        for part in _SUBWORD.findall(name):
            low = part.lower()
            if len(low) >= 2 and not low.isdigit() and low not in _NOISE and low not in words:
                words.append(low)
    return " ".join(words)[:400]


# -- code lens and diagnostics ---------------------------------------------------------------------


def code_lenses(ctx: Context) -> list[lsp.CodeLens]:
    """ "N notes" above each symbol of the buffer that has anchored notes."""
    anchors = anchors_of(ctx.folder, [s.qualified_name for s in ctx.symbols])
    by_symbol: dict[str, list[AnchorInfo]] = defaultdict(list)
    for a in anchors:
        by_symbol[a.qualified_name].append(a)
    lenses: list[lsp.CodeLens] = []
    for sym in ctx.symbols:
        found = by_symbol.get(sym.qualified_name)
        if not found:
            continue
        stale = sum(1 for a in found if staleness(a, ctx))
        line = sym.start_line - 1
        lenses.append(
            lsp.CodeLens(
                range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)),
                command=lsp.Command(
                    title=lens_title(len(found), stale),
                    command="nano-brain.notes",
                    arguments=[{"symbol": sym.qualified_name, "root": str(ctx.folder.root)}],
                ),
            )
        )
    return lenses


def stale_diagnostics(ctx: Context) -> list[lsp.Diagnostic]:
    """A Hint on each symbol of this file whose anchored notes may no longer match the code."""
    names = [s.qualified_name for s in ctx.symbols]
    in_file = [a for a in anchors_of_file(ctx) if a.qualified_name not in names]
    out: list[lsp.Diagnostic] = []
    for a in [*anchors_of(ctx.folder, names), *in_file]:
        state = staleness(a, ctx)
        if not state:
            continue
        sym = ctx.symbol(a.qualified_name)
        line = sym.start_line - 1 if sym else 0
        what = "changed since" if state == "changed" else "is gone since"
        out.append(
            lsp.Diagnostic(
                range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)),
                message=f'note #{a.note_id} "{a.note_title}" may be stale: '
                f"{a.qualified_name.split('::', 1)[-1]} {what} it was written",
                severity=lsp.DiagnosticSeverity.Hint,
                source=SOURCE,
                code="stale-anchor",
                data={"note": a.note_id, "symbol": a.qualified_name},
            )
        )
    return out


def anchors_of_file(ctx: Context) -> list[AnchorInfo]:
    """The anchors in this file whose notes a default read shows (as `anchors_of`)."""
    return ctx.folder.reader.code.anchors(path=ctx.rel, visible=Filters())


# -- code actions ------------------------------------------------------------------------------


def code_actions(ctx: Context, rng: lsp.Range) -> list[lsp.CodeAction]:
    """The memory actions for a selection (or the cursor): each one runs a command."""
    first, last = rng.start.line + 1, max(rng.start.line, _last_line(rng)) + 1
    sym = innermost(ctx.symbols, first, last)
    where = {"uri": ctx.uri, "range": _range_json(rng)}
    actions: list[lsp.CodeAction] = []
    has_selection = rng.start != rng.end

    def add(title: str, command: str, args: dict[str, Any]) -> None:
        actions.append(
            lsp.CodeAction(
                title=title,
                kind=lsp.CodeActionKind.Empty,
                command=lsp.Command(title=title, command=command, arguments=[args]),
            )
        )

    if has_selection:
        add("nano-brain: Save selection as note", "nano-brain.saveSelection", where)
    add("nano-brain: Record decision…", "nano-brain.recordDecision", where)
    if sym is not None:
        for a in anchors_of(ctx.folder, [sym.qualified_name]):
            if a.note_status != "active":
                continue
            label = one_line(a.note_title or a.note_id, 40)
            old = {**where, "old": a.note_id}
            retract = {"id": a.note_id, "uri": ctx.uri, "reason": "marked stale from the editor"}
            add(f"nano-brain: Supersede note #{a.note_id} ({label})…", "nano-brain.supersede", old)
            add(f"nano-brain: Retract note #{a.note_id} ({label})", "nano-brain.retract", retract)
    query = sym.name if sym else None
    add("nano-brain: Search related memory", "nano-brain.searchRelated",
        {**where, **({"query": query} if query else {})})  # fmt: skip
    return actions


def _last_line(rng: lsp.Range) -> int:
    # a selection ending at column 0 of a line does not include that line
    if rng.end.character == 0 and rng.end.line > rng.start.line:
        return rng.end.line - 1
    return rng.end.line


def _range_json(rng: lsp.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


# -- workspace symbols ---------------------------------------------------------------------------


def workspace_symbols(
    folders: list[Folder], query: str, limit: int = 200
) -> list[lsp.WorkspaceSymbol]:
    if not query.strip():
        return []
    out: list[lsp.WorkspaceSymbol] = []
    for folder in folders:
        try:
            found = folder.reader.code.symbols(query, limit=limit)
        except NanoBrainError:
            continue
        for s in found:
            uri = path_to_uri(folder.root / Path(s.path))
            rng = lsp.Range(lsp.Position(s.start_line - 1, 0), lsp.Position(s.end_line - 1, 0))
            out.append(
                lsp.WorkspaceSymbol(
                    name=s.name,
                    kind=_SYMBOL_KINDS.get(s.kind, lsp.SymbolKind.Variable),
                    location=lsp.Location(uri=uri, range=rng),
                    container_name=s.qualified_name.split("::", 1)[-1].rpartition(".")[0] or s.path,
                )
            )
    return out[:limit]


_SYMBOL_KINDS = {
    "function": lsp.SymbolKind.Function,
    "method": lsp.SymbolKind.Method,
    "class": lsp.SymbolKind.Class,
    "interface": lsp.SymbolKind.Interface,
    "struct": lsp.SymbolKind.Struct,
    "enum": lsp.SymbolKind.Enum,
    "trait": lsp.SymbolKind.Interface,
    "type": lsp.SymbolKind.TypeParameter,
    "constant": lsp.SymbolKind.Constant,
    "variable": lsp.SymbolKind.Variable,
    "module": lsp.SymbolKind.Module,
    "macro": lsp.SymbolKind.Function,
}
