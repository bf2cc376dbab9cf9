"""Pure rendering: anchored notes and related memories to hover Markdown and short labels."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..filters import is_decision
from ..text import code, md, one_line


@dataclass(frozen=True, slots=True)
class NoteView:
    """One anchored note as a hover shows it."""

    id: str
    title: str
    status: str
    tags: tuple[str, ...]
    collection: str
    created_at: float
    snippet: str
    symbol: str
    stale: str | None  # None, "changed" or "missing"
    author: str = ""
    """who wrote it, as views name writers (`why.author_label`): agent (MCP), editor, CLI"""

    @property
    def is_decision(self) -> bool:
        return is_decision(self.collection, self.tags)


@dataclass(frozen=True, slots=True)
class RelatedView:
    id: str
    title: str
    kind: str
    status: str
    updated_at: str
    snippet: str


def order_notes(notes: list[NoteView]) -> list[NoteView]:
    """Decisions first, then active before others, newest first within each group."""
    rank = {"active": 0, "unreviewed": 1, "superseded": 2, "retracted": 3}
    return sorted(
        notes, key=lambda n: (not n.is_decision, rank.get(n.status, 4), -n.created_at, n.id)
    )


def age(seconds_ago: float) -> str:
    """A short human age: 45s, 12m, 3h, 5d, 7w, 14mo, 2y."""
    s = max(0.0, seconds_ago)
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("w", 7 * 86400), ("d", 86400),
                       ("h", 3600), ("m", 60)):  # fmt: skip
        if s >= size:
            return f"{int(s // size)}{unit}"
    return f"{int(s)}s"


@dataclass(frozen=True, slots=True)
class CommitView:
    """A commit that changed the symbol, as a hover line shows it."""

    hash: str
    subject: str
    author: str
    date: str
    change: str


@dataclass(frozen=True, slots=True)
class SessionView:
    id: str
    title: str
    updated_at: str
    via: str


@dataclass(frozen=True, slots=True)
class HistoryView:
    """The hover's history part and the link to the full view."""

    commits: list[CommitView]
    sessions: list[SessionView]
    link: str | None = None
    """a ``command:`` URI that opens the full "why" view (clients that run it)"""


def hover_markdown(
    symbol: str | None,
    notes: list[NoteView],
    related: list[RelatedView],
    *,
    now: float | None = None,
    history: HistoryView | None = None,
    routes: list[str] | None = None,
) -> str | None:
    """The hover text, or None when there is nothing worth a hover box; ``routes`` are the
    HTTP routes (``GET /users/{id}``) the symbol handles."""
    has_history = history is not None and bool(history.commits or history.sessions)
    if not notes and not related and not has_history and not routes:
        return None
    now = time.time() if now is None else now
    out: list[str] = []
    if routes:
        more = f" and {len(routes) - 5} more" if len(routes) > 5 else ""
        out.append("**Routes** · " + ", ".join(code(r) for r in routes[:5]) + more)
    if notes:
        head = f"**nano-brain** · {len(notes)} note{'s' if len(notes) != 1 else ''}"
        out += [""] if out else []  # its own paragraph below the routes
        out.append(head + (f" on {code(symbol)}" if symbol else ""))
        for n in order_notes(notes):
            badges = ["decision"] if n.is_decision else []
            if n.status != "active":
                badges.append(n.status)
            if n.stale:
                badges.append("⚠ may be stale: code " + ("removed" if n.stale == "missing"
                                                          else "changed since"))  # fmt: skip
            badge = f" _({', '.join(badges)})_" if badges else ""
            by = f" · by {md(n.author)}" if n.author else ""
            out.append(f"- **{md(n.title)}** `#{n.id}`{by} · {age(now - n.created_at)} ago{badge}")
            if n.snippet:
                out.append(f"  > {md(n.snippet)}")
    if history is not None and has_history:
        if not notes and symbol:
            out += [""] if out else []
            out.append(f"**nano-brain** · {code(symbol)}")
        if history.commits:
            out += ["", "**Changed by**"]  # a blank line ends the list above
            for c in history.commits:
                how = f" · {c.change}" if c.change in ("added", "renamed") else ""
                out.append(
                    f"- `{c.hash[:8]}` {md(one_line(c.subject, 60))} — {md(c.author)}, "
                    f"{c.date[:10]}{how}"
                )
        if history.sessions:
            out += ["", "**Agent sessions**"]
            for s in history.sessions:
                via = "" if s.via == "file" else f" · {s.via}"
                out.append(f"- {md(one_line(s.title, 60))} `#{s.id}` · {s.updated_at[:10]}{via}")
    if related:
        out += ["", "**Related memory**"] if out else ["**Related memory**"]
        for r in related:
            status = f" _({r.status})_" if r.status != "active" else ""
            out.append(f"- {md(r.title)} `#{r.id}` · {r.kind}, {r.updated_at[:10]}{status}")
            if r.snippet:
                out.append(f"  > {md(r.snippet)}")
    if history is not None and history.link and (notes or has_history):
        out += ["", f"[Why is this code like this? →]({history.link})"]
    return "\n".join(out)


def lens_title(count: int, stale: int) -> str:
    text = f"{count} note{'s' if count != 1 else ''}"
    return text + (f" ({stale} may be stale)" if stale else "")
