"""Documents, versions, statuses, tags, chunks, tombstones and the audit log: the SQL both
dialects share.

Mixed into each dialect's store, which provides `_rows`, `_exec`, `_many`, `_insert` (an
insert that returns the new row's id), `transaction()`, `dialect` and `workspace_id`. The
statements here are portable SQL with ``?`` placeholders; what a dialect spells its own way
goes through `predicate.Dialect` or lives in the dialect's module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..filters import Filters
from .predicate import (
    DOC_COLUMNS,
    DOC_CONTENT,
    IN_FORCE_AT,
    ORDERS,
    decision_sql,
    document,
    predicate,
)
from .priority import LEXICAL_ONLY
from .rows import AuditRow, ChunkRow, DocumentRow, PendingChunk, Tombstone

if TYPE_CHECKING:
    from .interface import SqlStore

#: Rows per multi-row INSERT (see `DocumentQueries._insert_rows`), and the cap on one
#: statement's parameters (SQLite allows 32,766; PostgreSQL 65,535).
_ROWS_PER_STATEMENT = 64
PARAMS_PER_STATEMENT = 30_000


class DocumentQueries:
    """Mixed into a dialect's store: everything about documents that is portable SQL."""

    def _predicate(self: SqlStore, filters: Filters) -> tuple[str, list[Any]]:
        """SQL over `documents d` for every filter (see `predicate`)."""
        return predicate(filters, self.dialect)

    # -- documents ------------------------------------------------------------------------

    def find_by_source(self: SqlStore, source_path: str) -> DocumentRow | None:
        return self._one("d.source_path = ?", (source_path,))

    def find_by_hash(self: SqlStore, collection: str, content_hash: str) -> DocumentRow | None:
        return self._one("d.collection = ? AND d.content_hash = ?", (collection, content_hash))

    def find_current(self: SqlStore, uid: str, *, as_of: float | None = None) -> DocumentRow | None:
        """The current version of a document by its public id; with `as_of`, the version in
        force then, with its status then."""
        if as_of is None:
            return self._one("d.uid = ?", (uid,))
        docs = self._documents(
            f"d.uid = ? AND {IN_FORCE_AT}",
            (uid, as_of, as_of, as_of),
            limit=1,
            all_versions=True,
            as_of=as_of,
        )
        return docs[0] if docs else None

    def get_by_id(self: SqlStore, doc_id: int) -> DocumentRow | None:
        docs = self._documents("d.id = ?", (doc_id,), all_versions=True)
        return docs[0] if docs else None

    def versions(self: SqlStore, uid: str) -> list[DocumentRow]:
        """Every version of a document, oldest first."""
        return self._documents("d.uid = ?", (uid,), all_versions=True, order="d.version")

    def get_many(
        self: SqlStore, doc_ids: Iterable[int], *, content: bool = True, as_of: float | None = None
    ) -> dict[int, DocumentRow]:
        """Documents by internal id; without `content` their text is left empty (cheaper).

        With `as_of`, each row carries its status, successor and status time as of then.
        """
        ids = list(dict.fromkeys(doc_ids))
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        docs = self._documents(
            f"d.id IN ({marks})", ids, content=content, all_versions=True, as_of=as_of
        )
        return {doc.id: doc for doc in docs}

    def _one(self: SqlStore, where: str, params: Sequence[Any]) -> DocumentRow | None:
        docs = self._documents(where, params, limit=1)
        return docs[0] if docs else None

    def _documents(
        self: SqlStore,
        where: str,
        params: Sequence[Any],
        *,
        limit: int | None = None,
        offset: int = 0,
        order: str = "",
        content: bool = True,
        all_versions: bool = False,
        as_of: float | None = None,
    ) -> list[DocumentRow]:
        columns = DOC_COLUMNS if content else DOC_COLUMNS.replace(DOC_CONTENT, "''")
        state: tuple[float, ...] = ()
        if as_of is not None:
            columns = columns.replace(
                "d.status, d.status_changed_at, d.superseded_by",
                f"{self.dialect.state_at}, NULL, NULL",
            )
            state = (as_of, as_of)
        tags_column = self.dialect.tags_of_row
        if tags_column:
            columns = f"{columns}, {tags_column}"
        current = "" if all_versions else " AND d.valid_to IS NULL"
        sql = f"SELECT {columns} FROM documents d WHERE d.workspace_id = ?{current} AND ({where})"
        if order:
            sql += f" ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        rows = self._rows(sql, (*state, self.workspace_id, *params))
        docs = [document(r, historical=as_of is not None) for r in rows]
        if tags_column:
            for doc, row in zip(docs, rows, strict=True):
                doc.tags = list(row[-1])
        elif docs:
            tags = self._tags_of([d.id for d in docs])
            for doc in docs:
                doc.tags = tags.get(doc.id, [])
        return docs

    def _tags_of(self: SqlStore, doc_ids: list[int]) -> dict[int, list[str]]:
        marks = ",".join("?" * len(doc_ids))
        result: dict[int, list[str]] = {}
        for doc_id, tag in self._rows(
            f"SELECT doc_id, tag FROM document_tags WHERE doc_id IN ({marks}) ORDER BY tag", doc_ids
        ):
            result.setdefault(doc_id, []).append(tag)
        return result

    def insert_document(
        self: SqlStore,
        *,
        uid: str,
        kind: str,
        collection: str,
        title: str,
        content: str,
        content_hash: str,
        source_path: str | None,
        metadata: dict[str, Any],
        created_at: float,
        updated_at: float,
        recorded_at: float,
        valid_from: float,
        version: int = 1,
        status: str = "active",
        author: str = "cli",
        access_count: int = 0,
        last_accessed_at: float | None = None,
        pinned: bool = False,
        thread: str | None = None,
        thread_seq: int | None = None,
    ) -> int:
        """Insert one version row of a document; returns its internal id."""
        return self._insert(
            "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
            "content_hash, source_path, metadata, created_at, updated_at, recorded_at, "
            "valid_from, version, status, author, access_count, last_accessed_at, pinned, "
            "thread, thread_seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.workspace_id,
                uid,
                kind,
                collection,
                title,
                content,
                content_hash,
                source_path,
                json.dumps(metadata, sort_keys=True),
                created_at,
                updated_at,
                recorded_at,
                valid_from,
                version,
                status,
                author,
                access_count,
                last_accessed_at,
                int(pinned),
                thread,
                thread_seq,
            ),
        )

    def update_metadata(self: SqlStore, doc_id: int, metadata: dict[str, Any]) -> None:
        self._exec(
            "UPDATE documents SET metadata = ? WHERE id = ?",
            (json.dumps(metadata, sort_keys=True, default=str), doc_id),
        )

    def close_version(self: SqlStore, doc_id: int, at: float) -> None:
        """Mark a version as replaced (no longer in force) from `at` on."""
        self._exec("UPDATE documents SET valid_to = ? WHERE id = ?", (at, doc_id))

    def set_status(
        self: SqlStore,
        uid: str,
        status: str,
        at: float,
        *,
        actor: str,
        superseded_by: str | None = None,
    ) -> None:
        """Change a document's status, appending the change to its history (call inside the
        change's transaction): an "as of" read finds every status it ever had."""
        self._exec(
            "INSERT INTO status_changes (workspace_id, doc_uid, at, actor, status, superseded_by, "
            "prev_status, prev_superseded_by) SELECT workspace_id, uid, ?, ?, ?, ?, status, "
            "superseded_by FROM documents WHERE uid = ? AND workspace_id = ? AND valid_to IS NULL",
            (at, actor, status, superseded_by, uid, self.workspace_id),
        )
        self._exec(
            "UPDATE documents SET status = ?, status_changed_at = ?, superseded_by = ? "
            "WHERE uid = ? AND workspace_id = ? AND valid_to IS NULL",
            (status, at, superseded_by, uid, self.workspace_id),
        )

    def set_pinned(self: SqlStore, uid: str, pinned: bool) -> None:
        self._exec(
            "UPDATE documents SET pinned = ? WHERE uid = ? AND workspace_id = ? "
            "AND valid_to IS NULL",
            (int(pinned), uid, self.workspace_id),
        )

    def track_access(self: SqlStore, uids: Sequence[str], at: float) -> None:
        """Count one access for each document (one statement, one transaction).

        A read-only store is read without counting; a damaged one refuses (StoreCorruptError).
        """
        if not uids or self.read_only:
            return
        marks = ",".join("?" * len(uids))
        with self.transaction():
            self._exec(
                "UPDATE documents SET access_count = access_count + 1, last_accessed_at = ? "
                f"WHERE uid IN ({marks}) AND workspace_id = ? AND valid_to IS NULL",
                (at, *uids, self.workspace_id),
            )

    def delete_document(self: SqlStore, uid: str) -> None:
        """Remove every version of a document and, by cascade, all derived rows."""
        self._exec(
            "DELETE FROM documents WHERE uid = ? AND workspace_id = ?", (uid, self.workspace_id)
        )

    def copy_tags(self: SqlStore, from_doc: int, to_doc: int) -> None:
        self._exec(
            "INSERT INTO document_tags (doc_id, workspace_id, tag) "
            "SELECT ?, workspace_id, tag FROM document_tags WHERE doc_id = ? "
            "ON CONFLICT DO NOTHING",
            (to_doc, from_doc),
        )

    # -- tombstones and audit ----------------------------------------------------------------

    def add_tombstone(
        self: SqlStore, source: str, uid: str | None, title: str | None, at: float, actor: str
    ) -> None:
        self._exec(
            "INSERT INTO tombstones (workspace_id, source, doc_uid, title, created_at, actor) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, source) DO UPDATE SET "
            "doc_uid = excluded.doc_uid, title = excluded.title, "
            "created_at = excluded.created_at, actor = excluded.actor",
            (self.workspace_id, source, uid, title, at, actor),
        )

    def remove_tombstone(self: SqlStore, source: str) -> bool:
        cursor = self._exec(
            "DELETE FROM tombstones WHERE workspace_id = ? AND source = ?",
            (self.workspace_id, source),
        )
        return bool(cursor.rowcount > 0)

    def tombstone(self: SqlStore, source: str) -> Tombstone | None:
        rows = self._rows(
            "SELECT source, doc_uid, title, created_at, actor FROM tombstones "
            "WHERE workspace_id = ? AND source = ?",
            (self.workspace_id, source),
        )
        return Tombstone(*rows[0]) if rows else None

    def tombstones(self: SqlStore) -> list[Tombstone]:
        rows = self._rows(
            "SELECT source, doc_uid, title, created_at, actor FROM tombstones "
            "WHERE workspace_id = ? ORDER BY created_at DESC",
            (self.workspace_id,),
        )
        return [Tombstone(*r) for r in rows]

    def audit(
        self: SqlStore,
        *,
        at: float,
        actor: str,
        action: str,
        uid: str | None = None,
        title: str | None = None,
        prev_status: str | None = None,
        new_status: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        """Append one row to the audit log (call inside the mutation's transaction)."""
        self._exec(
            "INSERT INTO audit_log (workspace_id, at, actor, action, doc_uid, title, "
            "prev_status, new_status, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.workspace_id,
                at,
                actor,
                action,
                uid,
                title,
                prev_status,
                new_status,
                json.dumps(details or {}, sort_keys=True, default=str),
            ),
        )

    def audit_rows(self: SqlStore, *, uid: str | None = None, limit: int = 50) -> list[AuditRow]:
        where, params = ("AND doc_uid = ?", [uid]) if uid else ("", [])
        rows = self._rows(
            "SELECT id, at, actor, action, doc_uid, title, prev_status, new_status, details "
            f"FROM audit_log WHERE workspace_id = ? {where} ORDER BY id DESC LIMIT ?",
            (self.workspace_id, *params, limit),
        )
        return [
            AuditRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8])) for r in rows
        ]

    def eviction_candidates(
        self: SqlStore, *, by_access: bool, tier_seconds: float, protect_decisions: bool, limit: int
    ) -> list[DocumentRow]:
        """Current documents in eviction order: never pinned ones, nor active decisions when
        `protect_decisions` (a decision as `filters.is_decision` defines it)."""
        order = "d.created_at, d.id"
        if by_access:
            order = (
                self.dialect.integer.format(f"d.created_at / {float(tier_seconds)}") + ", "
                "d.access_count, d.created_at, d.id"
            )
        where = "d.pinned = 0"
        params: list[str] = []
        if protect_decisions:
            decision, params = decision_sql()
            where += f" AND NOT (d.status = 'active' AND {decision})"
        return self._documents(where, params, order=order, limit=limit, content=False)

    def add_tags(self: SqlStore, doc_id: int, tags: Iterable[str]) -> None:
        for tag in tags:
            self._exec(
                "INSERT INTO document_tags (doc_id, workspace_id, tag) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (doc_id, self.workspace_id, tag),
            )

    def _insert_rows(self: SqlStore, head: str, rows: Sequence[Sequence[Any]]) -> None:
        """``head VALUES (...), (...)``: many rows per statement, for tables whose triggers
        write full-text rows.

        SQLite's FTS5 writes out what it holds in memory at the start of every statement that
        changes it, and merges segments as they pile up: a chunk inserted per statement
        (``executemany``) cost 0.4 ms, 64 per statement 0.05 ms each.
        """
        if not rows:
            return
        width = len(rows[0])
        step = max(1, min(_ROWS_PER_STATEMENT, PARAMS_PER_STATEMENT // width))
        marks = "(" + ", ".join("?" * width) + ")"
        for start in range(0, len(rows), step):
            group = rows[start : start + step]
            self._exec(
                f"{head} VALUES {', '.join([marks] * len(group))}",
                [value for row in group for value in row],
            )

    def replace_chunks(self: SqlStore, doc_id: int, chunks: Sequence[ChunkRow]) -> None:
        """Swap a document's chunks (their index rows and vectors go with them)."""
        self._exec("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
        self._insert_rows(
            "INSERT INTO chunks (doc_id, workspace_id, seq, title, body, heading, start_line, "
            "end_line)",
            [
                (
                    doc_id,
                    self.workspace_id,
                    c.seq,
                    c.title,
                    c.body,
                    c.heading,
                    c.start_line,
                    c.end_line,
                )
                for c in chunks
            ],
        )

    def pending_of(self: SqlStore, doc_id: int) -> list[PendingChunk]:
        """One document's chunks that have no vector yet."""
        rows = self._rows(
            "SELECT id, doc_id, title, heading, body, symbol FROM chunks WHERE doc_id = ? "
            "AND embedded = 0 ORDER BY seq",
            (doc_id,),
        )
        return [PendingChunk(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]

    def chunks_of(self: SqlStore, doc_id: int) -> list[tuple[int, ChunkRow]]:
        rows = self._rows(
            "SELECT id, seq, title, body, heading, start_line, end_line FROM chunks "
            "WHERE doc_id = ? ORDER BY seq",
            (doc_id,),
        )
        return [(r[0], ChunkRow(*r[1:])) for r in rows]

    def chunk_texts(self: SqlStore, chunk_ids: Iterable[int]) -> dict[int, tuple[str, int, int]]:
        """Body, start line and end line of each chunk id."""
        ids = list(chunk_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._rows(
            f"SELECT id, body, start_line, end_line FROM chunks WHERE id IN ({marks})", ids
        )
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def vectorless(self: SqlStore, chunk_ids: Iterable[int]) -> set[int]:
        """Of these chunks, those whose document has no chunk to embed (all lexical only by
        choice, store/priority.py): no vector leg can ever find them."""
        ids = list(chunk_ids)
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        rows = self._rows(
            f"SELECT c.id FROM chunks c WHERE c.id IN ({marks}) "
            f"AND c.embedded = {LEXICAL_ONLY} AND NOT EXISTS (SELECT 1 FROM chunks o "
            f"WHERE o.doc_id = c.doc_id AND o.embedded <> {LEXICAL_ONLY})",
            ids,
        )
        return {int(r[0]) for r in rows}

    def first_chunks(self: SqlStore, doc_ids: Sequence[int]) -> dict[int, int]:
        """The first chunk's id of each document."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = self._rows(
            f"SELECT doc_id, id FROM chunks WHERE seq = 0 AND doc_id IN ({marks})", doc_ids
        )
        return {r[0]: r[1] for r in rows}

    def chunk_texts_of_first(self: SqlStore, doc_ids: Sequence[int]) -> dict[int, str]:
        """The first chunk's body of each document (for short previews)."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = self._rows(
            f"SELECT doc_id, body FROM chunks WHERE seq = 0 AND doc_id IN ({marks})", doc_ids
        )
        return {r[0]: r[1] for r in rows}

    def list_documents(
        self: SqlStore,
        filters: Filters,
        *,
        limit: int = 50,
        offset: int = 0,
        order: str = "updated",
    ) -> list[DocumentRow]:
        """Documents passing the filters, newest (or most used) first, without content."""
        where, params = self._predicate(filters)
        return self._documents(
            where,
            params,
            limit=limit,
            offset=offset,
            order=ORDERS[order],
            content=False,
            all_versions=filters.as_of is not None,
            as_of=filters.as_of,
        )

    def thread_neighbours(
        self: SqlStore, doc_ids: Sequence[int], filters: Filters, window: int
    ) -> list[tuple[int, int, int]]:
        """(document, neighbour, distance): documents of the same thread at most `window`
        places away, each neighbour passing the filters (a neighbour may be no candidate)."""
        if not doc_ids or window < 1:
            return []
        where, params = self._predicate(filters)
        marks = ",".join("?" * len(doc_ids))
        rows = self._rows(
            "SELECT c.id, d.id, abs(d.thread_seq - c.thread_seq) FROM documents c "
            f"{self.dialect.join_in_order} documents d ON d.thread = c.thread AND d.uid != c.uid "
            "AND d.thread_seq BETWEEN c.thread_seq - ? AND c.thread_seq + ? "
            f"WHERE c.id IN ({marks}) AND c.thread IS NOT NULL AND d.workspace_id = ? "
            f"AND {where}",
            (window, window, *doc_ids, self.workspace_id, *params),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def tags(self: SqlStore, filters: Filters) -> list[tuple[str, int]]:
        where, params = self._predicate(filters)
        return [
            (r[0], r[1])
            for r in self._rows(
                "SELECT t.tag, count(*) FROM document_tags t JOIN documents d ON d.id = t.doc_id "
                f"WHERE d.workspace_id = ? AND {where} "
                "GROUP BY t.tag ORDER BY count(*) DESC, t.tag",
                (self.workspace_id, *params),
            )
        ]

    def count_documents(self: SqlStore, filters: Filters, cap: int) -> int:
        """How many documents pass the filters, counting no further than `cap`."""
        where, params = self._predicate(filters)
        return int(
            self._planned_rows(
                "SELECT count(*) FROM (SELECT 1 FROM documents d "
                f"WHERE d.workspace_id = ? AND {where} LIMIT ?)",
                (self.workspace_id, *params, cap),
            )[0][0]
        )

    def counts(self: SqlStore) -> dict[str, Any]:
        by_kind = dict(
            self._rows(
                "SELECT kind, count(*) FROM documents WHERE workspace_id = ? AND valid_to IS NULL "
                "GROUP BY kind",
                (self.workspace_id,),
            )
        )
        by_collection = dict(
            self._rows(
                "SELECT collection, count(*) FROM documents WHERE workspace_id = ? "
                "AND valid_to IS NULL GROUP BY collection",
                (self.workspace_id,),
            )
        )
        chunks, pending = self._rows(
            "SELECT count(*), coalesce(sum(CASE WHEN embedded = 0 THEN 1 ELSE 0 END), 0) "
            "FROM chunks WHERE workspace_id = ?",
            (self.workspace_id,),
        )[0]
        vectors = self._rows(
            "SELECT count(*) FROM chunk_vectors WHERE workspace_id = ?", (self.workspace_id,)
        )[0][0]
        statuses = dict(
            self._rows(
                "SELECT status, count(*) FROM documents WHERE workspace_id = ? "
                "AND valid_to IS NULL GROUP BY status",
                (self.workspace_id,),
            )
        )
        versions = self._rows(
            "SELECT count(*) FROM documents WHERE workspace_id = ? AND valid_to IS NOT NULL",
            (self.workspace_id,),
        )[0][0]
        return {
            "documents": sum(by_kind.values()),
            "by_kind": by_kind,
            "by_collection": by_collection,
            "chunks": chunks,
            "vectors": vectors,
            "pending_embeddings": pending,
            "by_status": statuses,
            "old_versions": versions,
        }
