"""The PostgreSQL dialect: a team's memory in a shared database, one connection per store.

Many workspaces share the database; each store works in one (`nano_brain.workspace`, which
row-level security checks on every row, see `schema`). Several sidecars, MCP servers and
CLIs on several machines write at once: a write transaction first takes the workspace's
advisory lock, so the writers of one workspace take turns exactly as SQLite's writers do (a
document's idempotency check, version numbering and status history stay consistent), while
readers never wait.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ... import dburl
from ...errors import StoreError, StoreReadOnlyError
from ...filters import Filters
from .. import _readers, _transaction
from ..anchors import AnchorQueries
from ..consolidation import ConsolidationQueries
from ..documents import DocumentQueries
from ..predicate import POSTGRES
from ..rows import AuditRow
from ..views import ViewQueries
from . import _connect
from .lexical import Lexical
from .schema import MIGRATIONS, SCHEMA_VERSION, STEPS, WORKSPACE_TABLES
from .vectors import PostgresVectors

log = logging.getLogger(__name__)

_CHUNK_COUNT_AGE = 60.0


@functools.lru_cache(maxsize=2048)
def _sql(statement: str) -> str:
    """A statement written with ``?`` placeholders in psycopg's ``%s`` style."""
    return statement.replace("%", "%%").replace("?", "%s")


# a list of placeholders (``IN (?,?,?)``), or one placeholder
_MARKS = re.compile(r"\b(NOT )?IN \((\?(?:, ?\?)*)\)|\?")
_ARRAY_TYPES = ((bool, None), (int, "bigint[]"), (float, "float8[]"), (str, "text[]"))


def _arrays(statement: str, params: Sequence[Any]) -> tuple[str, Sequence[Any]]:
    """The statement with each ``IN (?,...)`` list of ints, floats or strings bound as one
    array (``= ANY(?)``): the text no longer depends on how many values there are, so
    psycopg converts it once and the server prepares it once (as lists of ids, a query's
    varying lengths were parsed and planned anew each time: 1.3 ms of client CPU each)."""
    if "IN (?" not in statement:
        return statement, params
    pieces, lists = _in_lists(statement)
    text = [pieces[0]]
    out: list[Any] = []
    at = 0
    for (start, n, operator), piece in zip(lists, pieces[1:], strict=True):
        values = list(params[start : start + n])
        kind = _array_type(values)
        if kind is None:  # mixed or other types: bound one by one, as written
            return statement, params
        out.extend(params[at:start])
        out.append(values)
        at = start + n
        text += (f"{operator}(?::{kind})", piece)
    out.extend(params[at:])
    return "".join(text), out


@functools.lru_cache(maxsize=512)
def _in_lists(statement: str) -> tuple[list[str], list[tuple[int, int, str]]]:
    """The text around each ``IN (?,...)`` list, and each list's first parameter, length
    and array operator."""
    pieces: list[str] = []
    lists: list[tuple[int, int, str]] = []
    at = index = 0
    for mark in _MARKS.finditer(statement):
        if mark.group(2) is None:
            index += 1
            continue
        n = mark.group(2).count("?")
        pieces.append(statement[at : mark.start()])
        lists.append((index, n, "<> ALL" if mark.group(1) else "= ANY"))
        at = mark.end()
        index += n
    pieces.append(statement[at:])
    return pieces, lists


def _array_type(values: list[Any]) -> str | None:
    """The array type the values bind as, if they are all of one (ints, floats, strings)."""
    for python, sql in _ARRAY_TYPES:
        if all(type(v) is python for v in values):
            return sql
    return None


class PostgresStore(
    _readers.ReadConnections,
    DocumentQueries,
    ViewQueries,
    AnchorQueries,
    Lexical,
    PostgresVectors,
    ConsolidationQueries,
):
    """One workspace's memory in a PostgreSQL database. Thread-safe: one connection guarded
    by a lock, and read-only connections for threads that read beside it, as the SQLite
    store."""

    dialect = POSTGRES
    #: an IVFFlat or HNSW scan applies filters to what it finds: one that few documents pass
    #: makes the iterative scan read most of the index (280 ms at 100k for a filter none
    #: pass), so such filters are counted first and answered by an exact scan
    knn_filters_in_scan = False
    keeps_history = False  # a clone's git history is per clone (store/commits.py)

    def __init__(
        self,
        url: str,
        workspace_id: str,
        *,
        path: Path,
        user: str | None = None,
        vector_index: str = "ivfflat",
        timeout_ms: int = 10_000,
    ) -> None:
        self.url = dburl.check_url(url)
        self.workspace_id = workspace_id
        self.path = Path(path)
        self.user = user
        self.vector_index = vector_index
        self._owner: bool | None = None
        self._lock = threading.RLock()
        self._depth = 0
        self._timeout_ms = timeout_ms
        self._chunk_count: tuple[int, float] = (0, -_CHUNK_COUNT_AGE)
        # documents some filters pass, and when counted (Lexical._few_pass)
        self._pass_counts: dict[Filters, tuple[int, float]] = {}
        self._counts_lock = threading.Lock()
        self._readers = _readers.Readers(self._open_reader, lambda db: not db.closed)
        self._db = _connect.connect(self.url, timeout_s=timeout_ms / 1000)
        try:
            self._start_session(self._db)
            self._migrate()
            _connect.register_vector(self._db)
            self._tune_vector_scans(self._db)
        except BaseException:
            self._db.close()
            raise

    # -- connection ---------------------------------------------------------------------

    @property
    def location(self) -> str:
        return dburl.shown(self.url)

    @property
    def read_only(self) -> bool:
        return False

    def _start_session(self, db: Any) -> None:
        # the workspace row-level security admits, and the person the audit log names
        db.execute(
            "SELECT set_config('nano_brain.workspace', %s, false), "
            "set_config('nano_brain.person', %s, false)",
            (self.workspace_id, self.user or ""),
        )
        db.execute(f"SET lock_timeout = {int(self._timeout_ms)}")

    def _open_reader(self) -> Any:
        """A connection whose transactions are read-only, for `reading()`."""
        import psycopg

        db = _connect.connect(self.url, timeout_s=self._timeout_ms / 1000)
        try:
            self._start_session(db)
            db.execute("SET default_transaction_read_only = on")
            _connect.register_vector(db)
            self._tune_vector_scans(db)
        except psycopg.Error as exc:
            db.close()
            raise self._failed(exc) from exc
        return db

    def close(self) -> None:
        self._readers.close()
        with self._lock:
            self._db.close()

    def checkpoint(self) -> None:
        """Nothing to fold: the server keeps its own log."""

    def analyze(self) -> None:
        """Bring the planner's statistics of the memory tables up to date after a bulk load.

        Until autovacuum gets to it (a minute or more), a workspace just copied in is
        planned with the statistics from before: LoCoMo's 2,760 notes, copied with `store
        migrate`, answered a query in 67 ms at p50, and in 17.5 ms once analyzed. The app
        role may analyze with PostgreSQL 17's MAINTAIN privilege (`schema.grant_sql`); on an
        older server this is skipped with a notice and autovacuum catches up."""
        tables = ", ".join(t for t in WORKSPACE_TABLES if t != "audit_log")
        self._exec(f"ANALYZE {tables}")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction holding the workspace's advisory lock; nested calls join the
        outer one."""
        import psycopg

        def begin() -> None:
            try:
                self._db.execute("BEGIN")
                self._db.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended(%s, 7477))",
                    (self.workspace_id,),
                )
            except psycopg.Error as exc:
                self._rollback()
                raise self._failed(exc) from exc

        with _transaction.transaction(
            self, begin, lambda: self._db.execute("COMMIT"), psycopg.Error
        ):
            yield

    def _rollback(self) -> None:
        import psycopg

        try:
            self._db.execute("ROLLBACK")
        except psycopg.Error as exc:
            log.warning("store %s: rollback failed: %s", self.location, exc)

    def _run(
        self,
        statement: str,
        params: Sequence[Any],
        binary: bool = False,
        prepare: bool | None = None,
    ) -> Any:
        import psycopg

        statement, params = _arrays(statement, params)
        reader = self._readers.bound()
        if reader is not None:  # autocommit and read-only: nothing to roll back
            try:
                return reader.execute(
                    _sql(statement), tuple(params), binary=binary, prepare=prepare
                )
            except psycopg.Error as exc:
                raise self._failed(exc) from exc
        with self._lock:
            try:
                return self._db.execute(
                    _sql(statement), tuple(params), binary=binary, prepare=prepare
                )
            except psycopg.Error as exc:
                if self._depth == 0 and self._db.info.transaction_status:
                    self._rollback()
                raise self._failed(exc) from exc

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        cursor = self._run(sql, params)
        return cursor.fetchall() if cursor.description else []

    def _planned_rows(
        self, sql: str, params: Sequence[Any] = (), *, binary: bool = False
    ) -> list[Any]:
        """As `_rows`, planned for these parameters every time: never a prepared statement,
        whose generic plan cannot know how selective a kind or a lexeme is (a team store's
        "any commit?" became a scan of every document; a time filter's count, every
        document of the workspace). `binary` as in `_binary_rows`."""
        cursor = self._run(sql, params, binary=binary, prepare=False)
        return cursor.fetchall() if cursor.description else []

    def _binary_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """As `_rows`, the results in binary: vectors arrive as floats, not as text to
        parse (ten times faster for the candidates a search rescores)."""
        cursor = self._run(sql, params, binary=True)
        return cursor.fetchall() if cursor.description else []

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._run(sql, params)

    def _insert(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._run(sql + " RETURNING id", params).fetchone()[0])

    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        import psycopg

        with self._lock:
            try:
                with self._db.cursor() as cursor:
                    cursor.executemany(_sql(sql), [tuple(r) for r in rows])
            except psycopg.Error as exc:
                raise self._failed(exc) from exc

    def _failed(self, exc: Exception) -> StoreError:
        import psycopg

        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, psycopg.errors.InsufficientPrivilege):
            if "audit_log" in first:
                return StoreError(f"store {self.location}: the audit log is append-only ({first})")
            return StoreReadOnlyError(f"store {self.location}: {first}")
        return StoreError(f"store {self.location}: {first}")

    # -- schema -------------------------------------------------------------------------

    def schema_version(self) -> int:
        rows = self._rows("SELECT to_regclass('nb_schema') IS NOT NULL")
        if not rows[0][0]:
            return 0
        return int(self._rows("SELECT coalesce(max(version), 0) FROM nb_schema")[0][0])

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.location} has schema version {version}, newer than this "
                f"nano-brain ({SCHEMA_VERSION}); upgrade nano-brain"
            )
        if version == SCHEMA_VERSION:
            return
        migrate(self._db, self.location)

    # -- meta -----------------------------------------------------------------------------

    def meta_get(self, key: str) -> str | None:
        rows = self._rows(
            "SELECT value FROM meta WHERE workspace_id = ? AND key = ?", (self.workspace_id, key)
        )
        return rows[0][0] if rows else None

    def meta_set(self, key: str, value: str) -> None:
        self._exec(
            "INSERT INTO meta (workspace_id, key, value) VALUES (?, ?, ?) "
            "ON CONFLICT (workspace_id, key) DO UPDATE SET value = excluded.value",
            (self.workspace_id, key, value),
        )

    # -- audit ----------------------------------------------------------------------------

    def prune_audit(
        self, before: float, *, at: float, actor: str, details: dict[str, Any] | None = None
    ) -> int:
        """Delete this workspace's audit rows older than `before` and log the prune, in one
        transaction (through nb_prune_audit: the app role may not delete them itself)."""
        with self.transaction():
            rows = self._rows(
                "SELECT nb_prune_audit(?, ?, ?, ?)",
                (before, at, actor, json.dumps(details or {}, sort_keys=True, default=str)),
            )
        return int(rows[0][0])

    def _workspace_chunks(self) -> int:
        """About how many chunks the workspace holds (counted again after a minute): small
        workspaces beside large ones are read by key, not through shared indexes."""
        now = time.monotonic()
        count, at = self._chunk_count
        if now - at > _CHUNK_COUNT_AGE:
            count = int(
                self._rows(
                    "SELECT coalesce(max(chunks), 0) FROM chunk_stats WHERE workspace_id = ?",
                    (self.workspace_id,),
                )[0][0]
            )
            self._chunk_count = (count, now)
        return count

    def thread_neighbours(
        self, doc_ids: Sequence[int], filters: Filters, window: int
    ) -> list[tuple[int, int, int]]:
        """As the shared one, but each thread window is looked up in the thread index: a
        lateral subquery that the planner may not flatten (OFFSET 0); a plain join on the
        thread hashed the whole workspace."""
        if not doc_ids or window < 1:
            return []
        where, params = self._predicate(filters)
        rows = self._rows(
            "SELECT c.id, n.id, abs(n.thread_seq - c.thread_seq) FROM documents c "
            "CROSS JOIN LATERAL (SELECT d.id, d.thread_seq FROM documents d "
            "WHERE d.workspace_id = c.workspace_id AND d.thread = c.thread "
            "AND d.thread_seq BETWEEN c.thread_seq - ? AND c.thread_seq + ? "
            f"AND d.uid != c.uid AND {where} OFFSET 0) n "
            "WHERE c.id = ANY(?) AND c.thread IS NOT NULL AND c.workspace_id = ?",
            (window, window, *params, list(doc_ids), self.workspace_id),
        )
        return [(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    def audit_rows(self, *, uid: str | None = None, limit: int = 50) -> list[AuditRow]:
        """As the shared one, with the person who made each change (as they said) and the
        database role it came from (as the server knows it)."""
        where, params = ("AND doc_uid = ?", [uid]) if uid else ("", [])
        rows = self._rows(
            "SELECT id, at, actor, action, doc_uid, title, prev_status, new_status, details, "
            f"person, db_role FROM audit_log WHERE workspace_id = ? {where} "
            "ORDER BY id DESC LIMIT ?",
            (self.workspace_id, *params, limit),
        )
        return [
            AuditRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8]),
                     person=r[9] or None, role=r[10] or None)
            for r in rows
        ]  # fmt: skip

    # -- sizes and health -------------------------------------------------------------------

    def logical_size(self) -> int:
        """Bytes of this workspace's documents and chunks (text and vectors), as stored."""
        docs = self._rows(
            "SELECT coalesce(sum(pg_column_size(d.*)), 0) FROM documents d "
            "WHERE d.workspace_id = ?",
            (self.workspace_id,),
        )[0][0]
        chunks = self._rows(
            "SELECT coalesce(sum(pg_column_size(c.*)), 0) FROM chunks c WHERE c.workspace_id = ?",
            (self.workspace_id,),
        )[0][0]
        vectors = self._rows(
            "SELECT coalesce(sum(pg_column_size(v.*)), 0) FROM chunk_vectors v "
            "WHERE v.workspace_id = ?",
            (self.workspace_id,),
        )[0][0]
        return int(docs) + int(chunks) + int(vectors)

    def file_size(self) -> int:
        return self.logical_size()

    def integrity_problems(self, limit: int = 10) -> list[str]:
        """The server checks its own pages; nothing for nano-brain to check."""
        return []

    def fulltext_problems(self) -> dict[str, str]:
        """The full-text columns are generated by the server: they cannot drift."""
        return {}

    def rebuild_fulltext(self) -> None:
        """Nothing to rebuild (see fulltext_problems)."""

    def integrity_orphans(self) -> dict[str, int]:
        """Rows whose parent is gone (foreign keys make these zero; tests check it)."""
        return {
            "chunks": 0,
            "vectors": self._rows(
                "SELECT count(*) FROM chunk_vectors v LEFT JOIN chunks c ON c.id = v.chunk_id "
                "WHERE c.id IS NULL AND v.workspace_id = ?",
                (self.workspace_id,),
            )[0][0],
            "vec_index": 0,
            "fts": 0,
            "tags": 0,
        }

    def commit_counts(self) -> dict[str, int]:
        """Commits per file path (kind `commit`, files in its metadata as `files`)."""
        rows = self._rows(
            "SELECT f.value, count(DISTINCT d.uid) FROM documents d, "
            "jsonb_array_elements_text(CASE WHEN jsonb_typeof(d.metadata::jsonb -> 'files') "
            "= 'array' THEN d.metadata::jsonb -> 'files' ELSE '[]'::jsonb END) f(value) "
            "WHERE d.workspace_id = ? AND d.kind = 'commit' AND d.valid_to IS NULL "
            "GROUP BY f.value",
            (self.workspace_id,),
        )
        return {r[0]: int(r[1]) for r in rows}

    def count_rows(self, filters: Filters) -> int:  # pragma: no cover - debugging aid
        where, params = self._predicate(filters)
        return int(
            self._rows(
                f"SELECT count(*) FROM documents d WHERE d.workspace_id = ? AND {where}",
                (self.workspace_id, *params),
            )[0][0]
        )


def migrate(conn: Any, location: str, *, to: int = SCHEMA_VERSION) -> None:
    """Bring the database's schema to SCHEMA_VERSION (tests: to an earlier version `to`), in
    one transaction (run by the owner; another process migrating at the same time waits on
    the lock)."""
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(7477)")
            conn.execute("CREATE TABLE IF NOT EXISTS nb_schema (version integer NOT NULL)")
            version = int(
                conn.execute("SELECT coalesce(max(version), 0) FROM nb_schema").fetchone()[0]
            )
            for number in range(version + 1, to + 1):
                log.info("store %s: applying migration %d", location, number)
                conn.execute(MIGRATIONS[number - 1])
                if number in STEPS:
                    conn.execute(STEPS[number])
                conn.execute("INSERT INTO nb_schema (version) VALUES (%s)", (number,))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(
            f"store {location} needs its schema created or upgraded to version "
            f"{SCHEMA_VERSION}, which this role may not do: run `nano-brain store init` as "
            f"the database's owner ({str(exc).strip().splitlines()[0]})"
        ) from None
    except psycopg.Error as exc:
        raise StoreError(f"store {location}: migration failed: {exc}") from None
