"""Related-memory results kept between hovers, valid while the store has not changed.

A hover's related-memory part is a hybrid search (a query embedding, two or three FTS5 queries,
a k-NN probe): 10-50 ms on 10k notes, against well under 1 ms for the rest of a hover. The
pointer goes back to the same symbols again and again, so the results are kept per query.

Validity is the store's *generation*: the id of its newest audit-log row. Every mutation of
memory (write, edit, supersede, retract, delete, anchor, harvest, index) appends one in the
transaction that makes it, from any process (CLI, MCP, another sidecar), so a note saved
anywhere is in the very next hover. A vector stored after its note's commit appends nothing: a
search in the few milliseconds between the two can miss a note that matches only by meaning,
and the time-to-live (10 minutes) bounds how long that can last.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class GenerationCache(Generic[T]):
    """A small LRU of values keyed by string, dropped whenever the generation moves on.

    Generations only grow; a reader that saw an older one misses and stores nothing.
    """

    def __init__(
        self,
        max_entries: int = 512,
        ttl_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, T]] = OrderedDict()
        self._generation = -1
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, generation: int, key: str) -> T | None:
        with self._lock:
            if generation > self._generation:
                self._entries.clear()
                self._generation = generation
            entry = self._entries.get(key) if generation == self._generation else None
            if entry is None or self._clock() - entry[0] > self.ttl_s:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[1]

    def put(self, generation: int, key: str, value: T) -> None:
        """Keep ``value``, computed after the store was seen at ``generation``."""
        if self.max_entries <= 0:
            return
        with self._lock:
            if generation != self._generation:
                return  # the store moved on while the value was computed: it may be stale
            self._entries[key] = (self._clock(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
