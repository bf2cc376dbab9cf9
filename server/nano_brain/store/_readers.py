"""Read-only connections beside a store's own, so that one search reads on two threads at once
(its vector leg while its lexical leg runs, see `search.SearchPipeline`).

A store's own connection is guarded by its lock and serves everything else, writes included.
A thread inside `Readers.reading()` has a reader connection of its own for the block: the
store's read helpers (`_rows` and friends) use it instead of taking the lock. Readers see what
is committed, never another thread's open transaction, which is why a search inside a write
transaction reads on its own thread only (`owns_transaction`). Each dialect opens its readers
so that they cannot write (SQLite ``query_only``, PostgreSQL read-only transactions).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: Reader connections kept open between searches; more are opened under load and closed
#: after use.
IDLE_READERS = 2


class _Locked(Protocol):
    _lock: threading.RLock
    _depth: int


def owns_transaction(store: _Locked) -> bool:
    """Whether the calling thread is inside the store's write transaction."""
    # the lock is reentrant: a thread that gets it without waiting either holds it already
    # (and then `_depth` says whether that is a transaction) or nobody does (depth 0)
    if not store._lock.acquire(blocking=False):
        return False
    try:
        return store._depth > 0
    finally:
        store._lock.release()


class ReadConnections:
    """Mixed into each dialect's store, which sets `_readers` and keeps `_lock`/`_depth`."""

    _readers: Readers
    _lock: threading.RLock
    _depth: int

    def reading(self) -> AbstractContextManager[None]:
        """Reads by this thread in the block run on a read-only connection of their own,
        beside the store's (they see committed rows only)."""
        return self._readers.reading()

    def concurrent_reads(self) -> bool:
        """Whether other threads may read for this one now: not inside its own write
        transaction, whose rows no other connection sees yet."""
        return not owns_transaction(self)


class Readers:
    """A small pool of read-only connections, one bound to each thread inside `reading()`."""

    def __init__(
        self,
        open_reader: Callable[[], Any],
        usable: Callable[[Any], bool] = lambda db: True,
    ) -> None:
        self._open = open_reader
        self._usable = usable
        self._idle: list[Any] = []
        self._guard = threading.Lock()
        self._bound = threading.local()
        self._closed = False

    def bound(self) -> Any | None:
        """The calling thread's reader connection inside `reading()`, else None."""
        return getattr(self._bound, "db", None)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads by this thread in the block go to a reader connection of its own."""
        if self.bound() is not None:
            yield  # nested: keep the one already bound
            return
        with self._guard:
            db = self._idle.pop() if self._idle else None
        if db is None:
            db = self._open()
        self._bound.db = db
        try:
            yield
        finally:
            self._bound.db = None
            self._release(db)

    def _release(self, db: Any) -> None:
        with self._guard:
            keep = not self._closed and len(self._idle) < IDLE_READERS and self._usable(db)
            if keep:
                self._idle.append(db)
        if not keep:
            _close(db)

    def close(self) -> None:
        """Close the idle readers; those in use close when their block ends."""
        with self._guard:
            self._closed = True
            idle, self._idle = self._idle, []
        for db in idle:
            _close(db)


def _close(db: Any) -> None:
    try:
        db.close()
    except Exception as exc:  # a reader that will not close is gone either way
        log.debug("closing a reader connection: %s", exc)
