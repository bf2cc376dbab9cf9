"""All SQL of consolidation: the notes it compares, and its proposals.

A proposal names a cluster of notes (its key: their ids, sorted) and what to do with it; one
proposal per cluster ever, so a dismissed proposal is not made again. Portable SQL, mixed into
both dialects' stores (in team mode proposals are shared, as the notes are); writes expect a
transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .rows import ProposalRow as ProposalRow

if TYPE_CHECKING:
    from .interface import SqlStore as Store

_COLUMNS = (
    "id, created_at, action, cluster, members, survivor, title, content, reason, score, status, "
    "decided_at, actor, result"
)


def _row(r: Sequence[Any]) -> ProposalRow:
    return ProposalRow(r[0], r[1], r[2], r[3], json.loads(r[4]), *r[5:])


class ConsolidationQueries:
    """Mixed into `Store`: consolidation proposals and the reads consolidation makes."""

    def add_proposal(
        self: Store,
        *,
        at: float,
        action: str,
        members: Sequence[str],
        survivor: str | None,
        title: str | None,
        content: str | None,
        reason: str,
        score: float,
        actor: str,
    ) -> int | None:
        """Record a proposal; None when its cluster was proposed before (whatever became of it)."""
        rows = self._rows(
            "INSERT INTO consolidation_proposals (workspace_id, created_at, action, "
            "cluster, members, survivor, title, content, reason, score, actor) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (workspace_id, cluster) DO NOTHING RETURNING id",
            (self.workspace_id, at, action, cluster_key(members), json.dumps(list(members)),
             survivor, title, content, reason, score, actor),
        )  # fmt: skip
        return int(rows[0][0]) if rows else None

    def proposed_clusters(self: Store) -> set[str]:
        return {
            r[0]
            for r in self._rows(
                "SELECT cluster FROM consolidation_proposals WHERE workspace_id = ?",
                (self.workspace_id,),
            )
        }

    def proposals(
        self: Store, *, statuses: Sequence[str] = ("pending",), limit: int = 1000
    ) -> list[ProposalRow]:
        marks = ",".join("?" * len(statuses))
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM consolidation_proposals WHERE workspace_id = ? "
            f"AND status IN ({marks}) ORDER BY id LIMIT ?",
            (self.workspace_id, *statuses, limit),
        )
        return [_row(r) for r in rows]

    def proposal(self: Store, proposal_id: int) -> ProposalRow | None:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM consolidation_proposals WHERE workspace_id = ? AND id = ?",
            (self.workspace_id, proposal_id),
        )
        return _row(rows[0]) if rows else None

    def decide_proposal(
        self: Store, proposal_id: int, status: str, *, at: float, actor: str, result: str | None
    ) -> None:
        self._exec(
            "UPDATE consolidation_proposals SET status = ?, decided_at = ?, actor = ?, "
            "result = ? WHERE workspace_id = ? AND id = ?",
            (status, at, actor, result, self.workspace_id, proposal_id),
        )

    def note_texts(self: Store, doc_ids: Sequence[int]) -> dict[int, str]:
        """Title and content of current documents, by id."""
        out: dict[int, str] = {}
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for doc_id, title, content in self._rows(
                "SELECT id, title, content FROM documents "
                f"WHERE workspace_id = ? AND id IN ({marks})",
                (self.workspace_id, *part),
            ):
                out[doc_id] = f"{title}\n{content}"
        return out

    def anchors_by_note(self: Store) -> dict[str, set[str]]:
        """The symbols each note is anchored to."""
        out: dict[str, set[str]] = {}
        for uid, name in self._rows(
            "SELECT doc_uid, qualified_name FROM code_anchors WHERE workspace_id = ?",
            (self.workspace_id,),
        ):
            out.setdefault(uid, set()).add(name)
        return out


def cluster_key(members: Sequence[str]) -> str:
    return ",".join(sorted(members))
