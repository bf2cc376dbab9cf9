"""The full-text thread of a bulk load: the symbol chunks a bulk load writes without their
full-text rows are indexed here, beside the parse and resolve work, and the load's lookup
indexes built once its last batch is in."""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING

from ..store.code import FULLTEXT_PENDING_KEY

if TYPE_CHECKING:
    from ..store import CodeStore


class Fulltext(threading.Thread):
    """Full-text indexes a bulk load's symbol chunks on a thread, and builds its lookup
    indexes once the last batch is in.

    SQLite runs both without the GIL, so they overlap with Python work: ranges handed over
    while parsing go in as the batches commit (the parse workers are then the slow part and
    the store's connection is mostly idle), what is left after the last batch overlaps with
    resolving calls. Each range is its own transaction and waits for the store's lock, so it
    never interleaves with a batch's statements. An error is kept for ``finish``.
    """

    def __init__(self, code: CodeStore) -> None:
        super().__init__(name="nano-brain-fulltext", daemon=True)
        self._store = code.store
        self._code = code
        # ranges to index; True / False: the load is over (True: build its indexes too);
        # None: the run failed, stop without finishing
        self._queue: queue.SimpleQueue[list[tuple[int, int]] | bool | None] = queue.SimpleQueue()
        self.error: BaseException | None = None

    def add(self, ranges: list[tuple[int, int]]) -> None:
        self._queue.put(ranges)

    def finish(self, *, bulk: bool) -> None:
        """The load is over: mark its full-text rows done (``bulk``: build its indexes)."""
        self._queue.put(bulk)

    def stop(self) -> None:
        """End the thread without finishing the load (the next run rebuilds what is missing)."""
        self._queue.put(None)
        self.join()

    def run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self.error is not None:
                if isinstance(item, bool):
                    return
                continue
            try:
                with self._store.transaction():
                    if isinstance(item, bool):
                        self._store.meta_set(FULLTEXT_PENDING_KEY, "0")
                        if item:
                            self._code.ensure_indexes()
                        return
                    for first, last in item:
                        self._code.index_symbol_chunks(first, last)
            except BaseException as exc:  # re-raised by the joining thread
                self.error = exc
                if isinstance(item, bool):
                    return
