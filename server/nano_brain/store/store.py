"""All SQL of nano-brain: connection, migrations, documents, chunks, vectors, search legs."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreCorruptError, StoreError, StoreReadOnlyError
from ..filters import DECISION_COLLECTION, DECISION_TAGS, Filters
from . import _file
from ._sqlite import inserted_id, load_vec, sqlite_module
from .consolidation import ConsolidationQueries
from .health import HealthChecks
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .routes import RouteQueries
from .vectors import VectorStore
from .views import ViewQueries

if TYPE_CHECKING:
    import sqlite3

log = logging.getLogger(__name__)

_DOC_COLUMNS = (
    "d.id, d.uid, d.kind, d.collection, d.title, d.content, d.content_hash, d.source_path, "
    "d.metadata, d.created_at, d.updated_at, d.version, d.status, d.status_changed_at, "
    "d.superseded_by, d.valid_from, d.valid_to, d.recorded_at, d.access_count, "
    "d.last_accessed_at, d.pinned, d.author, d.thread, d.thread_seq"
)
# A document's [status, superseded_by, status_changed_at] at a moment, as JSON, from its status
# history: the last change made by then, else the state before its first later change, else
# (it never changed) the row's own. Takes the moment twice.
_STATE_AT = (
    "coalesce("
    "(SELECT json_array(s.status, s.superseded_by, s.at) FROM status_changes s "
    "WHERE s.doc_uid = d.uid AND s.at <= ? ORDER BY s.at DESC, s.id DESC LIMIT 1), "
    "(SELECT json_array(s.prev_status, s.prev_superseded_by, NULL) FROM status_changes s "
    "WHERE s.doc_uid = d.uid AND s.at > ? ORDER BY s.at, s.id LIMIT 1), "
    "json_array(d.status, d.superseded_by, d.status_changed_at))"
)
# The version of a document in force at a moment and known by then. Takes the moment thrice.
_IN_FORCE_AT = "d.recorded_at <= ? AND d.valid_from <= ? AND (d.valid_to IS NULL OR d.valid_to > ?)"
# bm25 column weights: a title hit counts five times a body hit.
BM25_WEIGHTS = (5.0, 1.0)
LEXICAL_TABLES = ("chunks_fts", "chunks_tri")
#: Every full-text index: the two above, and the commits' own (migration 10).
FULLTEXT_TABLES = (*LEXICAL_TABLES, "commits_fts")


@dataclass(slots=True)
class DocumentRow:
    id: int
    uid: str
    kind: str
    collection: str
    title: str
    content: str
    content_hash: str
    source_path: str | None
    metadata: dict[str, Any]
    created_at: float
    updated_at: float
    version: int = 1
    status: str = "active"
    status_changed_at: float | None = None
    superseded_by: str | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    recorded_at: float | None = None
    access_count: int = 0
    last_accessed_at: float | None = None
    pinned: bool = False
    author: str = "cli"
    tags: list[str] = field(default_factory=list)
    thread: str | None = None
    """Notes written one after another by one writer into one collection share a thread."""
    thread_seq: int | None = None


@dataclass(frozen=True, slots=True)
class AuditRow:
    id: int
    at: float
    actor: str
    action: str
    doc_uid: str | None
    title: str | None
    prev_status: str | None
    new_status: str | None
    details: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Tombstone:
    source: str
    doc_uid: str | None
    title: str | None
    created_at: float
    actor: str


@dataclass(frozen=True, slots=True)
class ChunkRow:
    seq: int
    title: str
    body: str
    heading: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Hit:
    """One chunk found by a search leg; `score` is the leg's own (lower bm25, higher cosine)."""

    chunk_id: int
    doc_id: int
    score: float


class Store(ViewQueries, HealthChecks, VectorStore, RouteQueries, ConsolidationQueries):
    """One workspace's SQLite file. Thread-safe: one connection guarded by a lock.

    A store this process may not write is opened read-only: reads work, writes raise
    StoreReadOnlyError (access counting is skipped). Once the file is found damaged the store
    answers nothing more and writes nothing more: every call raises StoreCorruptError (see
    `_file` for how damage is recognised and remembered).
    """

    def __init__(self, path: Path, workspace_id: str, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path)
        self.workspace_id = workspace_id
        self._lock = threading.RLock()
        self._depth = 0
        self._damaged: str | None = None
        self._pruning = False
        self._read_only: str | None = None
        # sqlite3's or sqlean's (the same module built with extensions): typed as sqlite3's
        self._db: sqlite3.Connection = self._connect(busy_timeout_ms)
        try:
            self._migrate()
            self._check_workspace()
        except BaseException:
            self._db.close()
            raise

    # -- connection -------------------------------------------------------------------

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
        try:
            db = sqlite.connect(
                target,
                uri=uri,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_ms / 1000,
            )
        except sqlite.DatabaseError as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
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

    def _prune_allowed(self) -> int:
        return int(self._pruning)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the main file (a copy of the file is then whole)."""
        self._rows("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction (BEGIN IMMEDIATE); nested calls join the outer one.

        SQLite errors leave it as StoreError subclasses, and a rollback that fails (SQLite ends
        the transaction by itself after some errors) never hides the error that caused it.
        """
        sqlite = sqlite_module()
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._check_writable()
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite.DatabaseError as exc:
                if _file.primary_code(exc) in (_file.BUSY, _file.LOCKED):
                    raise StoreError(f"store {self.path} is busy: {exc}") from exc
                raise self._failed(exc) from exc
            self._depth = 1
            try:
                yield
            except BaseException as exc:
                self._rollback()
                if isinstance(exc, sqlite.DatabaseError):
                    raise self._failed(exc) from exc
                raise
            else:
                try:
                    self._db.execute("COMMIT")
                except sqlite.DatabaseError as exc:
                    self._rollback()
                    raise self._failed(exc) from exc
            finally:
                self._depth = 0

    def _rollback(self) -> None:
        if not self._db.in_transaction:
            return
        try:
            self._db.execute("ROLLBACK")
        except sqlite_module().DatabaseError as exc:
            log.warning("store %s: rollback failed: %s", self.path, exc)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        sqlite = sqlite_module()
        with self._lock:
            self._check_usable()
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite.DatabaseError as exc:
                if (
                    isinstance(exc, sqlite.OperationalError)
                    and "fts5" in str(exc).lower()
                    and not _file.is_corruption(exc)
                ):
                    raise  # a query FTS5 cannot parse: the search leg reports it
                raise self._failed(exc) from exc

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        with self._lock:
            self._check_usable()
            try:
                return self._db.execute(sql, params)
            except sqlite_module().DatabaseError as exc:
                raise self._failed(exc) from exc

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

    def _failed(self, exc: Exception) -> StoreError:
        """The StoreError for an SQLite error; a damaged file marks the store damaged."""
        if _file.is_corruption(exc):
            return self._mark_damaged(str(exc))
        if _file.is_suspect(exc):
            problem = self._quick_check()
            if problem:
                return self._mark_damaged(f"{exc}; quick_check: {problem}")
        if _file.primary_code(exc) == _file.READONLY:
            why = self._read_only or "the file system refused the write"
            return StoreReadOnlyError(f"store {self.path} is read-only ({why}): {exc}")
        return StoreError(f"store {self.path}: {exc}")

    def _quick_check(self) -> str:
        """The first problem PRAGMA quick_check finds, or '' when the file is sound (asked
        after errors a damaged file can cause among others)."""
        sqlite = sqlite_module()
        try:
            found = str(self._db.execute("PRAGMA quick_check(1)").fetchone()[0])
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

    # -- documents ------------------------------------------------------------------------

    def find_by_source(self, source_path: str) -> DocumentRow | None:
        return self._one("d.source_path = ?", (source_path,))

    def find_by_hash(self, collection: str, content_hash: str) -> DocumentRow | None:
        return self._one("d.collection = ? AND d.content_hash = ?", (collection, content_hash))

    def find_current(self, uid: str, *, as_of: float | None = None) -> DocumentRow | None:
        """The current version of a document by its public id; with `as_of`, the version in
        force then, with its status then."""
        if as_of is None:
            return self._one("d.uid = ?", (uid,))
        docs = self._documents(
            f"d.uid = ? AND {_IN_FORCE_AT}",
            (uid, as_of, as_of, as_of),
            limit=1,
            all_versions=True,
            as_of=as_of,
        )
        return docs[0] if docs else None

    def get_by_id(self, doc_id: int) -> DocumentRow | None:
        docs = self._documents("d.id = ?", (doc_id,), all_versions=True)
        return docs[0] if docs else None

    def versions(self, uid: str) -> list[DocumentRow]:
        """Every version of a document, oldest first."""
        return self._documents("d.uid = ?", (uid,), all_versions=True, order="d.version")

    def get_many(
        self, doc_ids: Iterable[int], *, content: bool = True, as_of: float | None = None
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

    def _one(self, where: str, params: Sequence[Any]) -> DocumentRow | None:
        docs = self._documents(where, params, limit=1)
        return docs[0] if docs else None

    def _documents(
        self,
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
        columns = _DOC_COLUMNS if content else _DOC_COLUMNS.replace("d.content,", "'',")
        state: tuple[float, ...] = ()
        if as_of is not None:
            columns = columns.replace(
                "d.status, d.status_changed_at, d.superseded_by", f"{_STATE_AT}, NULL, NULL"
            )
            state = (as_of, as_of)
        current = "" if all_versions else " AND d.valid_to IS NULL"
        sql = f"SELECT {columns} FROM documents d WHERE d.workspace_id = ?{current} AND ({where})"
        if order:
            sql += f" ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        rows = self._rows(sql, (*state, self.workspace_id, *params))
        docs = [_document(r, historical=as_of is not None) for r in rows]
        if docs:
            tags = self._tags_of([d.id for d in docs])
            for doc in docs:
                doc.tags = tags.get(doc.id, [])
        return docs

    def _tags_of(self, doc_ids: list[int]) -> dict[int, list[str]]:
        marks = ",".join("?" * len(doc_ids))
        result: dict[int, list[str]] = {}
        for doc_id, tag in self._rows(
            f"SELECT doc_id, tag FROM document_tags WHERE doc_id IN ({marks}) ORDER BY tag", doc_ids
        ):
            result.setdefault(doc_id, []).append(tag)
        return result

    def insert_document(
        self,
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
        cursor = self._exec(
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
        return inserted_id(cursor)

    def update_metadata(self, doc_id: int, metadata: dict[str, Any]) -> None:
        self._exec(
            "UPDATE documents SET metadata = ? WHERE id = ?",
            (json.dumps(metadata, sort_keys=True, default=str), doc_id),
        )

    def close_version(self, doc_id: int, at: float) -> None:
        """Mark a version as replaced (no longer in force) from `at` on."""
        self._exec("UPDATE documents SET valid_to = ? WHERE id = ?", (at, doc_id))

    def set_status(
        self,
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

    def set_pinned(self, uid: str, pinned: bool) -> None:
        self._exec(
            "UPDATE documents SET pinned = ? WHERE uid = ? AND workspace_id = ? "
            "AND valid_to IS NULL",
            (int(pinned), uid, self.workspace_id),
        )

    def track_access(self, uids: Sequence[str], at: float) -> None:
        """Count one access for each document (one statement, one transaction).

        A read-only store is read without counting; a damaged one refuses (StoreCorruptError).
        """
        if not uids or self._read_only is not None:
            return
        marks = ",".join("?" * len(uids))
        with self.transaction():
            self._exec(
                "UPDATE documents SET access_count = access_count + 1, last_accessed_at = ? "
                f"WHERE uid IN ({marks}) AND workspace_id = ? AND valid_to IS NULL",
                (at, *uids, self.workspace_id),
            )

    def delete_document(self, uid: str) -> None:
        """Remove every version of a document and, by cascade, all derived rows."""
        self._exec(
            "DELETE FROM documents WHERE uid = ? AND workspace_id = ?", (uid, self.workspace_id)
        )

    def copy_tags(self, from_doc: int, to_doc: int) -> None:
        self._exec(
            "INSERT OR IGNORE INTO document_tags (doc_id, workspace_id, tag) "
            "SELECT ?, workspace_id, tag FROM document_tags WHERE doc_id = ?",
            (to_doc, from_doc),
        )

    # -- tombstones and audit ----------------------------------------------------------------

    def add_tombstone(
        self, source: str, uid: str | None, title: str | None, at: float, actor: str
    ) -> None:
        self._exec(
            "INSERT OR REPLACE INTO tombstones (workspace_id, source, doc_uid, title, "
            "created_at, actor) VALUES (?, ?, ?, ?, ?, ?)",
            (self.workspace_id, source, uid, title, at, actor),
        )

    def remove_tombstone(self, source: str) -> bool:
        cursor = self._exec(
            "DELETE FROM tombstones WHERE workspace_id = ? AND source = ?",
            (self.workspace_id, source),
        )
        return cursor.rowcount > 0

    def tombstone(self, source: str) -> Tombstone | None:
        rows = self._rows(
            "SELECT source, doc_uid, title, created_at, actor FROM tombstones "
            "WHERE workspace_id = ? AND source = ?",
            (self.workspace_id, source),
        )
        return Tombstone(*rows[0]) if rows else None

    def tombstones(self) -> list[Tombstone]:
        rows = self._rows(
            "SELECT source, doc_uid, title, created_at, actor FROM tombstones "
            "WHERE workspace_id = ? ORDER BY created_at DESC",
            (self.workspace_id,),
        )
        return [Tombstone(*r) for r in rows]

    def audit(
        self,
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

    def audit_rows(self, *, uid: str | None = None, limit: int = 50) -> list[AuditRow]:
        where, params = ("AND doc_uid = ?", [uid]) if uid else ("", [])
        rows = self._rows(
            "SELECT id, at, actor, action, doc_uid, title, prev_status, new_status, details "
            f"FROM audit_log WHERE workspace_id = ? {where} ORDER BY id DESC LIMIT ?",
            (self.workspace_id, *params, limit),
        )
        return [
            AuditRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8])) for r in rows
        ]

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

    # -- storage limits ---------------------------------------------------------------------

    def logical_size(self) -> int:
        """Bytes the store's pages hold (free pages excluded)."""
        pages = self._rows("PRAGMA page_count")[0][0]
        free = self._rows("PRAGMA freelist_count")[0][0]
        size = self._rows("PRAGMA page_size")[0][0]
        return int((pages - free) * size)

    def eviction_candidates(
        self, *, by_access: bool, tier_seconds: float, protect_decisions: bool, limit: int
    ) -> list[DocumentRow]:
        """Current documents in eviction order: never pinned ones, nor active decisions when
        `protect_decisions` (a decision as `filters.is_decision` defines it)."""
        order = "d.created_at, d.id"
        if by_access:
            order = (
                f"CAST(d.created_at / {float(tier_seconds)} AS INTEGER), "
                "d.access_count, d.created_at, d.id"
            )
        where = "d.pinned = 0"
        params: list[str] = []
        if protect_decisions:
            decision, params = _decision_sql()
            where += f" AND NOT (d.status = 'active' AND {decision})"
        return self._documents(where, params, order=order, limit=limit, content=False)

    def add_tags(self, doc_id: int, tags: Iterable[str]) -> None:
        for tag in tags:
            self._exec(
                "INSERT OR IGNORE INTO document_tags (doc_id, workspace_id, tag) VALUES (?, ?, ?)",
                (doc_id, self.workspace_id, tag),
            )

    def replace_chunks(self, doc_id: int, chunks: Sequence[ChunkRow]) -> None:
        """Swap a document's chunks (their index rows and vectors go with them)."""
        self._exec("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
        self._many(
            "INSERT INTO chunks (doc_id, workspace_id, seq, title, body, heading, start_line, "
            "end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
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

    def chunks_of(self, doc_id: int) -> list[tuple[int, ChunkRow]]:
        rows = self._rows(
            "SELECT id, seq, title, body, heading, start_line, end_line FROM chunks "
            "WHERE doc_id = ? ORDER BY seq",
            (doc_id,),
        )
        return [(r[0], ChunkRow(*r[1:])) for r in rows]

    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, tuple[str, int, int]]:
        """Body, start line and end line of each chunk id."""
        ids = list(chunk_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._rows(
            f"SELECT id, body, start_line, end_line FROM chunks WHERE id IN ({marks})", ids
        )
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    _ORDERS = {
        "updated": "d.updated_at DESC, d.id DESC",
        "created": "d.created_at DESC, d.id DESC",
        "accessed": "d.access_count DESC, d.last_accessed_at DESC, d.id DESC",
    }

    def first_chunks(self, doc_ids: Sequence[int]) -> dict[int, int]:
        """The first chunk's id of each document."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = self._rows(
            f"SELECT doc_id, id FROM chunks WHERE seq = 0 AND doc_id IN ({marks})", doc_ids
        )
        return {r[0]: r[1] for r in rows}

    def chunk_texts_of_first(self, doc_ids: Sequence[int]) -> dict[int, str]:
        """The first chunk's body of each document (for short previews)."""
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        rows = self._rows(
            f"SELECT doc_id, body FROM chunks WHERE seq = 0 AND doc_id IN ({marks})", doc_ids
        )
        return {r[0]: r[1] for r in rows}

    def list_documents(
        self, filters: Filters, *, limit: int = 50, offset: int = 0, order: str = "updated"
    ) -> list[DocumentRow]:
        """Documents passing the filters, newest (or most used) first, without content."""
        where, params = self._predicate(filters)
        return self._documents(
            where,
            params,
            limit=limit,
            offset=offset,
            order=self._ORDERS[order],
            content=False,
            all_versions=filters.as_of is not None,
            as_of=filters.as_of,
        )

    def thread_neighbours(
        self, doc_ids: Sequence[int], filters: Filters, window: int
    ) -> list[tuple[int, int, int]]:
        """(document, neighbour, distance): documents of the same thread at most `window`
        places away, each neighbour passing the filters (a neighbour may be no candidate)."""
        if not doc_ids or window < 1:
            return []
        where, params = self._predicate(filters)
        marks = ",".join("?" * len(doc_ids))
        rows = self._rows(
            "SELECT c.id, d.id, abs(d.thread_seq - c.thread_seq) FROM documents c "
            "CROSS JOIN documents d ON d.thread = c.thread AND d.uid != c.uid "
            "AND d.thread_seq BETWEEN c.thread_seq - ? AND c.thread_seq + ? "
            f"WHERE c.id IN ({marks}) AND c.thread IS NOT NULL AND d.workspace_id = ? "
            f"AND {where}",
            (window, window, *doc_ids, self.workspace_id, *params),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def tags(self, filters: Filters) -> list[tuple[str, int]]:
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

    # -- the predicate builder ---------------------------------------------------------------

    def _predicate(self, filters: Filters) -> tuple[str, list[Any]]:
        """SQL over `documents d` for every filter; each leg and each retry uses this one.

        Besides the caller's filters it always decides which versions and statuses are
        visible: the current versions with a default status, or with `as_of`, the versions
        in force then with the status they had then.
        """
        clauses: list[str] = []
        params: list[Any] = []
        allowed = filters.allowed_statuses()
        marks = ",".join("?" * len(allowed))
        if filters.as_of is None:
            # unary + keeps the planner off the status index: nearly every row is visible
            clauses.append(f"d.valid_to IS NULL AND +d.status IN ({marks})")
            params.extend(allowed)
        else:
            clauses.append(f"{_IN_FORCE_AT} AND json_extract({_STATE_AT}, '$[0]') IN ({marks})")
            params.extend([filters.as_of] * 5)
            params.extend(allowed)
        if filters.collections:
            clauses.append(f"d.collection IN ({','.join('?' * len(filters.collections))})")
            params.extend(filters.collections)
        if filters.kinds:
            clauses.append(f"d.kind IN ({','.join('?' * len(filters.kinds))})")
            params.extend(filters.kinds)
        else:  # filters.DEFAULT_KINDS: commits only when asked for
            clauses.append("d.kind != 'commit'")
        for tag in filters.tags:
            # a list from the tag index, not a lookup per document: the planner can then start
            # from the tagged few (count on 100k documents: 83 ms -> 1.2 ms)
            clauses.append("d.id IN (SELECT t.doc_id FROM document_tags t WHERE t.tag = ?)")
            params.append(tag)
        for column, op, value in (
            ("created_at", ">=", filters.created_after),
            ("created_at", "<", filters.created_before),
            ("updated_at", ">=", filters.updated_after),
            ("updated_at", "<", filters.updated_before),
        ):
            if value is not None:
                clauses.append(f"d.{column} {op} ?")
                params.append(value)
        return " AND ".join(clauses), params

    # -- lexical leg ----------------------------------------------------------------------------

    def lexical(
        self,
        table: str,
        match: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
    ) -> list[Hit]:
        """Chunks whose text matches an FTS5 expression, best bm25 first, filters applied.

        ``weights`` are bm25's (title, body) column weights.

        The best few times `limit` matches are ranked inside FTS5 first and only those are
        joined and filtered; when that leaves too few (a selective filter, old versions or
        superseded notes crowding in), the full join runs instead.
        """
        if table not in FULLTEXT_TABLES:
            raise ValueError(table)
        if table != "chunks_fts":  # commits have no trigram rows (migration 10)
            return self._lexical_in(table, match, filters, limit, weights)
        # words: commit chunks are in an index of their own (migration 10)
        kinds = filters.allowed_kinds()
        tables = [t for t, wanted in (("chunks_fts", any(k != "commit" for k in kinds)),
                                      ("commits_fts", "commit" in kinds)) if wanted]  # fmt: skip
        hits = [h for t in tables for h in self._lexical_in(t, match, filters, limit, weights)]
        if len(tables) > 1:
            hits.sort(key=lambda h: h.score)
        return hits[:limit]

    def _lexical_in(
        self,
        table: str,
        match: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]:
        where, params = self._predicate(filters)
        # rank inside FTS5 first, wider when user filters may reject many of the best matches
        widen = 16 if filters.has_user_filters() else 4
        inner = f"ORDER BY score LIMIT {int(limit) * widen}"
        while True:
            rows = self._rows(
                f"SELECT c.id, c.doc_id, f.score FROM (SELECT rowid AS id, "
                f"bm25({table}, {float(weights[0])}, {float(weights[1])}) AS score FROM {table} "
                f"WHERE {table} MATCH ? {inner}) f "
                "CROSS JOIN chunks c ON c.id = f.id CROSS JOIN documents d ON d.id = c.doc_id "
                f"WHERE d.workspace_id = ? AND {where} ORDER BY f.score LIMIT ?",
                (match, self.workspace_id, *params, limit),
            )
            if not inner or len(rows) >= limit:
                break
            matched = self._rows(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? "
                f"LIMIT {int(limit) * widen})",
                (match,),
            )[0][0]
            if matched < limit * widen:
                break  # the inner limit cut nothing off
            inner = ""
        return [Hit(r[0], r[1], r[2]) for r in rows]

    def count_documents(self, filters: Filters, cap: int) -> int:
        """How many documents pass the filters, counting no further than `cap`."""
        where, params = self._predicate(filters)
        return int(
            self._rows(
                "SELECT count(*) FROM (SELECT 1 FROM documents d "
                f"WHERE d.workspace_id = ? AND {where} LIMIT ?)",
                (self.workspace_id, *params, cap),
            )[0][0]
        )

    # -- status -------------------------------------------------------------------------------

    def counts(self) -> dict[str, Any]:
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
            "SELECT count(*), coalesce(sum(embedded = 0), 0) FROM chunks WHERE workspace_id = ?",
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


#: Parts of a migration that depend on the store's state (the vector index exists once a
#: model is recorded, typed by its dimension): run in the migration's transaction after its SQL.
def _migrate_10(store: Store) -> None:
    """Migration 10's steps that depend on the store's state (see migrations._V10)."""
    _allow_commit_kind(store)
    _words_without_commits(store)


def _words_without_commits(store: Store) -> None:
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


def _allow_commit_kind(store: Store) -> None:
    """Migration 10: documents of kind 'commit'. SQLite cannot alter a CHECK, and rebuilding
    `documents` would cascade into every table that references it; widening an IN list
    changes no stored row, which SQLite documents as a change the schema text may take
    directly (lang_altertable.html, "making other kinds of table schema changes"). The schema
    version is bumped so that other open connections read the new schema."""
    old = "CHECK (kind IN ('note', 'session', 'code'))"
    new = "CHECK (kind IN ('note', 'session', 'code', 'commit'))"
    sql = store._rows("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'")
    if not sql or new in sql[0][0]:
        return
    if old not in sql[0][0]:
        raise StoreError(f"store {store.path}: unexpected documents table, cannot add commits")
    version = int(store._rows("PRAGMA schema_version")[0][0])
    store._exec("PRAGMA writable_schema = ON")
    try:
        store._exec(
            "UPDATE sqlite_master SET sql = replace(sql, ?, ?) "
            "WHERE type = 'table' AND name = 'documents'",
            (old, new),
        )
        store._exec(f"PRAGMA schema_version = {version + 1}")
    finally:
        store._exec("PRAGMA writable_schema = OFF")


_MIGRATION_STEPS: dict[int, Callable[[Store], None]] = {
    6: lambda store: None,  # superseded by 8, which rebuilds the k-NN indexes anyway
    8: Store._split_vector_spaces,
    10: _migrate_10,
}


def _document(r: Sequence[Any], *, historical: bool) -> DocumentRow:
    """A DocumentRow from a row of `_DOC_COLUMNS`; `historical` when its status columns hold
    `_STATE_AT` (the state as of a moment) instead."""
    status, changed_at, successor = r[12], r[13], r[14]
    if historical:
        status, successor, changed_at = json.loads(r[12])
    return DocumentRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8]), r[9], r[10], r[11],
        status, changed_at, successor, r[15], r[16], r[17], r[18], r[19], bool(r[20]), r[21],
        thread=r[22], thread_seq=r[23],
    )  # fmt: skip


def _decision_sql() -> tuple[str, list[str]]:
    """SQL over `documents d` for `filters.is_decision`, from the same constants."""
    marks = ",".join("?" * len(DECISION_TAGS))
    return (
        "(d.collection = ? OR EXISTS (SELECT 1 FROM document_tags t WHERE t.doc_id = d.id "
        f"AND t.tag IN ({marks})))",
        [DECISION_COLLECTION, *DECISION_TAGS],
    )


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
