"""All SQL of anchors: a note tied to a code symbol (`code_anchors`), kept with the notes.

Portable SQL, mixed into both dialects' stores. In team mode the anchors are in the team's
store with the notes, and the symbols they name in the clone's code index: a team store's
reads join them in Python (`team.TeamStore.anchor_views`, `sqlite.code.CodeStore.anchors`);
a SQLite store, holding both, joins them in SQL. Writes expect a transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..filters import Filters
from .rows import AnchorRow, AnchorView, FileWeight

if TYPE_CHECKING:
    from .interface import SqlStore as Store

#: Anchored code whose symbol changed or vanished since the note was anchored.
_STALE = "(s.sha256 IS NULL OR s.sha256 != a.symbol_sha256)"
_SYMBOL = (
    "LEFT JOIN code_symbols s ON s.workspace_id = a.workspace_id "
    "AND s.qualified_name = a.qualified_name"
)
#: IN lists of qualified names are sent this many at a time (SQLite caps bound values).
_NAMES_PER_READ = 500


def anchor_scope(
    store: Store,
    *,
    doc_uid: str | None = None,
    path: str | None = None,
    visible: Filters | None = None,
) -> tuple[str, list[Any], list[str], list[Any]]:
    """The one filter of anchor reads: the join to their notes and its parameters, then the
    clauses choosing the anchors (``a``) and theirs.

    With `visible`, only the anchors of notes a read with those filters returns, chosen by
    the store's one predicate (`Filters()`: no deleted, retracted or superseded notes);
    without it, every anchor with its note's current version (none once deleted)."""
    clauses, params = ["a.workspace_id = ?"], [store.workspace_id]
    if doc_uid is not None:
        clauses.append("a.doc_uid = ?")
        params.append(doc_uid)
    if path is not None:
        clauses.append("a.path = ?")
        params.append(path)
    join = "LEFT JOIN documents d ON d.uid = a.doc_uid AND d.valid_to IS NULL"
    join_params: list[Any] = []
    if visible is not None:
        where, join_params = store._predicate(visible)
        join = (
            f"JOIN documents d ON d.uid = a.doc_uid AND d.workspace_id = a.workspace_id AND {where}"
        )
    return join, join_params, clauses, params


class AnchorQueries:
    """Mixed into a dialect's store: the anchors of its notes."""

    def add_anchor(
        self: Store, doc_uid: str, path: str, qualified_name: str, sha256: str, now: float
    ) -> None:
        """Anchor a note to a symbol (again: its hash, path and time are updated)."""
        self._exec(
            "INSERT INTO code_anchors (workspace_id, doc_uid, path, qualified_name, "
            "symbol_sha256, created_at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (workspace_id, doc_uid, qualified_name) DO UPDATE SET "
            "symbol_sha256 = excluded.symbol_sha256, path = excluded.path, "
            "created_at = excluded.created_at",
            (self.workspace_id, doc_uid, path, qualified_name, sha256, now),
        )

    def remove_anchor(self: Store, doc_uid: str, qualified_name: str) -> bool:
        """Remove one anchor; whether there was one."""
        cursor = self._exec(
            "DELETE FROM code_anchors WHERE workspace_id = ? AND doc_uid = ? "
            "AND qualified_name = ?",
            (self.workspace_id, doc_uid, qualified_name),
        )
        return bool(cursor.rowcount > 0)

    def anchor_rows(
        self: Store,
        *,
        doc_uid: str | None = None,
        path: str | None = None,
        qualified_names: Sequence[str] | None = None,
        visible: Filters | None = None,
    ) -> list[AnchorRow]:
        """The anchors (all, of some symbols, of one note, of one file) with their notes as
        `visible` chooses (see `anchor_scope`), by qualified name and age."""
        join, join_params, clauses, params = anchor_scope(
            self, doc_uid=doc_uid, path=path, visible=visible
        )
        sql = (
            "SELECT a.doc_uid, d.title, d.status, a.path, a.qualified_name, a.symbol_sha256, "
            f"a.created_at FROM code_anchors a {join} WHERE {{where}} "
            "ORDER BY a.qualified_name, a.created_at"
        )
        if qualified_names is None:
            return self._rows(sql.format(where=" AND ".join(clauses)), [*join_params, *params])
        names = list(dict.fromkeys(qualified_names))
        out: list[AnchorRow] = []
        for start in range(0, len(names), _NAMES_PER_READ):
            part = names[start : start + _NAMES_PER_READ]
            where = " AND ".join([*clauses, f"a.qualified_name IN ({','.join('?' * len(part))})"])
            out.extend(self._rows(sql.format(where=where), [*join_params, *params, *part]))
        return out

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
        return with_commits(weights, self.commit_counts())

    def anchor_views(
        self: Store,
        *,
        doc_uid: str | None = None,
        path: str | None = None,
        visible: Filters | None = None,
        limit: int = 500,
    ) -> list[AnchorView]:
        """Anchors of one note or of one file, with their state and the symbol's lines now."""
        join, join_params, clauses, params = anchor_scope(
            self, doc_uid=doc_uid, path=path, visible=visible
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


def with_commits(weights: dict[str, FileWeight], commits: dict[str, int]) -> list[FileWeight]:
    """The files' weights with the commits that touched each (files with commits only
    added), by path."""
    for path, count in commits.items():
        old = weights.get(path)
        weights[path] = FileWeight(
            path,
            old.notes if old else 0,
            old.anchors if old else 0,
            old.stale if old else 0,
            count,
        )
    return sorted(weights.values(), key=lambda w: w.path)
