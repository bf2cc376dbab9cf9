"""Past versions of files parsed ahead, in a small process pool, while the log is read.

Which versions need a parse is mostly known from a commit alone (a deleted file, removed
lines that may hold a definition the diff cannot carry, the first version of a path met):
the indexer reads the log a few dozen commits ahead (:func:`ahead`) and the pool parses
those versions while the commits before them are mapped and written. A version parsed ahead
and then not needed (its symbols came from the cache after all) only cost a worker's time.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar

from ..codeindex.walk import DEFAULT_MAX_BYTES
from ..procpool import pool_context
from ._git import BlobReader, Git
from ._symbols import Span, spans_of

log = logging.getLogger(__name__)

T = TypeVar("T")
#: Commits read ahead of the one being mapped.
LOOKAHEAD = 64


def ahead(items: Iterable[T], plan: Callable[[T], None], depth: int = LOOKAHEAD) -> Iterator[T]:
    """``items`` as they are, each passed to ``plan`` ``depth`` items before it is yielded."""
    waiting: deque[T] = deque()
    for item in items:
        plan(item)
        waiting.append(item)
        if len(waiting) > depth:
            yield waiting.popleft()
    yield from waiting


class ParsePool:
    """Blobs parsed in worker processes: submit now, take the spans later."""

    def __init__(self, root: Path, workers: int) -> None:
        self._pool = ProcessPoolExecutor(
            workers,
            mp_context=pool_context(__name__),
            initializer=_init_worker,
            initargs=(str(root),),
        )
        self._pending: dict[str, Future[list[Span] | None]] = {}

    def submit(self, blob: str, path: str) -> bool:
        """Parse ``blob`` (a version of ``path``); False when it is already under way."""
        if blob in self._pending:
            return False
        self._pending[blob] = self._pool.submit(parse_blob, path, blob)
        return True

    def take(self, blob: str) -> Future[list[Span] | None] | None:
        return self._pending.pop(blob, None)

    def forget(self, blob: str) -> None:
        """A version no longer wanted (its commit is mapped): its result is not kept."""
        future = self._pending.pop(blob, None)
        if future is not None:
            future.cancel()

    def close(self) -> None:
        self._pending.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)


_reader: BlobReader | None = None


def _init_worker(root: str) -> None:
    global _reader
    _reader = BlobReader(Git(Path(root)), DEFAULT_MAX_BYTES)


def parse_blob(path: str, blob: str, reader: BlobReader | None = None) -> list[Span] | None:
    """The spans of one version of a file; None when it cannot be read or parsed."""
    reader = reader or _reader
    assert reader is not None
    data = reader.read(blob)
    if data is None or b"\x00" in data[:8000]:
        return None
    try:
        return spans_of(path, data)
    except Exception as exc:  # a file the parser cannot take is skipped, not fatal
        log.debug("cannot parse %s at %s: %s", path, blob[:10], exc)
        return None
