"""Briefs as the agent reads them: short Markdown, every item saying where it came from.

An agent acts on what a hook adds, so each line names its origin (a decision by a person, a
note by an agent, a harvested session, a commit message), its status and, for a note anchored
to code, whether that code changed since. The text is written as facts, not instructions, and
cut to a character budget on whole lines.
"""

from __future__ import annotations

import time
from typing import NamedTuple

HARD_LIMIT = 9_500
"""The most any brief holds: Claude Code keeps hook output up to 10,000 characters in context
and moves the rest to a file."""


class BriefItem(NamedTuple):
    """One note, decision or session in a brief."""

    id: str
    title: str
    origin: str
    status: str
    snippet: str
    updated_at: float
    pinned: bool = False
    decision: bool = False
    symbol: str | None = None
    stale: str | None = None
    """Why the anchored code may no longer match the note (None: it does)."""

    def line(self) -> str:
        when = time.strftime("%Y-%m-%d", time.gmtime(self.updated_at))
        facts = [self.origin, *(["pinned"] if self.pinned else []), self.status, when]
        where = f"`{self.symbol}`: " if self.symbol else ""
        stale = f" ({self.stale})" if self.stale else ""
        body = f": {self.snippet}" if self.snippet else ""
        return _one_line(f"- {where}{self.title} [#{self.id}; {', '.join(facts)}]{stale}{body}")


def render(heading: str, sections: list[tuple[str, list[BriefItem]]], budget: int) -> str:
    """`heading`, then each non-empty section's items, within `budget` characters (whole
    lines; the last one cut with an ellipsis). Empty when no section has an item."""
    if not any(items for _, items in sections):
        return ""
    budget = min(budget, HARD_LIMIT)
    lines = [heading]
    for title, items in sections:
        if items:
            if title:
                lines.append(f"## {title}")
            lines.extend(item.line() for item in items)
    out: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            room = budget - used - 2
            if room > 40:
                out.append(line[:room] + "…")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def snippet(text: str, title: str, limit: int = 240) -> str:
    """The text's first words after its title line, on one line."""
    body = text.strip()
    first, _, rest = body.partition("\n")
    if first.lstrip("# ").strip() == title.strip():
        body = rest
    return _one_line(body)[:limit]


def _one_line(text: str) -> str:
    # no control character reaches the agent's context (a note may hold terminal escapes)
    return "".join(c for c in " ".join(text.split()) if c.isprintable())
