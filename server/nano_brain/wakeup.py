"""The wake-up digest: what an agent starting in a workspace reads first (decisions, the most
used and newest notes, recent sessions, counts), as items and as Markdown within a budget."""

from __future__ import annotations

from .errors import InvalidInputError
from .filters import Filters, is_decision
from .models import WakeUp, WakeUpItem, origin_of
from .store.interface import MemoryStore
from .store.rows import DocumentRow
from .text import md, one_line
from .timeutil import iso


def wake_up(store: MemoryStore, *, budget_chars: int = 4000, per_section: int = 5) -> WakeUp:
    """The newest and most-used active notes, decisions, recent sessions, counts."""
    if budget_chars < 200 or per_section < 1:
        raise InvalidInputError("budget_chars must be >= 200 and per_section >= 1")
    pick = per_section * 3  # room to drop duplicates across sections
    decisions = [
        d
        for d in store.list_documents(Filters(), limit=pick * 4, order="created")
        if is_decision(d.collection, d.tags)
    ][:per_section]
    used = [
        d
        for d in store.list_documents(Filters(kinds=("note",)), limit=pick, order="accessed")
        if d.access_count > 0
    ]
    recent = store.list_documents(Filters(kinds=("note",)), limit=pick, order="updated")
    sessions = store.list_documents(Filters(kinds=("session",)), limit=per_section, order="updated")
    seen: set[str] = {d.uid for d in decisions}
    used = _fresh(used, seen, per_section)
    recent = _fresh(recent, seen, per_section)
    sections = {
        "decisions": decisions,
        "most_used": used,
        "recent": recent,
        "sessions": sessions,
    }
    bodies = store.chunk_texts_of_first([d.id for rows in sections.values() for d in rows])
    counts = store.counts()["by_collection"]
    items = {
        name: [_wake_item(d, bodies.get(d.id, "")) for d in rows] for name, rows in sections.items()
    }
    text = _render(items, counts, budget_chars)
    return WakeUp(**items, collections=counts, text=text)


def _fresh(rows: list[DocumentRow], seen: set[str], n: int) -> list[DocumentRow]:
    out = [r for r in rows if r.uid not in seen][:n]
    seen.update(r.uid for r in out)
    return out


def _wake_item(row: DocumentRow, body: str) -> WakeUpItem:
    return WakeUpItem(
        id=row.uid,
        title=row.title,
        collection=row.collection,
        kind=row.kind,
        tags=row.tags,
        updated_at=iso(row.updated_at) or "",
        access_count=row.access_count,
        snippet=one_line(body, 240),
        origin=origin_of(row),
    )


def _render(items: dict[str, list[WakeUpItem]], counts: dict[str, int], budget: int) -> str:
    """Markdown within `budget` characters: whole lines only, sections in priority order."""
    titles = {
        "decisions": "Decisions",
        "most_used": "Most used",
        "recent": "Recent notes",
        "sessions": "Recent sessions",
    }
    lines = [
        "# Workspace memory",
        "Collections: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"),
    ]
    for name, entries in items.items():
        if not entries:
            continue
        lines.append(f"## {titles[name]}")
        lines.extend(
            f"- #{e.id} {md(e.title)} ({e.origin}, {e.updated_at[:10]}): {md(e.snippet)}"
            for e in entries
        )
    out: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            line = line[: max(0, budget - used - 2)] + "…"
            out.append(line)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)
