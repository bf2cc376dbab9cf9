"""Aggregated reads for the memory views (timeline, map, document page): grouped counts and
the few rows a chart draws, never whole documents.

Every read of documents goes through the store's one predicate, so the views hide what a
search hides (retracted notes, old versions) unless their filters ask otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..filters import Filters
from .predicate import decision_sql

if TYPE_CHECKING:
    from .interface import SqlStore as Store

#: Anchored code whose symbol changed or vanished since the note was anchored.
_STALE = "(s.sha256 IS NULL OR s.sha256 != a.symbol_sha256)"
_SYMBOL = (
    "LEFT JOIN code_symbols s ON s.workspace_id = a.workspace_id "
    "AND s.qualified_name = a.qualified_name"
)


@dataclass(frozen=True, slots=True)
class TimelineBucket:
    """How many documents of one kind were created in one time bucket (index from origin)."""

    index: int
    kind: str
    count: int
    decisions: int


@dataclass(frozen=True, slots=True)
class TimelinePoint:
    """A document the timeline draws one by one: a decision, or a link of a supersede chain."""

    uid: str
    title: str
    kind: str
    collection: str
    created_at: float
    status: str
    superseded_by: str | None
    decision: bool


@dataclass(frozen=True, slots=True)
class FileWeight:
    """What a file of the workspace carries: notes anchored in it and commits that touched it."""

    path: str
    notes: int
    anchors: int
    stale: int
    commits: int = 0


@dataclass(frozen=True, slots=True)
class AnchorView:
    """One anchor with where its symbol is now (None once it vanished)."""

    doc_uid: str
    doc_title: str | None
    doc_status: str | None
    path: str
    qualified_name: str
    state: str
    start_line: int | None
    end_line: int | None


class ViewQueries:
    """Mixed into a dialect's store: the grouped queries behind `nano-brain ui` (portable SQL;
    commit counts, which read JSON, are the dialect's own `commit_counts`)."""

    def time_span(self: Store, filters: Filters) -> tuple[float, float] | None:
        """The first and last creation time of the documents passing the filters."""
        where, params = self._predicate(filters)
        low, high = self._rows(
            f"SELECT min(d.created_at), max(d.created_at) FROM documents d "
            f"WHERE d.workspace_id = ? AND {where}",
            (self.workspace_id, *params),
        )[0]
        return None if low is None else (float(low), float(high))

    def timeline_buckets(
        self: Store, filters: Filters, origin: float, width: float
    ) -> list[TimelineBucket]:
        """Documents per (bucket, kind), bucket `i` covering [origin + i*width, +width)."""
        if width <= 0:
            raise ValueError("bucket width must be positive")
        where, params = self._predicate(filters)
        decision, decision_params = decision_sql()
        rows = self._rows(
            f"SELECT {self.dialect.integer.format('(d.created_at - ?) / ?')} AS b, d.kind, "
            f"count(*), sum(CASE WHEN {decision} THEN 1 ELSE 0 END) FROM documents d "
            f"WHERE d.workspace_id = ? AND {where} "
            "GROUP BY b, d.kind ORDER BY b, d.kind",
            (origin, width, *decision_params, self.workspace_id, *params),
        )
        return [TimelineBucket(int(r[0]), r[1], int(r[2]), int(r[3] or 0)) for r in rows]

    def timeline_points(self: Store, filters: Filters, limit: int) -> list[TimelinePoint]:
        """Decisions and the documents of supersede chains, newest first (at most `limit`)."""
        where, params = self._predicate(filters)
        decision, decision_params = decision_sql()
        # the successors, found once: an EXISTS per row would scan the table per row
        successors = (
            "SELECT superseded_by FROM documents WHERE workspace_id = ? "
            "AND valid_to IS NULL AND superseded_by IS NOT NULL"
        )
        rows = self._rows(
            f"SELECT d.uid, d.title, d.kind, d.collection, d.created_at, d.status, "
            f"d.superseded_by, {decision} AS decision FROM documents d "
            f"WHERE d.workspace_id = ? AND {where} AND ({decision} "
            f"OR d.superseded_by IS NOT NULL OR d.uid IN ({successors})) "
            "ORDER BY d.created_at DESC, d.id DESC LIMIT ?",
            (
                *decision_params,
                self.workspace_id,
                *params,
                *decision_params,
                self.workspace_id,
                int(limit),
            ),
        )
        return [
            TimelinePoint(r[0], r[1], r[2], r[3], float(r[4]), r[5], r[6], bool(r[7])) for r in rows
        ]

    def successors_of(self: Store, uids: list[str]) -> dict[str, tuple[str, str]]:
        """The current title and status of each document named, by uid (for links whose
        other end the filters left out)."""
        out: dict[str, tuple[str, str]] = {}
        for start in range(0, len(uids), 500):
            part = uids[start : start + 500]
            marks = ",".join("?" * len(part))
            for uid, title, status in self._rows(
                f"SELECT uid, title, status FROM documents WHERE workspace_id = ? "
                f"AND valid_to IS NULL AND uid IN ({marks})",
                (self.workspace_id, *part),
            ):
                out[uid] = (title, status)
        return out

    def superseded_by_this(self: Store, uid: str) -> list[tuple[str, str, str]]:
        """(uid, title, status) of the documents that `uid` superseded."""
        return [
            (r[0], r[1], r[2])
            for r in self._rows(
                "SELECT uid, title, status FROM documents WHERE workspace_id = ? "
                "AND valid_to IS NULL AND superseded_by = ? ORDER BY status_changed_at",
                (self.workspace_id, uid),
            )
        ]

    def anchor_weights(self: Store, visible: Filters) -> list[FileWeight]:
        """Per file: visible notes anchored in it, their anchors, and how many are stale;
        with commits counted when the store has commit documents."""
        where, params = self._predicate(visible)
        rows = self._rows(
            "SELECT a.path, count(DISTINCT a.doc_uid), count(*), "
            f"sum(CASE WHEN {_STALE} THEN 1 ELSE 0 END) FROM code_anchors a "
            "JOIN documents d ON d.uid = a.doc_uid AND d.workspace_id = a.workspace_id "
            f"AND {where} {_SYMBOL} WHERE a.workspace_id = ? GROUP BY a.path",
            (*params, self.workspace_id),
        )
        weights = {r[0]: FileWeight(r[0], int(r[1]), int(r[2]), int(r[3] or 0)) for r in rows}
        for path, commits in self.commit_counts().items():
            old = weights.get(path)
            weights[path] = FileWeight(
                path,
                old.notes if old else 0,
                old.anchors if old else 0,
                old.stale if old else 0,
                commits,
            )
        return sorted(weights.values(), key=lambda w: w.path)

    def anchor_views(
        self: Store,
        *,
        doc_uid: str | None = None,
        path: str | None = None,
        visible: Filters | None = None,
        limit: int = 500,
    ) -> list[AnchorView]:
        """Anchors of one note or of one file, with their state and the symbol's lines now."""
        clauses, params = ["a.workspace_id = ?"], [self.workspace_id]
        if doc_uid is not None:
            clauses.append("a.doc_uid = ?")
            params.append(doc_uid)
        if path is not None:
            clauses.append("a.path = ?")
            params.append(path)
        join = "LEFT JOIN documents d ON d.uid = a.doc_uid AND d.valid_to IS NULL"
        join_params: list[object] = []
        if visible is not None:
            where, join_params = self._predicate(visible)
            join = (
                "JOIN documents d ON d.uid = a.doc_uid AND d.workspace_id = a.workspace_id "
                f"AND {where}"
            )
        rows = self._rows(
            "SELECT a.doc_uid, d.title, d.status, a.path, a.qualified_name, "
            f"CASE WHEN s.sha256 IS NULL THEN 'missing' WHEN {_STALE} THEN 'changed' "
            "ELSE 'ok' END, s.start_line, s.end_line "
            f"FROM code_anchors a {join} {_SYMBOL} WHERE {' AND '.join(clauses)} "
            "ORDER BY a.path, s.start_line, a.qualified_name LIMIT ?",
            (*join_params, *params, int(limit)),
        )
        return [AnchorView(*r) for r in rows]
