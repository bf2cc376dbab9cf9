"""One Store (one connection, one re-entrant lock, and reader connections beside it) shared
by many threads: a transaction is all or nothing to every other thread, even on the very
connection it runs on.

SQLite isolates connections, not threads: a thread reading through the connection another
thread is writing on would see its uncommitted rows. The store's lock is held from BEGIN to
COMMIT, so no other thread runs a statement in between; these tests fail if it were not.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from pathlib import Path

import pytest

from nano_brain.errors import StoreError
from nano_brain.filters import Filters
from nano_brain.store import ChunkRow, Store

from ..threads import run_together

WRITERS = 4
READERS = 3
WRITES = 30


class _Doomed(Exception):
    """Raised inside a transaction to roll it back."""


def _write(store: Store, writer: int, n: int, chunks: int, doomed: bool) -> None:
    now = time.time()
    with store.transaction():
        doc_id = store.insert_document(
            uid=secrets.token_hex(6), kind="note", collection="memory",
            title=f"{'doomed' if doomed else 'kept'} {writer}-{n}", content=f"note {writer}-{n}",
            content_hash=secrets.token_hex(16), source_path=None, metadata={"chunks": chunks},
            created_at=now, updated_at=now, recorded_at=now, valid_from=now,
        )  # fmt: skip
        time.sleep(0.001)  # a reader that could run now would see a note without chunks
        rows = [ChunkRow(i, f"t{i}", f"body {writer} {n} {i}", "", 1, 1) for i in range(chunks)]
        store.replace_chunks(doc_id, rows)
        store.add_tags(doc_id, [f"writer{writer}"])
        store.audit(at=now, actor="cli", action="write", uid=None, details={"n": n})
        if doomed:
            raise _Doomed


@pytest.mark.parametrize("beside", [False, True], ids=["store-connection", "reader"])
def test_no_thread_sees_another_threads_transaction_half_done(tmp_path: Path, beside: bool) -> None:
    """Readers on the store's connection wait for the lock; readers in `reading()` have
    connections of their own and see only committed transactions."""
    store = Store(tmp_path / "b.db", "ws1")
    writing = [WRITERS]
    reads = [0] * READERS

    def write(w: int) -> None:
        for n in range(WRITES):
            try:
                _write(store, w, n, chunks=1 + (w + n) % 5, doomed=n % 5 == 4)
            except _Doomed:
                pass

    def read(r: int) -> None:
        with store.reading() if beside else contextlib.nullcontext():
            _read(r)

    def _read(r: int) -> None:
        while True:
            last = writing[0] == 0  # then this pass sees every write
            for doc in store.list_documents(Filters(), limit=1000):
                assert doc.title.startswith("kept"), doc.title  # rolled back: never seen
                assert len(store.chunks_of(doc.id)) == doc.metadata["chunks"], doc.title
                assert doc.tags == [f"writer{doc.title.split()[1].split('-')[0]}"]
            reads[r] += 1
            if last:
                return

    def work(i: int) -> None:
        if i >= WRITERS:
            read(i - WRITERS)
            return
        try:
            write(i)
        finally:
            with lock:
                writing[0] -= 1

    lock = threading.Lock()
    try:
        run_together(work, WRITERS + READERS)
        assert min(reads) > 1
        kept = store.list_documents(Filters(), limit=1000)
        assert len(kept) == WRITERS * (WRITES - WRITES // 5)
        assert store.integrity_errors() == []
        assert not any(store.integrity_orphans().values())
        assert len(store.audit_rows(limit=1000)) == len(kept)  # rolled back with the rest
    finally:
        store.close()


def test_a_reader_reads_while_a_transaction_holds_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    opened, read_done = threading.Event(), threading.Event()
    seen: list[list[str]] = []

    def write() -> None:
        with store.transaction():
            _insert(store, "uncommitted")
            opened.set()
            # a read through the store's own connection would wait for this lock: it must not
            assert read_done.wait(30), "the reader waited for the writer's transaction"

    def read() -> None:
        assert opened.wait(30)
        assert store.concurrent_reads()  # another thread's transaction is not this one's
        with store.reading():
            seen.append([d.title for d in store.list_documents(Filters(), limit=10)])
        read_done.set()

    try:
        _insert(store, "committed")
        run_together(lambda i: (write, read)[i](), 2, timeout=60)
        assert seen == [["committed"]]
        with store.reading():
            titles = {d.title for d in store.list_documents(Filters(), limit=10)}
        assert titles == {"committed", "uncommitted"}
    finally:
        store.close()


def test_a_reader_connection_cannot_write(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    try:
        with store.reading(), pytest.raises(StoreError, match="readonly|read-only|query_only"):
            store._rows("INSERT INTO meta (key, value) VALUES ('x', 'y') RETURNING key")
        assert store.meta_get("x") is None
    finally:
        store.close()


def test_readers_are_reused_and_few_stay_open(tmp_path: Path) -> None:
    from nano_brain.store import _readers

    store = Store(tmp_path / "b.db", "ws1")
    _insert(store, "committed")
    inside = threading.Barrier(6)
    connections: set[int] = set()

    def read(_: int) -> None:
        with store.reading():
            connections.add(id(store._readers.bound()))
            assert [d.title for d in store.list_documents(Filters())] == ["committed"]
            inside.wait(30)  # six readers open at once

    try:
        run_together(read, 6)
        assert len(connections) == 6
        assert len(store._readers._idle) == _readers.IDLE_READERS
        with store.reading():
            assert id(store._readers.bound()) in connections  # an idle one, not a new one
    finally:
        store.close()
    assert store._readers._idle == []


def _insert(store: Store, title: str) -> None:
    now = time.time()
    with store.transaction():
        store.insert_document(
            uid=secrets.token_hex(6), kind="note", collection="memory", title=title,
            content=title, content_hash=secrets.token_hex(16), source_path=None, metadata={},
            created_at=now, updated_at=now, recorded_at=now, valid_from=now,
        )  # fmt: skip
