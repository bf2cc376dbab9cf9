"""The SQLite dialect: one workspace's file, its connection, transactions and migrations.
Its lexical leg is in `lexical`, its vectors in `vectors`; the SQL both dialects share is in
`..documents`, `..views` and `..anchors`."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...errors import StoreCorruptError, StoreError, StoreReadOnlyError
from ...filters import KINDS, Filters
from .. import _readers, _transaction
from ..anchors import AnchorQueries
from ..code import FULLTEXT_PENDING_KEY
from ..consolidation import ConsolidationQueries
from ..documents import DocumentQueries
from ..predicate import SQLITE
from ..views import ViewQueries
from . import _file
from ._driver import load_vec, sqlite_module
from ._fts import open_vocabulary
from .health import HealthChecks
from .lexical import FullTextSearch
from .migrations import (
    FULLTEXT_TABLES,
    MIGRATIONS,
    SCHEMA_VERSION,
    SYMBOL_TRIGRAM_TITLE,
)
from .routes import RouteQueries
from .vectors import VectorStore

log = logging.getLogger(__name__)


class SqliteStore(
    _readers.ReadConnections,
    DocumentQueries,
    ViewQueries,
    AnchorQueries,
    FullTextSearch,
    HealthChecks,
    VectorStore,
    RouteQueries,
    ConsolidationQueries,
):
    """One workspace's SQLite file. Thread-safe: one connection guarded by a lock, and
    read-only connections for threads that read beside it (see `_readers`).

    A store this process may not write is opened read-only: reads work, writes raise
    StoreReadOnlyError (access counting is skipped). Once the file is found damaged the store
    answers nothing more and writes nothing more: every call raises StoreCorruptError (see
    `_file` for how damage is recognised and remembered).
    """

    dialect = SQLITE
    #: vec0 applies kind, collection and time filters inside its scan at any selectivity
    knn_filters_in_scan = True
    keeps_history = True

    def __init__(self, path: Path, workspace_id: str, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path)
        self.workspace_id = workspace_id
        self._lock = threading.RLock()
        self._depth = 0
        self._damaged: str | None = None
        self._pruning = False
        self._read_only: str | None = None
        # lexical drivers chosen per filters, and the store state they were counted in
        self._drivers: dict[Filters, tuple[str, list[Any]] | None] = {}
        self._driver_stamp: tuple[int, int] | None = None
        # words' chunk counts, and the store size they were counted at (see term_counts)
        self._term_counts: tuple[dict[str, int], int] = ({}, 0)
        self._busy_timeout_ms = busy_timeout_ms
        self._target: tuple[str, bool] = (str(self.path), False)
        self._db = self._connect(busy_timeout_ms)
        self._readers = _readers.Readers(self._open_reader)
        try:
            self._migrate()
            self._check_workspace()
            open_vocabulary(self._db)
        except BaseException:
            self._db.close()
            raise

    # -- connection -------------------------------------------------------------------

    @property
    def location(self) -> str:
        return str(self.path)

    @property
    def local(self) -> SqliteStore:
        """The store of this clone's code index: this one (see team.TeamStore)."""
        return self

    @property
    def read_only(self) -> bool:
        """Whether this process may only read the store (its file or folder is not writable)."""
        return self._read_only is not None

    def _connect(self, busy_timeout_ms: int) -> Any:
        sqlite = sqlite_module()
        _file.prepare(self.path)
        self._read_only = _file.read_only_reason(self.path)
        _file.check_remembered_damage(self.path)
        if self._read_only is None:
            _file.make_private(self.path)
            target, uri = str(self.path), False
        else:
            target, uri = _file.read_only_uri(self.path), True
            log.info("store %s is read-only: %s", self.path, self._read_only)
        self._target = (target, uri)
        db = self._open(busy_timeout_ms)
        try:
            load_vec(db)
            # Deleting audit rows is allowed only while this returns 1: in this connection,
            # during prune_audit. A connection without the function cannot delete at all.
            db.create_function("nano_brain_audit_prune", 0, self._prune_allowed)
            db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            db.execute("PRAGMA foreign_keys = ON")
            if self._read_only is None:
                db.execute("PRAGMA synchronous = NORMAL")
                mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    log.warning("store %s: journal mode is %s, not wal", self.path, mode)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the schema
        except sqlite.DatabaseError as exc:
            db.close()
            if _file.primary_code(exc) == _file.NOTADB:
                raise StoreCorruptError(_file.not_a_database_message(self.path)) from exc
            if _file.is_corruption(exc):
                raise self._mark_damaged(str(exc)) from exc
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
        return db

    def _open(self, busy_timeout_ms: int) -> Any:
        sqlite = sqlite_module()
        target, uri = self._target
        try:
            return sqlite.connect(
                target,
                uri=uri,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_ms / 1000,
            )
        except sqlite.DatabaseError as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc

    def _open_reader(self) -> Any:
        """A connection that can only read (``query_only``), for `reading()`."""
        self._check_usable()
        db = self._open(self._busy_timeout_ms)
        try:
            load_vec(db)
            db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            open_vocabulary(db)
            db.execute("PRAGMA query_only = ON")
        except sqlite_module().DatabaseError as exc:
            error = self._failed(exc, db)
            db.close()
            raise error from exc
        return db

    def _prune_allowed(self) -> int:
        return int(self._pruning)

    def close(self) -> None:
        self._readers.close()
        with self._lock:
            self._db.close()

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the main file (a copy of the file is then whole)."""
        self._rows("PRAGMA wal_checkpoint(TRUNCATE)")

    def holds_documents(self) -> bool:
        """Whether any document is stored (any workspace, version or kind)."""
        return bool(self._rows("SELECT 1 FROM documents LIMIT 1"))

    def analyze(self) -> None:
        """Bring the query planner's statistics up to date after a bulk load (the tables
        whose statistics SQLite judges stale)."""
        self._rows("PRAGMA optimize")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction (BEGIN IMMEDIATE); nested calls join the outer one.

        SQLite errors leave it as StoreError subclasses, and a rollback that fails (SQLite ends
        the transaction by itself after some errors) never hides the error that caused it.
        """
        sqlite = sqlite_module()

        def begin() -> None:
            self._check_writable()
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite.DatabaseError as exc:
                if _file.primary_code(exc) in (_file.BUSY, _file.LOCKED):
                    raise StoreError(f"store {self.path} is busy: {exc}") from exc
                raise self._failed(exc) from exc

        with _transaction.transaction(
            self, begin, lambda: self._db.execute("COMMIT"), sqlite.DatabaseError
        ):
            yield

    def _rollback(self) -> None:
        if not self._db.in_transaction:
            return
        try:
            self._db.execute("ROLLBACK")
        except sqlite_module().DatabaseError as exc:
            log.warning("store %s: rollback failed: %s", self.path, exc)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        reader = self._readers.bound()
        if reader is not None:
            self._check_usable()
            return self._fetch(reader, sql, params)
        with self._lock:
            self._check_usable()
            return self._fetch(self._db, sql, params)

    # SQLite keeps no generic plans: every statement is planned as `_rows` runs it
    _planned_rows = _rows

    def _fetch(self, db: Any, sql: str, params: Sequence[Any]) -> list[Any]:
        sqlite = sqlite_module()
        try:
            rows: list[Any] = db.execute(sql, params).fetchall()
            return rows
        except sqlite.DatabaseError as exc:
            if (
                isinstance(exc, sqlite.OperationalError)
                and "fts5" in str(exc).lower()
                and not _file.is_corruption(exc)
            ):
                raise  # a query FTS5 cannot parse: the search leg reports it
            raise self._failed(exc, db) from exc

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self._lock:
            self._check_usable()
            try:
                return self._db.execute(sql, params)
            except sqlite_module().DatabaseError as exc:
                raise self._failed(exc) from exc

    def _insert(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._exec(sql, params).lastrowid)

    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._lock:
            self._check_usable()
            try:
                self._db.executemany(sql, rows)
            except sqlite_module().DatabaseError as exc:
                raise self._failed(exc) from exc

    def _check_usable(self) -> None:
        if self._damaged is not None:
            raise StoreCorruptError(self._damaged)

    def _check_writable(self) -> None:
        self._check_usable()
        if self._read_only is not None:
            raise StoreReadOnlyError(
                f"store {self.path} is read-only ({self._read_only}); nothing was written"
            )

    def _failed(self, exc: Exception, db: Any = None) -> StoreError:
        """The StoreError for an SQLite error on `db` (the store's connection unless
        given); a damaged file marks the store damaged."""
        if _file.is_corruption(exc):
            return self._mark_damaged(str(exc))
        if _file.is_suspect(exc):
            problem = self._quick_check(self._db if db is None else db)
            if problem:
                return self._mark_damaged(f"{exc}; quick_check: {problem}")
        if _file.primary_code(exc) == _file.READONLY:
            why = self._read_only or "the file system refused the write"
            return StoreReadOnlyError(f"store {self.path} is read-only ({why}): {exc}")
        return StoreError(f"store {self.path}: {exc}")

    def _quick_check(self, db: Any) -> str:
        """The first problem PRAGMA quick_check finds, or '' when the file is sound (asked
        after errors a damaged file can cause among others)."""
        sqlite = sqlite_module()
        try:
            found = str(db.execute("PRAGMA quick_check(1)").fetchone()[0])
        except sqlite.DatabaseError as exc:
            return str(exc) if _file.is_corruption(exc) else ""
        if found == "ok":
            return ""
        lines = [line for line in found.splitlines() if not line.startswith("***")]
        return (lines or [found])[0][:160]

    def _mark_damaged(self, detail: str) -> StoreCorruptError:
        if self._damaged is None:
            self._damaged = _file.damaged_message(self.path, detail)
            log.info("%s", self._damaged)  # the caller reports it, once
            if self._read_only is None:
                _file.remember_damage(self.path, detail)
        return StoreCorruptError(self._damaged)

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.path} has schema version {version}, newer than this nano-brain "
                f"({SCHEMA_VERSION}); upgrade nano-brain"
            )
        if version == SCHEMA_VERSION:
            return
        if self._read_only is not None:
            raise StoreReadOnlyError(
                f"store {self.path} has schema version {version} and needs an upgrade to "
                f"{SCHEMA_VERSION}, but it is read-only ({self._read_only}): open it once "
                "where it can be written"
            )
        with self.transaction():
            # Another process may have migrated while we waited for the write lock.
            version = self.schema_version()
            for number in range(version + 1, SCHEMA_VERSION + 1):
                log.info("store %s: applying migration %d", self.path, number)
                for statement in _statements(MIGRATIONS[number - 1]):
                    self._db.execute(statement)
                if number in _MIGRATION_STEPS:
                    _MIGRATION_STEPS[number](self)
                self._db.execute(f"PRAGMA user_version = {number}")

    def schema_version(self) -> int:
        return int(self._rows("PRAGMA user_version")[0][0])

    def _check_workspace(self) -> None:
        stored = self.meta_get("workspace_id")
        if stored is None:
            if self._read_only is not None:
                return  # an empty store: nothing in it belongs to another workspace
            with self.transaction():
                if self.meta_get("workspace_id") is None:
                    self.meta_set("workspace_id", self.workspace_id)
        elif stored != self.workspace_id:
            raise StoreError(
                f"store {self.path} belongs to workspace {stored}, not {self.workspace_id}"
            )

    # -- meta ---------------------------------------------------------------------------

    def meta_get(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def meta_set(self, key: str, value: str) -> None:
        self._exec(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def prune_audit(
        self, before: float, *, at: float, actor: str, details: dict[str, Any] | None = None
    ) -> int:
        """Delete audit rows older than `before` and log the prune, in one transaction;
        returns how many were deleted (the log entry's `deleted` detail).

        The audit log's delete trigger lets a delete through only while this connection's
        `nano_brain_audit_prune()` says so, which is nowhere but here.
        """
        with self.transaction():
            self._pruning = True
            try:
                cursor = self._exec(
                    "DELETE FROM audit_log WHERE workspace_id = ? AND at < ?",
                    (self.workspace_id, before),
                )
            finally:
                self._pruning = False
            deleted = int(cursor.rowcount)
            self.audit(
                at=at,
                actor=actor,
                action="prune-log",
                details={**(details or {}), "deleted": deleted},
            )
        return deleted

    def commit_counts(self) -> dict[str, int]:
        """Commits per file path, when commits are memory (kind `commit`, files listed in the
        commit's metadata as `files`); empty before then."""
        if "commit" not in KINDS:
            return {}
        rows = self._rows(
            "SELECT f.value, count(DISTINCT d.uid) FROM documents d, "
            "json_each(d.metadata, '$.files') f WHERE d.workspace_id = ? AND d.kind = 'commit' "
            "AND d.valid_to IS NULL AND json_type(d.metadata, '$.files') = 'array' "
            "AND f.type = 'text' GROUP BY f.value",
            (self.workspace_id,),
        )
        return {r[0]: int(r[1]) for r in rows}

    # -- storage limits ---------------------------------------------------------------------

    def logical_size(self) -> int:
        """Bytes the store's pages hold (free pages excluded)."""
        pages = self._rows("PRAGMA page_count")[0][0]
        free = self._rows("PRAGMA freelist_count")[0][0]
        size = self._rows("PRAGMA page_size")[0][0]
        return int((pages - free) * size)

    def file_size(self) -> int:
        total = 0
        for suffix in ("", "-wal", "-shm"):
            candidate = Path(f"{self.path}{suffix}")
            if candidate.exists():
                total += candidate.stat().st_size
        return total

    def integrity_errors(self) -> list[str]:
        """What SQLite's integrity check and each full-text index's own check find wrong;
        empty when the store is healthy. A diagnostic: it reports damage, it does not mark
        the store damaged, and it runs on a store already marked so."""
        sqlite = sqlite_module()
        errors: list[str] = []
        with self._lock:
            try:
                rows = self._db.execute("PRAGMA integrity_check").fetchall()
                errors += [str(r[0]) for r in rows if r[0] != "ok"]
            except sqlite.DatabaseError as exc:
                errors.append(f"integrity_check: {exc}")
            for table in FULLTEXT_TABLES:
                try:
                    self._db.execute(
                        f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)"
                    )
                except sqlite.DatabaseError as exc:
                    if _file.primary_code(exc) != _file.READONLY:  # the check writes nothing
                        errors.append(f"{table}: {exc}")
        return errors

    def integrity_orphans(self) -> dict[str, int]:
        """Rows whose parent is gone (should always be zero); used by tests and `status`."""
        return {
            "chunks": self._rows(
                "SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id "
                "WHERE d.id IS NULL"
            )[0][0],
            "vectors": self._rows(
                "SELECT count(*) FROM chunk_vectors v LEFT JOIN chunks c ON c.id = v.chunk_id "
                "WHERE c.id IS NULL"
            )[0][0],
            "vec_index": self.vector_index_orphans(),
            "fts": self._rows(
                "SELECT count(*) FROM chunks_fts_docsize s LEFT JOIN chunks c ON c.id = s.id "
                "WHERE c.id IS NULL"
            )[0][0],
            "tags": self._rows(
                "SELECT count(*) FROM document_tags t LEFT JOIN documents d ON d.id = t.doc_id "
                "WHERE d.id IS NULL"
            )[0][0],
        }


def _migrate_10(store: SqliteStore) -> None:
    """Migration 10's steps that depend on the store's state (see migrations._V10)."""
    _allow_commit_kind(store)
    _words_without_commits(store)


def _words_without_commits(store: SqliteStore) -> None:
    """chunks_fts reads its content through a view without the commit chunks, which have an
    index of their own: its 'rebuild' and 'integrity-check' then mean what they say. An FTS5
    table cannot change its content table: it is made again and rebuilt, once."""
    sql = store._rows("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'")
    if sql and "chunks_fts_content" in sql[0][0]:
        return
    store._exec("DROP TABLE IF EXISTS chunks_fts")
    store._exec(
        "CREATE VIEW IF NOT EXISTS chunks_fts_content AS "
        "SELECT id, title, body FROM chunks WHERE symbol != 2"
    )
    store._exec(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, body, "
        "content = 'chunks_fts_content', content_rowid = 'id', "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    store._exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")


def _allow_commit_kind(store: SqliteStore) -> None:
    """Migration 10: documents of kind 'commit'. SQLite cannot alter a CHECK, and rebuilding
    `documents` would cascade into every table that references it; widening an IN list
    changes no stored row, which SQLite documents as a change the schema text may take
    directly (see _rewrite_table_sql)."""
    old = "CHECK (kind IN ('note', 'session', 'code'))"
    new = "CHECK (kind IN ('note', 'session', 'code', 'commit'))"
    sql = store._rows("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'")
    if not sql or new in sql[0][0] or "kind = 'commit'" in sql[0][0]:  # (12 rewrote it)
        return
    if old not in sql[0][0]:
        raise StoreError(f"store {store.path}: unexpected documents table, cannot add commits")
    _rewrite_table_sql(store, {"documents": sql[0][0].replace(old, new)})


_IN_CHECK = re.compile(r"CHECK \((\w+) IN \(((?:'[^']*'(?:,\s*)?)+)\)\)")


def _checks_without_in_lists(store: SqliteStore) -> None:
    """Migration 12: write each table's CHECK (c IN ('a', 'b')) as CHECK (c = 'a' OR c =
    'b'), which accepts and refuses exactly the same values (see migrations._V12)."""

    def _as_or(match: re.Match[str]) -> str:
        column, values = match.group(1), re.findall(r"'[^']*'", match.group(2))
        return "CHECK (" + " OR ".join(f"{column} = {v}" for v in values) + ")"

    tables = store._rows("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
    _rewrite_table_sql(
        store, {name: _IN_CHECK.sub(_as_or, sql) for name, sql in tables if _IN_CHECK.search(sql)}
    )


def _symbol_trigrams_by_name(store: SqliteStore) -> None:
    """Migration 13: the symbol chunks' trigram rows, indexed with their whole title, are
    indexed again with the title's first line (see migrations._V13). A bulk load stopped
    before its full-text rows left them out: the next index run rebuilds the index anyway,
    and deleting rows the index does not hold would corrupt it."""
    pending = store._rows("SELECT value FROM meta WHERE key = ?", (FULLTEXT_PENDING_KEY,))
    if pending and pending[0][0] == "1":
        return
    store._exec(
        "INSERT INTO chunks_tri (chunks_tri, rowid, title, body) "
        "SELECT 'delete', id, title, '' FROM chunks WHERE symbol = 1"
    )
    store._exec(
        "INSERT INTO chunks_tri (rowid, title, body) "
        f"SELECT id, {SYMBOL_TRIGRAM_TITLE.format(t='title')}, '' FROM chunks WHERE symbol = 1"
    )


def _rewrite_table_sql(store: SqliteStore, tables: dict[str, str]) -> None:
    """Give tables new CREATE text that changes no stored row (a CHECK that accepts what the
    old one did). SQLite documents this as a change the schema text may take directly
    (lang_altertable.html, "making other kinds of table schema changes"); rebuilding a
    table would cascade into every table that references it. The schema version is bumped
    so that other open connections read the new schema."""
    if not tables:
        return
    version = int(store._rows("PRAGMA schema_version")[0][0])
    store._exec("PRAGMA writable_schema = ON")
    try:
        for name, sql in tables.items():
            store._exec(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?", (sql, name)
            )
        store._exec(f"PRAGMA schema_version = {version + 1}")
    finally:
        store._exec("PRAGMA writable_schema = OFF")


#: Parts of a migration that depend on the store's state (the vector index exists once a
#: model is recorded, typed by its dimension): run in the migration's transaction after its SQL.
_MIGRATION_STEPS: dict[int, Callable[[SqliteStore], None]] = {
    6: lambda store: None,  # superseded by 8, which rebuilds the k-NN indexes anyway
    8: SqliteStore._split_vector_spaces,
    10: _migrate_10,
    12: _checks_without_in_lists,
    13: _symbol_trigrams_by_name,
    15: SqliteStore._prioritize_chunks,
}


def _statements(script: str) -> Iterator[str]:
    """Split a migration script into statements (trigger bodies kept whole)."""
    sqlite = sqlite_module()
    buf = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--") and not buf.strip():
            continue
        buf += line
        if sqlite.complete_statement(buf):
            if buf.strip():
                yield buf.strip()
            buf = ""
    if buf.strip():
        yield buf.strip()
