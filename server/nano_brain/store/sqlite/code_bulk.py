"""Bulk (cold) builds of the code index in SQLite: thousands of files in a few statements,
its secondary indexes dropped while it loads and built again after."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..code import CODE_COLLECTION, SYMBOL_SOURCE_PREFIX, BulkFile
from ..priority import PENDING, TEST, code_priority
from .code_tables import CodeTables, sql_literal
from .migrations import ALIAS_INDEX, SESSION_FILES_BACKFILL, SESSION_FILES_TRIGGER

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
#: SQLite's own default page cache (2 MB, as a negative size in KiB).
_DEFAULT_CACHE_SIZE = -2000


class CodeBulk(CodeTables):
    """Mixed into CodeStore: bulk loads, and what they drop and put back."""

    def tune_for_bulk(self) -> None:
        """A larger page cache for this connection: FTS and index inserts touch many pages."""
        self._exec("PRAGMA cache_size = -65536")

    def release_memory(self, *, reset_cache: bool) -> None:
        """Free the page cache's pages (a bulk load filled them); with ``reset_cache`` also
        the default cache size again (the load is over; the history pass keeps the larger
        cache, which its writes use)."""
        with self.store._lock:
            if reset_cache:
                self._exec(f"PRAGMA cache_size = {_DEFAULT_CACHE_SIZE}")
            self._exec("PRAGMA shrink_memory")

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
        file_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM code_files")[0][0])
        doc_id, chunk_id = self._next_ids()
        edge_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM code_edges")[0][0])
        rows = _BulkRows(file_id, doc_id, chunk_id, edge_id, self._chunk_state(TEST))
        for f in files:
            rows.add(f, tombstoned)
        self._insert_bulk(rows, now)
        return len(rows.docs), rows.call_ids, chunk_id, rows.chunk_id - 1

    def _insert_bulk(self, rows: _BulkRows, now: float) -> None:
        # Constants go into the statements as literals: a cold index binds millions of
        # values, and each bound value costs more than the row's insert itself.
        w, t = sql_literal(self.ws), repr(float(now))
        self._many(
            "INSERT INTO code_files (id, workspace_id, path, size, mtime_ns, sha256, language, "
            f"namespace, default_export, has_errors, indexed_at) VALUES (?1, {w}, ?2, ?3, ?4, "
            f"?5, ?6, ?7, ?8, ?9, {t})",
            rows.files,
        )
        # a symbol's text goes into its chunk only (see DOC_CONTENT)
        self._many(
            "INSERT INTO documents (id, workspace_id, uid, kind, collection, title, content, "
            "content_hash, source_path, metadata, created_at, updated_at, recorded_at, "
            f"valid_from, author) VALUES (?1, {w}, ?2, 'code', {sql_literal(CODE_COLLECTION)}, ?3, "
            f"'', ?4, {sql_literal(SYMBOL_SOURCE_PREFIX)} || ?3, ?5, {t}, {t}, {t}, {t}, 'index')",
            rows.docs,
        )
        self._many(
            "INSERT INTO chunks (id, doc_id, workspace_id, title, body, heading, start_line, "
            "end_line, seq, symbol, priority, embedded) "
            f"VALUES (?1, ?2, {w}, ?3, ?4, ?5, ?6, ?7, 0, 1, ?8, ?9)",
            rows.chunks,
        )
        # (file_id, doc_id, qualified_name, name, kind, parent, signature, docstring, start,
        #  end, sha256, bases)
        self._many(
            "INSERT INTO code_symbols (file_id, workspace_id, qualified_name, name, kind, parent, "
            "signature, docstring, start_line, end_line, sha256, bases, doc_id) "
            f"VALUES (?1, {w}, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?2)",
            rows.symbols,
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
            rows.imports,
        )
        # assignments (id, file_id, scope, target, value, line)
        self._many(
            edge + f"VALUES (?1, ?2, {w}, 'assigns', ?3, NULL, ?4, NULL, NULL, ?5, NULL, NULL, "
            "NULL, ?6)",
            rows.assigns,
        )
        # calls (id, file_id, caller, callee, name, receiver, receiver_kind, line)
        self._many(
            edge + f"VALUES (?1, ?2, {w}, 'calls', ?3, NULL, ?5, ?6, ?7, ?4, NULL, NULL, "
            "'unresolved', ?8)",
            rows.calls,
        )


@dataclass(slots=True)
class _BulkRows:
    """The rows a bulk load inserts, their ids numbered on from the tables' last."""

    file_id: int
    doc_id: int
    chunk_id: int
    edge_id: int
    test_state: int
    """``embedded`` of a test file's chunks (see CodeTables._chunk_state)."""
    files: list[tuple[Any, ...]] = field(default_factory=list)
    docs: list[tuple[Any, ...]] = field(default_factory=list)
    chunks: list[tuple[Any, ...]] = field(default_factory=list)
    symbols: list[tuple[Any, ...]] = field(default_factory=list)
    imports: list[tuple[Any, ...]] = field(default_factory=list)
    assigns: list[tuple[Any, ...]] = field(default_factory=list)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    call_ids: list[list[int]] = field(default_factory=list)
    """Per file, the ids of its call edges in the order of its calls."""

    def add(self, f: BulkFile, tombstoned: set[str]) -> None:
        """One file's rows; a symbol the user deleted gets no search document."""
        self.files.append((self.file_id, f.path, f.size, f.mtime_ns, f.sha256, f.language,
                           f.namespace, f.default_export, int(f.has_errors)))  # fmt: skip
        tier = code_priority(f.path)
        state = self.test_state if tier == TEST else PENDING
        for s in f.symbols:
            own = None
            if s[10] and SYMBOL_SOURCE_PREFIX + s[0] not in tombstoned:
                own = self.doc_id
                self.doc_id += 1
                self.docs.append((own, s[14], s[0], s[11], s[13]))
                row = (self.chunk_id, own, s[12], s[10], s[2], s[6], s[7], tier, state)
                self.chunks.append(row)
                self.chunk_id += 1
            self.symbols.append((self.file_id, own) + s[:10])
        for imp in f.imports:
            self.imports.append((self.edge_id, self.file_id) + imp)
            self.edge_id += 1
        for assign in f.assignments:
            self.assigns.append((self.edge_id, self.file_id) + assign)
            self.edge_id += 1
        self.call_ids.append(list(range(self.edge_id, self.edge_id + len(f.calls))))
        for call in f.calls:
            self.calls.append((self.edge_id, self.file_id) + call)
            self.edge_id += 1
        self.file_id += 1
