"""The code index in SQLite: files, symbols, edges, symbol search documents and anchors.

The code index writes thousands of symbols per second, far more than ``Brain.write`` (one
transaction, audit row and embedding per document) can take, so its search documents are
inserted here in bulk into the engine's own ``documents`` and ``chunks`` tables: the FTS
triggers index them at once (the lexical leg sees them on commit) and their chunks are left
``embedded = 0`` for ``Brain.embed_pending`` to fill later. Every method expects to run inside
``Store.transaction()`` when it writes; the caller decides how much one transaction covers.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from ...filters import Filters
from ..code import (
    CODE_COLLECTION,
    DOCS_COLLECTION,
    SYMBOL_SOURCE_PREFIX,
    AnchorRecord,
    AssignRow,
    BulkFile,
    CallRow,
    EdgeRecord,
    FileRecord,
    ImportRow,
    SymbolRecord,
    SymbolRow,
    TextChunkRow,
)
from .migrations import (
    ALIAS_INDEX,
    SESSION_FILES_BACKFILL,
    SESSION_FILES_TRIGGER,
    SYMBOL_TRIGRAM_TITLE,
)
from .store import SqliteStore as Store

if TYPE_CHECKING:
    from ..interface import MemoryStore

_INSERT_SYMBOL = (
    "INSERT INTO code_symbols (file_id, workspace_id, qualified_name, name, kind, parent, "
    "signature, docstring, start_line, end_line, sha256, bases, doc_id) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_EDGE = (
    "INSERT INTO code_edges (id, file_id, workspace_id, kind, source, target, name, receiver, "
    "receiver_kind, expression, module, alias, how, line) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
#: The code tables' secondary indexes (as migrations 3 and 5 made them): dropped for a bulk
#: load and built again after it.
_LOOKUP_INDEXES = (
    ("code_edges_file", "CREATE INDEX IF NOT EXISTS code_edges_file ON code_edges (file_id)"),
    (
        "code_edges_target",
        "CREATE INDEX IF NOT EXISTS code_edges_target ON code_edges (target) "
        "WHERE kind = 'calls' AND target IS NOT NULL",
    ),
    (
        "code_edges_source",
        "CREATE INDEX IF NOT EXISTS code_edges_source ON code_edges (source) WHERE kind = 'calls'",
    ),
    (
        "code_edges_name",
        "CREATE INDEX IF NOT EXISTS code_edges_name ON code_edges (name) WHERE kind = 'calls'",
    ),
    ("code_symbols_file", "CREATE INDEX IF NOT EXISTS code_symbols_file ON code_symbols (file_id)"),
    (
        "code_symbols_name",
        "CREATE INDEX IF NOT EXISTS code_symbols_name ON code_symbols (workspace_id, name)",
    ),
    (
        "code_symbols_doc",
        "CREATE INDEX IF NOT EXISTS code_symbols_doc ON code_symbols (doc_id) "
        "WHERE doc_id IS NOT NULL",
    ),
    ("code_edges_alias", ALIAS_INDEX),
)

#: The trigger that lists a harvested session's changed files (migration 10). Every row
#: inserted into documents runs it, if only to test its WHEN: 40% of a cold index's document
#: inserts. A bulk load drops it with the lookup indexes; putting it back re-lists every
#: session's files, so a session written meanwhile (the harvester) is not missed.
_SESSION_FILES = "document_files_session_ai"
#: The engine's indexes on the tables a cold index fills that enforce nothing (uniqueness
#: stays checked). A bulk load into a store holding fewer documents than it adds drops them
#: too: kept live, they cost a cold index of the standard library about 15% of its inserts;
#: built again after, a sort of every row. Their definitions wait in meta under this key, so
#: the run after an interrupted one builds them again.
_ENGINE_INDEXES = (
    "documents_hash",
    "documents_created",
    "documents_updated",
    "documents_status",
    "chunks_pending",
)
_ENGINE_KEY = "code_bulk_engine_indexes"


_SYMBOL_COLUMNS = (
    "s.qualified_name, s.name, s.kind, f.path, f.language, s.parent, s.signature, s.docstring, "
    "s.start_line, s.end_line, s.sha256, d.uid"
)
_SYMBOL_FROM = (
    "code_symbols s JOIN code_files f ON f.id = s.file_id LEFT JOIN documents d ON d.id = s.doc_id"
)


class CodeStore:
    """The code tables of one workspace's store; shares the Store's connection and lock."""

    def __init__(self, store: MemoryStore) -> None:
        #: the code tables' store (this clone's: always SQLite); anchors are kept with the
        #: notes, which in team mode are in the team's store (see store.team.TeamStore)
        self.store = cast(Store, store.local)
        self.notes: MemoryStore = store
        self.ws = self.store.workspace_id

    # -- low level -----------------------------------------------------------------------

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

    def tune_for_bulk(self) -> None:
        """A larger page cache for this connection: FTS and index inserts touch many pages."""
        self._exec("PRAGMA cache_size = -65536")

    # -- bulk (cold) builds ------------------------------------------------------------------

    def drop_lookup_indexes(self, *, engine: bool = False) -> None:
        """Drop the code tables' secondary indexes for a bulk load (see :meth:`ensure_indexes`).

        Building an index once over loaded rows is a sort; keeping it live is a random b-tree
        insert per row. The session files trigger goes too (see ``_SESSION_FILES``), and with
        ``engine`` the engine's own indexes that enforce nothing (see ``_ENGINE_INDEXES``).
        """
        for name, _ in _LOOKUP_INDEXES:
            self._exec(f"DROP INDEX IF EXISTS {name}")
        self._exec(f"DROP TRIGGER IF EXISTS {_SESSION_FILES}")
        if not engine:
            return
        saved = self._dropped_engine_indexes()
        marks = ",".join("?" * len(_ENGINE_INDEXES))
        for name, sql in self._rows(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ({marks})",
            _ENGINE_INDEXES,
        ):
            saved[name] = sql
            self._exec(f"DROP INDEX {name}")
        self.store.meta_set(_ENGINE_KEY, json.dumps(saved))

    def ensure_indexes(self) -> None:
        """Create the secondary indexes and the session files trigger that a bulk load
        dropped (a no-op when none is missing)."""
        for _, sql in _LOOKUP_INDEXES:
            self._exec(sql)
        missing = self.missing_indexes()
        if _SESSION_FILES in missing:
            self._exec(SESSION_FILES_TRIGGER)
            self._exec(SESSION_FILES_BACKFILL)
        dropped = self._dropped_engine_indexes()
        if dropped:
            for name, sql in dropped.items():
                if name in missing:
                    self._exec(sql)
            self.store.meta_set(_ENGINE_KEY, "")

    def _dropped_engine_indexes(self) -> dict[str, str]:
        """The engine's indexes a bulk load dropped, with their definitions (only those
        named in ``_ENGINE_INDEXES`` and defined by CREATE INDEX: meta is data, not code)."""
        raw = self.store.meta_get(_ENGINE_KEY)
        saved = json.loads(raw) if raw else {}
        return {
            name: sql
            for name, sql in saved.items()
            if name in _ENGINE_INDEXES and sql.startswith(f"CREATE INDEX {name} ON ")
        }

    def document_count(self) -> int:
        """Documents in the store file, of every workspace and version."""
        return int(self._rows("SELECT count(*) FROM documents")[0][0])

    def missing_indexes(self) -> list[str]:
        """The indexes (and the session files trigger) a bulk load dropped."""
        present = {
            r[0]
            for r in self._rows(
                "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') "
                "AND tbl_name IN ('code_edges', 'code_symbols', 'documents', 'chunks')"
            )
        }
        wanted = [name for name, _ in _LOOKUP_INDEXES] + [_SESSION_FILES]
        wanted += list(self._dropped_engine_indexes())
        return [name for name in wanted if name not in present]

    def rebuild_fulltext(self) -> None:
        """Re-derive both FTS indexes from their content (repairs an interrupted bulk load)."""
        self._exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")
        self._exec("INSERT INTO chunks_tri (chunks_tri) VALUES ('rebuild')")

    def index_symbol_chunks(self, first: int, last: int) -> None:
        """Full-text index the symbol chunks with ids first..last (one statement per index)."""
        self._index_symbol_chunks(first, last)

    def checkpoint(self) -> None:
        """Move the write-ahead log into the store file and truncate it (after a bulk load,
        whose large transactions would otherwise leave a log as big as the store). A reader
        that holds an old snapshot makes it give up after a moment rather than wait: the log
        is then truncated by a later checkpoint."""
        with self.store._lock:
            timeout = self._rows("PRAGMA busy_timeout")[0][0]
            self._exec("PRAGMA busy_timeout = 200")
            try:
                self._rows("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._exec(f"PRAGMA busy_timeout = {int(timeout)}")

    def existing_paths(self, paths: Sequence[str]) -> set[str]:
        rows = self._rows_in(
            "SELECT path FROM code_files WHERE workspace_id = ? AND path IN ({marks})",
            paths,
            (self.ws,),
        )
        return {r[0] for r in rows}

    def add_code_files(
        self, files: Sequence[BulkFile], *, tombstoned: set[str], now: float
    ) -> tuple[int, list[list[int]], int, int]:
        """Insert new source files (none of them indexed yet) in a few statements.

        Returns (search documents added, call edge ids per file in the order of its calls,
        first and last id of the symbol chunks inserted, which are not yet full-text indexed:
        the caller puts them in with :meth:`index_symbol_chunks`; -1, -2 when none).
        """
        ws = self.ws
        file_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM code_files")[0][0])
        doc_id, chunk_id = self._next_ids()
        edge_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM code_edges")[0][0])
        first_chunk = chunk_id
        file_rows: list[tuple[Any, ...]] = []
        docs: list[tuple[Any, ...]] = []
        chunks: list[tuple[Any, ...]] = []
        sym_rows: list[tuple[Any, ...]] = []
        imports: list[tuple[Any, ...]] = []
        assigns: list[tuple[Any, ...]] = []
        calls: list[tuple[Any, ...]] = []
        call_ids: list[list[int]] = []
        for f in files:
            file_rows.append((file_id, f.path, f.size, f.mtime_ns, f.sha256, f.language,
                              f.namespace, f.default_export, int(f.has_errors)))  # fmt: skip
            for s in f.symbols:
                own = None
                if s[10] and SYMBOL_SOURCE_PREFIX + s[0] not in tombstoned:
                    own = doc_id
                    doc_id += 1
                    docs.append((own, s[14], s[0], s[11], s[13]))
                    chunks.append((chunk_id, own, s[12], s[10], s[2], s[6], s[7]))
                    chunk_id += 1
                sym_rows.append((file_id, own) + s[:10])
            for imp in f.imports:
                imports.append((edge_id, file_id) + imp)
                edge_id += 1
            for assign in f.assignments:
                assigns.append((edge_id, file_id) + assign)
                edge_id += 1
            call_ids.append(list(range(edge_id, edge_id + len(f.calls))))
            for call in f.calls:
                calls.append((edge_id, file_id) + call)
                edge_id += 1
            file_id += 1
        # Constants go into the statements as literals: a cold index binds millions of
        # values, and each bound value costs more than the row's insert itself.
        w, t = _literal(ws), repr(float(now))
        self._many(
            "INSERT INTO code_files (id, workspace_id, path, size, mtime_ns, sha256, language, "
            f"namespace, default_export, has_errors, indexed_at) VALUES (?1, {w}, ?2, ?3, ?4, "
            f"?5, ?6, ?7, ?8, ?9, {t})",
            file_rows,
        )
        # a symbol's text goes into its chunk only (see DOC_CONTENT)
        self._many(
            "INSERT INTO documents (id, workspace_id, uid, kind, collection, title, content, "
            "content_hash, source_path, metadata, created_at, updated_at, recorded_at, "
            f"valid_from, author) VALUES (?1, {w}, ?2, 'code', {_literal(CODE_COLLECTION)}, ?3, "
            f"'', ?4, {_literal(SYMBOL_SOURCE_PREFIX)} || ?3, ?5, {t}, {t}, {t}, {t}, 'index')",
            docs,
        )
        self._many(
            "INSERT INTO chunks (id, doc_id, workspace_id, title, body, heading, start_line, "
            f"end_line, seq, symbol) VALUES (?1, ?2, {w}, ?3, ?4, ?5, ?6, ?7, 0, 1)",
            chunks,
        )
        # (file_id, doc_id, qualified_name, name, kind, parent, signature, docstring, start,
        #  end, sha256, bases)
        self._many(
            "INSERT INTO code_symbols (file_id, workspace_id, qualified_name, name, kind, parent, "
            "signature, docstring, start_line, end_line, sha256, bases, doc_id) "
            f"VALUES (?1, {w}, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?2)",
            sym_rows,
        )
        edge = (
            "INSERT INTO code_edges (id, file_id, workspace_id, kind, source, target, name, "
            "receiver, receiver_kind, expression, module, alias, how, line) "
        )
        # imports (id, file_id, module, member, alias, line): name is what the statement
        # binds (for display), expression the member as written (NULL: the module itself)
        self._many(
            edge + f"VALUES (?1, ?2, {w}, 'imports', NULL, NULL, coalesce(NULLIF(?5, ''), "
            "CASE WHEN ?4 IS NULL OR ?4 IN ('', '*') THEN ?3 ELSE ?4 END), NULL, NULL, ?4, ?3, "
            "?5, NULL, ?6)",
            imports,
        )
        # assignments (id, file_id, scope, target, value, line)
        self._many(
            edge + f"VALUES (?1, ?2, {w}, 'assigns', ?3, NULL, ?4, NULL, NULL, ?5, NULL, NULL, "
            "NULL, ?6)",
            assigns,
        )
        # calls (id, file_id, caller, callee, name, receiver, receiver_kind, line)
        self._many(
            edge + f"VALUES (?1, ?2, {w}, 'calls', ?3, NULL, ?5, ?6, ?7, ?4, NULL, NULL, "
            "'unresolved', ?8)",
            calls,
        )
        return len(docs), call_ids, first_chunk, chunk_id - 1

    def _next_ids(self) -> tuple[int, int]:
        """Next free ids of documents and chunks (call inside a write transaction)."""
        doc = self._rows("SELECT coalesce(max(id), 0) FROM documents")[0][0]
        chunk = self._rows("SELECT coalesce(max(id), 0) FROM chunks")[0][0]
        return int(doc) + 1, int(chunk) + 1

    # -- files -------------------------------------------------------------------------

    def files(self) -> dict[str, FileRecord]:
        rows = self._rows(
            "SELECT id, path, size, mtime_ns, sha256, language FROM code_files "
            "WHERE workspace_id = ?",
            (self.ws,),
        )
        return {r[1]: FileRecord(*r) for r in rows}

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Same content, new stat: only the stat changes (next time it costs a stat again)."""
        self._exec(
            "UPDATE code_files SET size = ?, mtime_ns = ? WHERE workspace_id = ? AND path = ?",
            (size, mtime_ns, self.ws, path),
        )

    def delete_file(self, path: str) -> None:
        """Remove a file and everything derived from it (documents included)."""
        rows = self._rows(
            "SELECT id, doc_id FROM code_files WHERE workspace_id = ? AND path = ?", (self.ws, path)
        )
        if not rows:
            return
        file_id, doc_id = rows[0]
        docs = [
            r[0]
            for r in self._rows(
                "SELECT doc_id FROM code_symbols WHERE file_id = ? AND doc_id IS NOT NULL",
                (file_id,),
            )
        ]
        if doc_id is not None:
            docs.append(doc_id)
        self._delete_documents(docs)
        self._exec("DELETE FROM code_files WHERE id = ?", (file_id,))

    def _delete_documents(self, doc_ids: Sequence[int]) -> None:
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            self._exec(
                f"DELETE FROM documents WHERE workspace_id = ? AND id IN ({marks})",
                (self.ws, *part),
            )

    def tombstoned(self) -> set[str]:
        """Sources the user deleted (symbol documents and text files stay deleted)."""
        return {t.source for t in self.store.tombstones()}

    def source_owner(self, source_path: str) -> int | None:
        """The current document already using a source path (a user's note, say), if any."""
        rows = self._rows(
            "SELECT id FROM documents WHERE workspace_id = ? AND source_path = ? "
            "AND valid_to IS NULL",
            (self.ws, source_path),
        )
        return rows[0][0] if rows else None

    def replace_code_file(
        self,
        *,
        path: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        language: str,
        namespace: str | None,
        default_export: str | None,
        has_errors: bool,
        symbols: Sequence[SymbolRow],
        imports: Sequence[ImportRow],
        calls: Sequence[CallRow],
        tombstoned: set[str],
        now: float,
        assignments: Sequence[AssignRow] = (),
    ) -> tuple[int, list[int]]:
        """Swap one source file's rows; returns (new search documents, ids of call edges).

        The call edges' ids come back in the order of ``calls``, so the resolver can update
        their targets without reading them back.

        A symbol whose qualified name and text hash are unchanged keeps its document (and so
        its vector and access count): editing one function re-embeds one function.
        """
        existing = self._rows(
            "SELECT id FROM code_files WHERE workspace_id = ? AND path = ?", (self.ws, path)
        )
        reuse: dict[str, int] = {}
        if existing:
            file_id = existing[0][0]
            old_doc = self._rows("SELECT doc_id FROM code_files WHERE id = ?", (file_id,))[0][0]
            old = self._rows(
                "SELECT qualified_name, sha256, doc_id FROM code_symbols WHERE file_id = ?",
                (file_id,),
            )
            new_keys = {(s[0], s[8]) for s in symbols}
            dropped = [doc for q, sha, doc in old if doc is not None and (q, sha) not in new_keys]
            reuse = {q: doc for q, sha, doc in old if doc is not None and (q, sha) in new_keys}
            if old_doc is not None:
                dropped.append(old_doc)
            self._delete_documents(dropped)
            self._exec("DELETE FROM code_symbols WHERE file_id = ?", (file_id,))
            self._exec("DELETE FROM code_edges WHERE file_id = ?", (file_id,))
            self._exec(
                "UPDATE code_files SET size = ?, mtime_ns = ?, sha256 = ?, language = ?, "
                "namespace = ?, default_export = ?, has_errors = ?, doc_id = NULL, "
                "indexed_at = ? WHERE id = ?",
                (size, mtime_ns, sha256, language, namespace, default_export,
                 int(has_errors), now, file_id),
            )  # fmt: skip
        else:
            cursor = self._exec(
                "INSERT INTO code_files (workspace_id, path, size, mtime_ns, sha256, language, "
                "namespace, default_export, has_errors, indexed_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self.ws, path, size, mtime_ns, sha256, language, namespace, default_export,
                 int(has_errors), now),
            )  # fmt: skip
            file_id = int(cursor.lastrowid)
        doc_id, chunk_id = self._next_ids()
        docs: list[tuple[Any, ...]] = []
        chunks: list[tuple[Any, ...]] = []
        moved: list[tuple[int, int, int]] = []
        sym_rows: list[tuple[Any, ...]] = []
        ws = self.ws
        for s in symbols:
            qname = s[0]
            own = reuse.get(qname)
            if own is not None:
                moved.append((s[6], s[7], own))
            elif s[10] and SYMBOL_SOURCE_PREFIX + qname not in tombstoned:
                own = doc_id
                doc_id += 1
                # the text lives in the chunk only (see DOC_CONTENT)
                docs.append((own, ws, s[14], CODE_COLLECTION, qname, "", s[11],
                             SYMBOL_SOURCE_PREFIX + qname, s[13], now, now, now, now))  # fmt: skip
                chunks.append((chunk_id, own, ws, s[12], s[10], s[2], s[6], s[7]))
                chunk_id += 1
            sym_rows.append((file_id, ws, qname, s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
                             s[9], own))  # fmt: skip
        self._insert_documents(docs, chunks)
        if moved:
            self._many("UPDATE chunks SET start_line = ?, end_line = ? WHERE doc_id = ?", moved)
        self._many(_INSERT_SYMBOL, sym_rows)
        edge_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM code_edges")[0][0])
        edges: list[tuple[Any, ...]] = []
        for module, name, alias, line in imports:
            # name: what the import binds (for display); expression: the member as written
            # (NULL: the statement binds the module itself)
            binding = alias or (name if name not in (None, "", "*") else module)
            edges.append((edge_id, file_id, ws, "imports", None, None, binding, None, None, name,
                          module, alias, None, line))  # fmt: skip
            edge_id += 1
        for scope, target, value, line in assignments:
            # the resolver types receivers by these (x = Cls(); x.m())
            edges.append((edge_id, file_id, ws, "assigns", scope, None, target, None, None,
                          value, None, None, None, line))  # fmt: skip
            edge_id += 1
        call_ids = list(range(edge_id, edge_id + len(calls)))
        for caller, callee, name, receiver, receiver_kind, line in calls:
            edges.append((edge_id, file_id, ws, "calls", caller, None, name, receiver,
                          receiver_kind, callee, None, None, "unresolved", line))  # fmt: skip
            edge_id += 1
        self._many(_INSERT_EDGE, edges)
        return len(docs), call_ids

    def replace_text_file(
        self,
        *,
        path: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        title: str,
        content: str,
        content_hash: str,
        chunks: Sequence[TextChunkRow],
        tombstoned: set[str],
        now: float,
    ) -> int:
        """Swap a Markdown/text file's document (kind ``code``, collection ``docs``)."""
        self.delete_file(path)
        cursor = self._exec(
            "INSERT INTO code_files (workspace_id, path, size, mtime_ns, sha256, language, "
            "indexed_at) VALUES (?, ?, ?, ?, ?, NULL, ?)",
            (self.ws, path, size, mtime_ns, sha256, now),
        )
        file_id = int(cursor.lastrowid)
        if path in tombstoned or not chunks or self.source_owner(path) is not None:
            return 0
        doc_id, chunk_id = self._next_ids()
        meta = json.dumps({"path": path}, sort_keys=True)
        docs = [(doc_id, self.ws, secrets.token_hex(6), DOCS_COLLECTION, title, content,
                 content_hash, path, meta, now, now, now, now)]  # fmt: skip
        rows = [
            (chunk_id + i, doc_id, self.ws, title, body, heading, start, end, seq)
            for i, (seq, body, heading, start, end) in enumerate(chunks)
        ]
        self._insert_documents(docs, [])
        # the chunks' triggers write their full-text rows: many rows per statement
        self.store._insert_rows(
            "INSERT INTO chunks (id, doc_id, workspace_id, title, body, heading, start_line, "
            "end_line, seq)",
            rows,
        )
        self._exec("UPDATE code_files SET doc_id = ? WHERE id = ?", (doc_id, file_id))
        return 1

    def _insert_documents(
        self,
        docs: Sequence[tuple[Any, ...]],
        chunks: Sequence[tuple[Any, ...]],
        *,
        fulltext: bool = True,
    ) -> None:
        if docs:
            self._many(
                "INSERT INTO documents (id, workspace_id, uid, kind, collection, title, content, "
                "content_hash, source_path, metadata, created_at, updated_at, recorded_at, "
                "valid_from, author) VALUES (?, ?, ?, 'code', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "'index')",
                docs,
            )
        if chunks:
            self._many(
                "INSERT INTO chunks (id, doc_id, workspace_id, title, body, heading, start_line, "
                "end_line, seq, symbol) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1)",
                chunks,
            )
            if fulltext:
                self._index_symbol_chunks(chunks[0][0], chunks[-1][0])

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

    # -- resolution ------------------------------------------------------------------------

    def graph_files(self) -> list[tuple[Any, ...]]:
        """(id, path, language, namespace, default_export) of every source file."""
        return self._rows(
            "SELECT id, path, language, namespace, default_export FROM code_files "
            "WHERE workspace_id = ? AND language IS NOT NULL",
            (self.ws,),
        )

    def graph_symbols(self) -> list[tuple[Any, ...]]:
        """(file_id, qname, name, kind, parent, signature, docstring, start, end, sha256,
        bases) of every symbol, in id order."""
        return self._rows(
            "SELECT file_id, qualified_name, name, kind, parent, signature, docstring, "
            "start_line, end_line, sha256, bases FROM code_symbols WHERE workspace_id = ? "
            "ORDER BY id",
            (self.ws,),
        )

    def graph_edges(self) -> list[tuple[Any, ...]]:
        """Imports, assignments and calls, by id: (id, file_id, kind, source, name, receiver,
        receiver_kind, expression, module, alias, line, target, how)."""
        return self._rows(
            "SELECT id, file_id, kind, source, name, receiver, receiver_kind, expression, module, "
            "alias, line, target, how FROM code_edges WHERE workspace_id = ? "
            "AND kind IN ('imports', 'calls', 'assigns') ORDER BY id",
            (self.ws,),
        )

    def graph_rows_of(
        self, file_ids: Sequence[int]
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Symbols (as :meth:`graph_symbols`) and imports/assignments (as :meth:`graph_edges`)
        of some files, for a resolver that reads only the files it needs."""
        symbols: list[Any] = []
        edges: list[Any] = []
        for start in range(0, len(file_ids), 500):
            part = list(file_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            symbols.extend(
                self._rows(
                    "SELECT file_id, qualified_name, name, kind, parent, signature, docstring, "
                    "start_line, end_line, sha256, bases FROM code_symbols "
                    f"WHERE file_id IN ({marks}) ORDER BY id",
                    part,
                )
            )
            edges.extend(
                self._rows(
                    "SELECT id, file_id, kind, source, name, receiver, receiver_kind, expression, "
                    "module, alias, line, target, how FROM code_edges "
                    f"WHERE file_id IN ({marks}) AND kind IN ('imports', 'assigns') ORDER BY id",
                    part,
                )
            )
        return symbols, edges

    def interface_of(self, path: str) -> tuple[Any, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """What other files' calls can see of one stored file: ((namespace, default_export)
        or None when the file is not indexed, symbols (qualified name, name, kind, parent,
        bases), imports (module, member, alias))."""
        rows = self._rows(
            "SELECT id, namespace, default_export FROM code_files WHERE workspace_id = ? "
            "AND path = ?",
            (self.ws, path),
        )
        if not rows:
            return None, [], []
        file_id = rows[0][0]
        symbols = self._rows(
            "SELECT qualified_name, name, kind, parent, bases FROM code_symbols WHERE file_id = ?",
            (file_id,),
        )
        imports = self._rows(
            "SELECT module, expression, alias FROM code_edges WHERE file_id = ? "
            "AND kind = 'imports'",
            (file_id,),
        )
        return (rows[0][1], rows[0][2]), symbols, imports

    def calls_to_reresolve(
        self, names: Sequence[str], targets: Sequence[str], skip_files: Sequence[int]
    ) -> list[tuple[Any, ...]]:
        """Call edges named one of ``names`` or resolved to one of ``targets``, outside
        ``skip_files``: (id, file_id, source, name, receiver, receiver_kind, expression, line,
        target, how), in id order."""
        columns = (
            "SELECT id, file_id, source, name, receiver, receiver_kind, expression, line, "
            "target, how FROM code_edges WHERE kind = 'calls' "
        )
        found = {r[0]: r for r in self._rows_in(columns + "AND name IN ({marks})", names)}
        found.update(
            (r[0], r)
            for r in self._rows_in(
                columns + "AND target IN ({marks}) AND target IS NOT NULL", targets
            )
        )
        skip = set(skip_files)
        return [found[k] for k in sorted(found) if found[k][1] not in skip]

    def import_aliases(self, members: Sequence[str]) -> set[str]:
        """Local names other files bind ``members`` to (``from m import f as g``: ``g``)."""
        rows = self._rows_in(
            "SELECT DISTINCT alias FROM code_edges WHERE kind = 'imports' "
            "AND alias IS NOT NULL AND expression IN ({marks})",
            members,
        )
        return {r[0] for r in rows}

    def derived_classes(self) -> list[tuple[str, str, str, str]]:
        """(qualified name, name, kind, bases) of every symbol that has bases."""
        return self._rows(
            "SELECT qualified_name, name, kind, bases FROM code_symbols "
            "WHERE workspace_id = ? AND bases != ''",
            (self.ws,),
        )

    def class_qualified_names(self, names: Sequence[str]) -> set[str]:
        """Qualified names of the class-like symbols called one of ``names``."""
        rows = self._rows_in(
            "SELECT qualified_name FROM code_symbols WHERE workspace_id = ? AND name IN "
            "({marks}) AND kind IN ('class', 'interface', 'struct', 'enum', 'trait', 'module', "
            "'type')",
            names,
            (self.ws,),
        )
        return {r[0] for r in rows}

    def member_names(self, parents: Sequence[str]) -> set[str]:
        rows = self._rows_in("SELECT name FROM code_symbols WHERE parent IN ({marks})", parents)
        return {r[0] for r in rows}

    def set_call_targets(self, updates: Sequence[tuple[str | None, str, int]]) -> None:
        """(target, how, edge id) for the calls whose resolution changed."""
        self._many("UPDATE code_edges SET target = ?, how = ? WHERE id = ?", updates)

    # -- queries ---------------------------------------------------------------------------

    def _symbols(self, where: str, params: Sequence[Any], limit: int = 1000) -> list[SymbolRecord]:
        rows = self._rows(
            f"SELECT {_SYMBOL_COLUMNS} FROM {_SYMBOL_FROM} WHERE s.workspace_id = ? AND ({where}) "
            "ORDER BY f.path, s.start_line LIMIT ?",
            (self.ws, *params, limit),
        )
        return [SymbolRecord(*r) for r in rows]

    def symbol(self, qualified_name: str) -> SymbolRecord | None:
        found = self._symbols("s.qualified_name = ?", (qualified_name,), 1)
        return found[0] if found else None

    def find_symbols(
        self, query: str, kind: str | None = None, limit: int = 200
    ) -> list[SymbolRecord]:
        """By qualified name, ``Class.method`` suffix or bare name; else a name substring."""
        extra, params = ("AND s.kind = ?", [kind]) if kind else ("", [])
        if "::" in query:
            return self._symbols(f"s.qualified_name = ? {extra}", (query, *params), limit)
        if "." in query:
            name = query.rsplit(".", 1)[1]
            return self._symbols(
                f"s.name = ? AND (s.qualified_name LIKE ? ESCAPE '\\' OR "
                f"s.qualified_name LIKE ? ESCAPE '\\') {extra}",
                (name, "%::" + _like(query), "%." + _like(query), *params),
                limit,
            )
        exact = self._symbols(f"s.name = ? {extra}", (query, *params), limit)
        if exact:
            return exact
        return self._symbols(
            f"s.name LIKE ? ESCAPE '\\' {extra}", ("%" + _like(query) + "%", *params), limit
        )

    def callers(self, targets: Sequence[str]) -> list[EdgeRecord]:
        """Resolved calls to any of ``targets``, in path and line order."""
        return self._edges("e.target", targets)

    def callees(self, sources: Sequence[str]) -> list[EdgeRecord]:
        """Calls made directly inside any of ``sources`` (resolved or not), in line order."""
        return self._edges("e.source", sources)

    def top_level_calls(self, path: str) -> list[EdgeRecord]:
        """Calls at the top level of a file (outside any symbol)."""
        rows = self._rows(
            "SELECT e.source, e.target, e.name, e.expression, e.how, f.path, e.line "
            "FROM code_edges e JOIN code_files f ON f.id = e.file_id WHERE e.workspace_id = ? "
            "AND f.path = ? AND e.kind = 'calls' AND e.source IS NULL ORDER BY e.line",
            (self.ws, path),
        )
        return [EdgeRecord(*r) for r in rows]

    def unresolved_calls_named(self, name: str, limit: int = 200) -> list[EdgeRecord]:
        rows = self._rows(
            "SELECT e.source, e.target, e.name, e.expression, e.how, f.path, e.line "
            "FROM code_edges e JOIN code_files f ON f.id = e.file_id "
            "WHERE e.workspace_id = ? AND e.name = ? "
            "AND e.kind = 'calls' AND e.target IS NULL ORDER BY f.path, e.line LIMIT ?",
            (self.ws, name, limit),
        )
        return [EdgeRecord(*r) for r in rows]

    def _edges(self, column: str, keys: Sequence[str]) -> list[EdgeRecord]:
        out: list[EdgeRecord] = []
        keys = list(dict.fromkeys(keys))
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._rows(
                "SELECT e.source, e.target, e.name, e.expression, e.how, f.path, e.line "
                "FROM code_edges e JOIN code_files f ON f.id = e.file_id "
                f"WHERE e.workspace_id = ? AND {column} IN ({marks}) AND e.kind = 'calls' "
                "ORDER BY f.path, e.line",
                (self.ws, *part),
            )
            out.extend(EdgeRecord(*r) for r in rows)
        return out

    def counts(self) -> dict[str, int]:
        """Files, symbols, edges, calls and resolved calls. Each is a plain ``count(*)``
        that SQLite answers from the smallest index (a store holds one workspace): every
        index run ends with these, and grouping the edges by kind scanned them all."""
        files, code_files = self._rows(
            "SELECT count(*), coalesce(sum(language IS NOT NULL), 0) FROM code_files "
            "WHERE workspace_id = ?",
            (self.ws,),
        )[0]
        symbols = self._rows("SELECT count(*) FROM code_symbols")[0][0]
        edges = self._rows("SELECT count(*) FROM code_edges")[0][0]
        calls = self._rows("SELECT count(*) FROM code_edges WHERE kind = 'calls'")[0][0]
        resolved = self._rows(
            "SELECT count(*) FROM code_edges WHERE kind = 'calls' AND target IS NOT NULL"
        )[0][0]
        return {
            "files": int(files),
            "source_files": int(code_files),
            "text_files": int(files) - int(code_files),
            "symbols": int(symbols),
            "edges": int(edges),
            "calls": int(calls),
            "resolved_calls": int(resolved),
        }

    # -- anchors ---------------------------------------------------------------------------

    def add_anchor(
        self, doc_uid: str, path: str, qualified_name: str, sha256: str, now: float
    ) -> None:
        """Anchor a note to a symbol, with the notes (inside the caller's transaction)."""
        self.notes.add_anchor(doc_uid, path, qualified_name, sha256, now)

    def remove_anchor(self, doc_uid: str, qualified_name: str) -> bool:
        return self.notes.remove_anchor(doc_uid, qualified_name)

    def anchors(
        self,
        *,
        qualified_names: Sequence[str] | None = None,
        doc_uid: str | None = None,
        path: str | None = None,
        visible: Filters | None = None,
    ) -> list[AnchorRecord]:
        """Anchors (all, of some symbols, of one note, of one file) with the symbol's hash.

        With `visible`, only the anchors of notes a read with those filters returns, chosen by
        the store's one predicate (`Filters()`: no deleted, retracted or superseded notes);
        without it, every anchor with its note's current status (None once deleted).
        """
        rows = self.notes.anchor_rows(
            qualified_names=qualified_names, doc_uid=doc_uid, path=path, visible=visible
        )
        symbols = self.symbols_now([r[4] for r in rows])
        return [AnchorRecord(*r, symbols[r[4]][0] if r[4] in symbols else None) for r in rows]

    def symbols_now(self, names: Sequence[str]) -> dict[str, tuple[str, int, int]]:
        """sha256, start and end line of this clone's symbols of these qualified names."""
        out: dict[str, tuple[str, int, int]] = {}
        wanted = list(dict.fromkeys(names))
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            for qname, sha, first, last in self._rows(
                "SELECT qualified_name, sha256, start_line, end_line FROM code_symbols "
                f"WHERE qualified_name IN ({','.join('?' * len(part))})",
                part,
            ):
                out[qname] = (sha, first, last)
        return out


def _literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
