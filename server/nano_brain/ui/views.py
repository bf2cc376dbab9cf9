"""What each memory view shows, read through the Brain.

Pure reads: every change the page makes goes through the Brain's own methods in `api`.
Inputs arrive as pydantic models (validated at the edge); outputs are plain JSON-able dicts.
"""

from __future__ import annotations

import difflib
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .. import __version__
from ..brain import Brain
from ..errors import InvalidInputError
from ..filters import KINDS, STATUSES, Filters, Kind, Status
from ..models import Document
from ..timeutil import parse_instant

#: Bucket widths the timeline may use, smallest first, with their names.
_WIDTHS: tuple[tuple[str, float], ...] = (
    ("minute", 60.0),
    ("10 minutes", 600.0),
    ("hour", 3600.0),
    ("6 hours", 6 * 3600.0),
    ("day", 86400.0),
    ("week", 7 * 86400.0),
    ("30 days", 30 * 86400.0),
    ("quarter", 91 * 86400.0),
    ("year", 365 * 86400.0),
)
MAX_BUCKETS = 160
MAX_POINTS = 3000
#: Lines of a version a diff reads; a longer document is cut (and the diff says so).
MAX_DIFF_LINES = 20_000
_TIMELINE_KINDS: tuple[Kind, ...] = tuple(k for k in KINDS if k != "code")
_TIMELINE_STATUSES: tuple[Status, ...] = ("active", "unreviewed", "superseded")


class TimelineQuery(BaseModel):
    """Filters of the timeline; times as the search filters take them (RFC 3339, 7d...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: list[Kind] = Field(default_factory=list)
    collection: list[str] = Field(default_factory=list, max_length=50)
    tags: list[str] = Field(default_factory=list, max_length=20)
    status: list[Status] = Field(default_factory=list)
    created_after: str | None = Field(None, max_length=100)
    created_before: str | None = Field(None, max_length=100)

    def filters(self) -> Filters:
        return Filters(
            kinds=tuple(self.kind) or _TIMELINE_KINDS,
            collections=tuple(self.collection),
            tags=tuple(self.tags),
            statuses=tuple(self.status) or _TIMELINE_STATUSES,
            created_after=_instant(self.created_after),
            created_before=_instant(self.created_before),
        )


def _instant(value: str | None) -> float | None:
    return None if value is None or not value.strip() else parse_instant(value)


class MemoryViews:
    """The read side of the memory page, for one workspace's Brain."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain

    def info(self) -> dict[str, Any]:
        """What the page needs once: the workspace, its counts, and the filter choices."""
        brain = self.brain
        counts = brain.counts()
        return {
            "version": __version__,
            "workspace": str(brain.root),
            "workspace_id": brain.workspace_id,
            "actor": brain.actor,
            "review": brain.config.review.enabled,
            "read_only": brain.read_only,
            "kinds": list(KINDS),
            "statuses": list(STATUSES),
            "collections": sorted(counts["by_collection"]),
            "tags": [{"tag": t, "count": n} for t, n in brain.tags()[:300]],
            "counts": {
                "documents": counts["documents"],
                "by_kind": counts["by_kind"],
                "by_status": counts["by_status"],
            },
        }

    def timeline(self, query: TimelineQuery) -> dict[str, Any]:
        """Documents over time per kind, and the decisions and supersede chains as points."""
        brain = self.brain
        filters = query.filters()
        span = brain.time_span(filters)
        if span is None:
            return {"unit": "day", "origin": 0, "width": 86400, "buckets": [], "points": [],
                    "truncated": False, "total": 0, "kinds": list(filters.kinds)}  # fmt: skip
        low, high = span
        unit, width = next(
            ((n, w) for n, w in _WIDTHS if (high - low) / w < MAX_BUCKETS), _WIDTHS[-1]
        )
        origin = math.floor(low / width) * width
        buckets = brain.timeline_buckets(filters, origin, width)
        points = brain.timeline_points(filters, MAX_POINTS + 1)
        truncated = len(points) > MAX_POINTS
        points = points[:MAX_POINTS]
        shown = {p.uid for p in points}
        # successors outside the filters still name the chain's end
        missing = sorted({p.superseded_by for p in points if p.superseded_by} - shown)
        outside = brain.successors_of(missing)
        return {
            "unit": unit,
            "origin": origin,
            "width": width,
            "kinds": list(filters.kinds),
            "total": sum(b.count for b in buckets),
            "buckets": [
                {"i": b.index, "kind": b.kind, "count": b.count, "decisions": b.decisions}
                for b in buckets
            ],
            "points": [
                {
                    "id": p.uid,
                    "title": p.title,
                    "kind": p.kind,
                    "collection": p.collection,
                    "t": p.created_at,
                    "status": p.status,
                    "superseded_by": p.superseded_by,
                    "decision": p.decision,
                }
                for p in points
            ],
            "outside": {uid: {"title": t, "status": s} for uid, (t, s) in outside.items()},
            "truncated": truncated,
        }

    def timeline_bucket(self, query: TimelineQuery, start: float, end: float) -> dict[str, Any]:
        """The documents of one bucket of the timeline (newest first, at most 200)."""
        if not (math.isfinite(start) and math.isfinite(end)) or end <= start:
            raise InvalidInputError("a bucket needs a start before its end")
        base = query.filters()
        filters = base.model_copy(
            update={
                "created_after": max(start, base.created_after or start),
                "created_before": min(end, base.created_before or end),
            }
        )
        docs = self.brain.list(filters, limit=200)
        return {"documents": [d.model_dump() for d in docs]}

    def document(self, ref: str) -> dict[str, Any]:
        """A document with its versions, audit events, anchors and supersede neighbours."""
        brain = self.brain
        doc = brain.get(ref)
        record = brain.history(doc.id)  # its versions and audit events
        successor = None
        if doc.superseded_by:
            found = brain.successors_of([doc.superseded_by]).get(doc.superseded_by)
            if found:
                successor = {"id": doc.superseded_by, "title": found[0], "status": found[1]}
        return {
            "document": doc.model_dump(),
            "versions": [_version(v) for v in record.versions],
            "events": [e.model_dump() for e in record.events],
            "anchors": [
                {
                    "path": a.path,
                    "symbol": a.qualified_name,
                    "state": a.state,
                    "line": a.start_line,
                    "end_line": a.end_line,
                }
                for a in brain.note_anchors(doc.id)
            ],
            "supersedes": [
                {"id": uid, "title": title, "status": status}
                for uid, title, status in brain.superseded_by_this(doc.id)
            ],
            "superseded_by": successor,
            "root": str(brain.root),
        }

    def diff(self, ref: str, old: int, new: int) -> dict[str, Any]:
        """A unified diff between two versions of a document (numbers as `history` gives)."""
        versions = {v.version: v for v in self.brain.history(ref).versions}
        for number in (old, new):
            if number not in versions:
                raise InvalidInputError(
                    f"#{ref.lstrip('#')} has no version {number} "
                    f"(versions: {', '.join(map(str, sorted(versions)))})"
                )
        a, b = versions[old], versions[new]
        a_lines = (a.content or "").splitlines()
        b_lines = (b.content or "").splitlines()
        cut = len(a_lines) > MAX_DIFF_LINES or len(b_lines) > MAX_DIFF_LINES
        lines = [
            {"op": _op(line), "text": line[1:] if _op(line) != "@" else line}
            for line in difflib.unified_diff(
                a_lines[:MAX_DIFF_LINES],
                b_lines[:MAX_DIFF_LINES],
                f"version {old}",
                f"version {new}",
                n=3,
                lineterm="",
            )
        ][2:]  # the two file header lines
        return {
            "id": a.id,
            "from": _version(a),
            "to": _version(b),
            "title_changed": a.title != b.title,
            "lines": lines,
            "cut": cut,
        }

    def review(self, limit: int) -> dict[str, Any]:
        """Unreviewed documents, newest first, each with its text (cut at 2,000 characters)."""
        docs = self.brain.list(Filters(statuses=("unreviewed",)), limit=limit)
        items = []
        for doc in docs:
            full = self.brain.get(doc.id)
            text = full.content or ""
            items.append({**doc.model_dump(), "content": text[:2000], "cut": len(text) > 2000})
        return {"review": self.brain.config.review.enabled, "documents": items}

    def code_map(self) -> dict[str, Any]:
        """Files with anchored notes (and commits, once commits are memory), stale ones marked."""
        weights = self.brain.anchor_weights()
        return {
            "commits": "commit" in KINDS,
            "files": [
                {
                    "path": w.path,
                    "notes": w.notes,
                    "anchors": w.anchors,
                    "stale": w.stale,
                    "commits": w.commits,
                }  # fmt: skip
                for w in weights
            ],
            "root": str(self.brain.root),
        }

    def file_anchors(self, path: str) -> dict[str, Any]:
        """The visible notes anchored in one file, with each anchor's state and lines."""
        anchors = self.brain.file_anchors(path)
        return {
            "path": path,
            "anchors": [
                {
                    "id": a.doc_uid,
                    "title": a.doc_title,
                    "status": a.doc_status,
                    "symbol": a.qualified_name,
                    "state": a.state,
                    "line": a.start_line,
                }
                for a in anchors
            ],
        }


def _version(doc: Document) -> dict[str, Any]:
    return {
        "version": doc.version,
        "title": doc.title,
        "recorded_at": doc.recorded_at,
        "valid_from": doc.valid_from,
        "valid_to": doc.valid_to,
        "author": doc.author,
        "content": doc.content,
    }


def _op(line: str) -> str:
    return "@" if line.startswith("@@") else (line[:1] or " ")
