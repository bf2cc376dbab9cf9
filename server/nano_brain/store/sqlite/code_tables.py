"""The code index's tables in SQLite: what every part of `code.CodeStore` stands on (its
store, its workspace, the statements it runs) and the helpers its writes share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from ..priority import LEXICAL_ONLY, PENDING, TEST, TEST_VECTORS_KEY
from .migrations import SYMBOL_TRIGRAM_TITLE
from .store import SqliteStore as Store

if TYPE_CHECKING:
    from ..interface import Anchors, MemoryStore


class CodeTables:
    """The code tables of one workspace's store; shares the Store's connection and lock."""

    def __init__(self, store: MemoryStore) -> None:
        #: the code tables' store (this clone's: always SQLite); anchors are kept with the
        #: notes, which in team mode are in the team's store (see store.team.TeamStore)
        self.store = cast(Store, store.local)
        self.notes: Anchors = store
        self.ws = self.store.workspace_id

    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.store._lock:
            self.store._db.executemany(sql, rows)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.store._rows(sql, params)

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.store._exec(sql, params)

    def _rows_in(self, sql: str, keys: Iterable[Any], params: Sequence[Any] = ()) -> list[Any]:
        """``sql`` with ``{marks}`` standing for an IN list, run over ``keys`` 500 at a time
        (SQLite caps the number of bound values) after the other ``params``."""
        wanted = sorted(set(keys), key=str)
        out: list[Any] = []
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            out.extend(self._rows(sql.format(marks=",".join("?" * len(part))), (*params, *part)))
        return out

    def _chunk_state(self, tier: int) -> int:
        """A new chunk's ``embedded`` in this tier: test code is lexical only once the store
        was told so (Store.set_test_vectors); the rest waits for its vector."""
        if tier == TEST and self.store.meta_get(TEST_VECTORS_KEY) == "0":
            return LEXICAL_ONLY
        return PENDING

    def _next_ids(self) -> tuple[int, int]:
        """Next free ids of documents and chunks (call inside a write transaction)."""
        doc = self._rows("SELECT coalesce(max(id), 0) FROM documents")[0][0]
        chunk = self._rows("SELECT coalesce(max(id), 0) FROM chunks")[0][0]
        return int(doc) + 1, int(chunk) + 1

    def _delete_documents(self, doc_ids: Sequence[int]) -> None:
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            self._exec(
                f"DELETE FROM documents WHERE workspace_id = ? AND id IN ({marks})",
                (self.ws, *part),
            )

    def _index_symbol_chunks(self, first: int, last: int) -> None:
        """Full-text index the symbol chunks with ids first..last (see migration 5)."""
        span = (first, last)
        self._exec(
            "INSERT INTO chunks_fts (rowid, title, body) SELECT id, title, body FROM chunks "
            "WHERE id BETWEEN ? AND ? AND symbol = 1",
            span,
        )
        self._exec(
            "INSERT INTO chunks_tri (rowid, title, body) SELECT id, "
            f"{SYMBOL_TRIGRAM_TITLE.format(t='title')}, '' FROM chunks "
            "WHERE id BETWEEN ? AND ? AND symbol = 1",
            span,
        )


def sql_literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
