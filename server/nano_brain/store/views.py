"""Aggregated reads for the memory views (timeline, map, document page): grouped counts and
the few rows a chart draws, never whole documents.

Every read of documents goes through the store's one predicate, so the views hide what a
search hides (retracted notes, old versions) unless their filters ask otherwise. The map's
reads of anchors are in `anchors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..filters import Filters
from .predicate import decision_sql
from .rows import AnchorView as AnchorView  # the row types' old home: re-exported
from .rows import FileWeight as FileWeight
from .rows import TimelineBucket as TimelineBucket
from .rows import TimelinePoint as TimelinePoint

if TYPE_CHECKING:
    from .interface import SqlStore as Store


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
