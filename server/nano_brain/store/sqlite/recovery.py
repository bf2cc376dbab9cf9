"""Crash recovery of the code index: one index run at a time per store, and what a run
killed mid bulk load left undone (its full-text rows, its lookup indexes)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..code import FULLTEXT_PENDING_KEY
from .code import CodeStore

if TYPE_CHECKING:
    from ..interface import MemoryStore, StoreCore

log = logging.getLogger(__name__)


@contextmanager
def index_run_lock(store: StoreCore, *, wait: bool = True) -> Iterator[bool]:
    """One index run at a time per store, across processes (an editor's sidecar and a CLI
    run may index the same store): a bulk run's unfinished state must not be mistaken for an
    interrupted one. Yields whether the lock is held (without ``wait``: False when a run
    holds it)."""
    try:
        import fcntl
    except ImportError:  # Windows: runs are not serialised across processes
        yield wait
        return
    with open(f"{store.path}.index-lock", "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def recover_interrupted_index(store: MemoryStore) -> bool:
    """Finish what an index run killed mid-way left undone (the full-text rows of a bulk
    load, its lookup indexes), unless a run is under way: that one is unfinished, not
    interrupted. True when something was repaired.

    Every Brain that may write calls this when its store says a bulk load is unfinished, so
    the next process of any kind (not only the next index run) finds whole full-text
    indexes: a search sees every symbol, and deleting a symbol's chunks never asks FTS5 to
    forget rows it never had (which would damage the index).
    """
    with index_run_lock(store, wait=False) as held:
        if not held or store.meta_get(FULLTEXT_PENDING_KEY) != "1":
            return False
        finish_interrupted_load(store)
        return True


def finish_interrupted_load(store: MemoryStore) -> None:
    """Finish what an interrupted bulk run left undone: full-text rows, lookup indexes (the
    caller holds :func:`index_run_lock`)."""
    local = store.local
    code = CodeStore(store)
    if local.meta_get(FULLTEXT_PENDING_KEY) == "1":
        log.info("full-text rows of an interrupted index run: rebuilding the FTS indexes")
        with local.transaction():
            code.rebuild_fulltext()
            local.meta_set(FULLTEXT_PENDING_KEY, "0")
    if code.missing_indexes():
        with local.transaction():
            code.ensure_indexes()
