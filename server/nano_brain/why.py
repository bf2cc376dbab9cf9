""" "Why is this code like this?": one view of a symbol's notes, decisions, commits and sessions.

``why(brain, symbol)`` gathers, for one symbol:

1. the notes and decisions anchored to it (decisions first, then active before the rest,
   newest first; a note whose code changed or disappeared since it was anchored is flagged);
2. the commits that changed it, newest first, followed back through renames of its file and
   of itself (:class:`nano_brain.history.History`);
3. the agent sessions that edited its file, and those that share a ticket with its commits;
4. related memory (a search for the symbol's name words, notes and sessions only).

Each part has its own limit and the text rendering a character budget, so the hover can show
the top of each part and the full view (``nano-brain why``, MCP ``code_why``, the editors'
why command) the rest. Every front end calls this one function.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import BaseModel, Field

from .codeindex import CodeIndex, SymbolInfo
from .errors import NanoBrainError
from .filters import Filters, is_decision
from .history import History
from .history.indexer import META_SHALLOW
from .store.commits import CommitStore
from .text import body_under_title, code, md, one_line
from .timeutil import iso

if TYPE_CHECKING:
    from .brain import Brain


class WhyLimits(TypedDict, total=False):
    """The per-part limits :func:`why` takes by keyword (its signature holds the defaults)."""

    notes: int
    commits: int
    sessions: int
    related: int
    snippet_chars: int
    budget_chars: int | None


#: How each writer is named in views ("by agent (MCP)").
AUTHORS = {
    "mcp": "agent (MCP)",
    "lsp": "editor",
    "cli": "CLI",
    "harvest": "harvested session",
    "git": "git",
    "index": "code index",
}
_SUBWORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STATUS_RANK = {"active": 0, "unreviewed": 1, "superseded": 2, "retracted": 3}


class WhyNote(BaseModel):
    id: str
    title: str
    status: str
    decision: bool
    author: str = Field(description="who wrote it: agent (MCP), editor, CLI, ...")
    created_at: str
    stale: str | None = Field(None, description="changed or missing: the code moved on")
    snippet: str


class WhyCommit(BaseModel):
    id: str = Field(description="the commit's document id (`#id`)")
    hash: str
    subject: str
    author: str
    date: str
    change: str = Field(description="added, modified, renamed or removed")
    name: str = Field(description="the symbol's qualified name at that commit")
    tickets: list[str]


class WhySession(BaseModel):
    id: str
    title: str
    updated_at: str
    via: str = Field(description="`file` (it edited the symbol's file) or `ticket X-1`")


class WhyRelated(BaseModel):
    id: str
    title: str
    kind: str
    snippet: str


class WhyView(BaseModel):
    symbol: str
    path: str
    lines: tuple[int, int]
    kind: str
    notes: list[WhyNote]
    commits: list[WhyCommit]
    sessions: list[WhySession]
    related: list[WhyRelated]
    history: str = Field(description="what the history index knows (or why it knows nothing)")
    text: str = Field(description="the same as Markdown")


def why(
    brain: Brain,
    symbol: str,
    *,
    notes: int = 20,
    commits: int = 20,
    sessions: int = 10,
    related: int = 5,
    snippet_chars: int = 300,
    budget_chars: int | None = None,
) -> WhyView:
    """The full "why" view of a symbol (a reference `symbols` resolves; ambiguity is an
    error that lists the candidates)."""
    sym = CodeIndex(brain).resolve_symbol(symbol)
    history = History(brain)
    note_views = anchored_notes(brain, [sym.qualified_name], snippet_chars=snippet_chars)
    found_commits = _commits(history, sym.qualified_name, commits)
    found_sessions = _sessions(brain, history, sym.path, found_commits, sessions)
    seen = {n.id for n in note_views} | {s.id for s in found_sessions}
    found_related = _related(brain, sym, related, seen, snippet_chars) if related else []
    view = WhyView(
        symbol=sym.qualified_name,
        path=sym.path,
        lines=(sym.start_line, sym.end_line),
        kind=sym.kind,
        notes=note_views[:notes],
        commits=found_commits,
        sessions=found_sessions,
        related=found_related,
        history=history_state(brain),
        text="",
    )
    view.text = render(view, budget_chars=budget_chars)
    return view


def anchored_notes(brain: Brain, names: list[str], *, snippet_chars: int = 300) -> list[WhyNote]:
    """Notes anchored to these symbols that a default read shows, ranked: decisions first,
    active before the rest, newest first; a note whose code changed since is flagged."""
    anchors = CodeIndex(brain).code.anchors(qualified_names=names, visible=Filters())
    out: list[WhyNote] = []
    seen: set[str] = set()
    for a in anchors:
        if a.doc_uid in seen:
            continue
        doc = brain.store.find_current(a.doc_uid)
        if doc is None:
            continue
        seen.add(doc.uid)
        body = body_under_title(doc.content, doc.title)
        state = None if a.state == "ok" else a.state
        out.append(
            WhyNote(
                id=doc.uid,
                title=doc.title,
                status=doc.status,
                decision=is_decision(doc.collection, doc.tags),
                author=author_label(doc.author),
                created_at=iso(doc.created_at) or "",
                stale=state,
                snippet=one_line(body, snippet_chars),
            )
        )
    out.sort(key=lambda n: (not n.decision, _STATUS_RANK.get(n.status, 4), _neg(n.created_at)))
    return out


def author_label(author: str) -> str:
    return AUTHORS.get(author, author)


def _neg(stamp: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in stamp)


def _commits(history: History, qualified_name: str, limit: int) -> list[WhyCommit]:
    if limit < 1:
        return []
    return [
        WhyCommit(
            id=c.id,
            hash=c.hash,
            subject=c.subject,
            author=c.author,
            date=c.date,
            change=c.change,
            name=c.name,
            tickets=list(c.tickets),
        )  # fmt: skip
        for c in history.commits_of(qualified_name, limit=limit)
    ]


def _sessions(
    brain: Brain, history: History, path: str, commits: list[WhyCommit], limit: int
) -> list[WhySession]:
    """Sessions that edited the file, then those sharing a ticket with the commits."""
    if limit < 1:
        return []
    out = [
        WhySession(id=d.uid, title=d.title, updated_at=iso(d.updated_at) or "", via="file")
        for d in history.documents_touching(path, ("session",), limit=limit)
    ]
    seen = {s.id for s in out}
    tickets = list(dict.fromkeys(t for c in commits for t in c.tickets))
    for ticket in tickets[:10]:
        if len(out) >= limit:
            break
        for d in history.store.documents_tagged(
            f"ticket:{ticket}", Filters(kinds=("session",)), limit
        ):
            if d.uid not in seen:
                seen.add(d.uid)
                updated = iso(d.updated_at) or ""
                out.append(WhySession(id=d.uid, title=d.title, updated_at=updated,
                                      via=f"ticket {ticket}"))  # fmt: skip
    return out[:limit]


def name_words(sym: SymbolInfo) -> str:
    """What a search for memory about a symbol looks for: the words of its name, then its
    container's (``RefundPolicy.refund_amount`` -> ``refund amount policy``)."""
    local = sym.qualified_name.split("::", 1)[-1]
    words: list[str] = []
    for name in [sym.name, *reversed(local.split(".")[:-1])]:
        for part in _SUBWORD.findall(name):
            low = part.lower()
            if len(low) >= 2 and not low.isdigit() and low not in words:
                words.append(low)
    return " ".join(words)[:400]


def _related(
    brain: Brain, sym: SymbolInfo, limit: int, seen: set[str], snippet_chars: int
) -> list[WhyRelated]:
    query = name_words(sym)
    return related_to(brain, query, limit=limit, seen=seen, snippet_chars=snippet_chars)


def related_to(
    brain: Brain, query: str, *, limit: int, seen: set[str], snippet_chars: int
) -> list[WhyRelated]:
    """Notes and sessions related to `query` that clear the related-list floor, none of
    `seen`: a symbol's related part may well be empty."""
    from .search import validate_request

    if not query.strip():
        return []
    # hybrid when there is a model; else words only (hybrid would add a feedback query that
    # buys nothing without a vector leg to weigh it against)
    mode = "lexical" if brain.config.embedding.provider == "none" else "hybrid"
    try:
        request = validate_request(
            query=query[:4000], mode=mode, limit=limit + len(seen), kind=["note", "session"],
            track=False, expand=False, floor="related",
        )  # fmt: skip
        response = brain.search(request)
    except NanoBrainError:
        return []
    out: list[WhyRelated] = []
    for hit in response.results:
        if hit.id in seen:
            continue
        out.append(WhyRelated(id=hit.id, title=hit.title, kind=hit.kind,
                              snippet=one_line(hit.snippet, snippet_chars)))  # fmt: skip
        if len(out) >= limit:
            break
    return out


def history_state(brain: Brain) -> str:
    """One line on what the history index holds (no git command is run)."""
    history = CommitStore(brain.store)
    commits = history.commit_count()
    if commits:
        shallow = history.meta_get(META_SHALLOW) == "1"
        return f"{commits} commit{'s' if commits != 1 else ''} indexed" + (
            " (a shallow clone: older history is not there)" if shallow else ""
        )
    if not any((p / ".git").exists() for p in (brain.root, *brain.root.parents)):
        return "not a git repository: no commit history"
    return "history not indexed yet (run `nano-brain index`)"


# -- rendering ------------------------------------------------------------------------------------


def commit_line(c: WhyCommit | Any, *, subject_chars: int = 72) -> str:
    renamed = ""
    if c.change == "renamed":
        renamed = " · renamed here"
    elif c.change in ("added", "removed"):
        renamed = f" · {c.change}"
    subject = md(one_line(c.subject, subject_chars))
    return f"`{c.hash[:8]}` {subject} — {md(c.author)}, {c.date[:10]}{renamed}"


def note_badges(n: WhyNote) -> list[str]:
    badges = ["decision"] if n.decision else []
    if n.status != "active":
        badges.append(n.status)
    if n.stale:
        badges.append(
            "⚠ may be stale: code " + ("removed" if n.stale == "missing" else "changed since")
        )
    return badges


def render(view: WhyView, *, budget_chars: int | None = None, now: float | None = None) -> str:
    """The view as Markdown; with a budget, whole lines up to it (sections in rank order)."""
    local = view.symbol.split("::", 1)[-1]
    lines = [
        f"# Why {code(local)}",
        f"{code(f'{view.path}:{view.lines[0]}-{view.lines[1]}')} · {view.kind}",
    ]
    lines += ["", f"## Notes and decisions ({len(view.notes)})"]
    if not view.notes:
        lines.append("_none anchored here_ (anchor one: `nano-brain anchor '#id' SYMBOL`)")
    for n in view.notes:
        badges = note_badges(n)
        badge = f" _({', '.join(badges)})_" if badges else ""
        lines.append(
            f"- **{md(n.title)}** `#{n.id}` · by {md(n.author)} · {n.created_at[:10]}{badge}"
        )
        if n.snippet:
            lines.append(f"  > {md(n.snippet)}")
    lines += ["", f"## Commits that changed it ({len(view.commits)})"]
    if not view.commits:
        lines.append(f"_none found_ ({view.history})")
    for c in view.commits:
        was = f" (as {code(c.name.split('::', 1)[-1])})" if c.name != view.symbol else ""
        lines.append(f"- {commit_line(c)}{was}")
    if view.sessions:
        lines += ["", f"## Agent sessions ({len(view.sessions)})"]
        for s in view.sessions:
            via = f"edited {code(view.path)}" if s.via == "file" else s.via
            lines.append(f"- **{md(s.title)}** `#{s.id}` · {s.updated_at[:10]} · {via}")
    if view.related:
        lines += ["", "## Related memory"]
        for r in view.related:
            lines.append(f"- {md(r.title)} `#{r.id}` · {r.kind}")
            if r.snippet:
                lines.append(f"  > {md(r.snippet)}")
    lines += ["", f"_history: {view.history}_"]
    if budget_chars is None:
        return "\n".join(lines)
    out: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget_chars:
            out.append("…")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def hover_history(
    brain: Brain, qualified_name: str, path: str, *, commits: int, sessions: int
) -> tuple[list[WhyCommit], list[WhySession]]:
    """The hover's part of the view: the newest few commits and sessions (no search)."""
    history = History(brain)
    found = _commits(history, qualified_name, commits)
    return found, _sessions(brain, history, path, found, sessions)


__all__ = [
    "WhyCommit",
    "WhyNote",
    "WhyRelated",
    "WhySession",
    "WhyView",
    "anchored_notes",
    "author_label",
    "hover_history",
    "render",
    "why",
]
