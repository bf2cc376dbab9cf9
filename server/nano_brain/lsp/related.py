"""The related-memory part of hovers: cached, prefetched, searched off the hover's thread.

The rest of a hover (the notes anchored to the symbol) costs about a millisecond; the related
memories are a hybrid search, 10-60 ms on a store of 10k notes, more while an index pass keeps
the CPU busy. So:

- results are kept per query while the store's generation holds (:mod:`.cache`);
- when a file is opened or saved, the queries of its symbols are searched in the background
  (*prefetch*), so the pointer usually finds them ready;
- a missing result is searched on the folder's own search thread and connection, ahead of any
  prefetch, so neither the hover's other lookups nor other requests queue behind it;
- the hover waits at most ``hover.related_budget_ms`` for it. A search that takes longer still
  finishes and fills the cache: the hover shows the anchored notes now and the related
  memories from the next hover on (a budget of 0: hovers wait for the search);
- hover searches nobody waits for any more are dropped, oldest first, beyond a few, so a fast
  sweep of the pointer across a file cannot build a long queue. Prefetches run newest file
  first (the one just opened is the one about to be read), and the oldest pending ones are
  dropped beyond a few hundred.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..errors import NanoBrainError
from ..search import validate_request
from ..text import one_line
from .cache import GenerationCache
from .render import RelatedView

if TYPE_CHECKING:
    from ..brain import Brain

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Hover searches waiting to start beyond this many are dropped, oldest first.
MAX_QUEUED = 8
#: Prefetch searches waiting to start beyond this many are dropped, oldest first.
MAX_PREFETCH = 256
_BATCH = 1_000_000  # prefetch ranks: batch (newest first), then position in the file
_HOVER, _PREFETCH = 0, 1
#: Candidates per leg for a hover's three related memories: the top three of a fusion barely
#: move below rank 20, and a shallower search fits the hover's budget (17 -> ~11 ms, 10k notes).
_DEPTH = 20

_Key = tuple[int, str]


class RelatedLookups(Generic[T]):
    """One folder's related-memory lookups: ``lookup`` for hovers, ``prefetch`` for files.

    ``search(query)`` runs on one worker thread (its own store connection, in practice);
    ``generation()`` is the store's generation, read before each lookup.
    """

    def __init__(
        self,
        search: Callable[[str], T],
        generation: Callable[[], int],
        cache: GenerationCache[T],
        *,
        name: str = "related",
    ) -> None:
        self._search = search
        self._generation = generation
        self.cache = cache
        self._heap: list[tuple[int, int, _Key, Future[T]]] = []
        self._prefetched: deque[tuple[_Key, Future[T]]] = deque()
        self._inflight: dict[_Key, tuple[Future[T], int]] = {}
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name=f"nano-brain-{name}", daemon=True)
        self._worker.start()

    def lookup(self, query: str, budget_s: float | None) -> T | None:
        """The results for ``query``; None when they were not ready within ``budget_s``
        (None: no budget) or the search failed."""
        return self.wait(self.begin(query), budget_s)

    def begin(self, query: str) -> Future[T]:
        """Start looking ``query`` up (a finished future when cached): the hover does its
        other lookups meanwhile, then waits (:meth:`wait`)."""
        generation = self._generation()
        found = self.cache.get(generation, query)
        if found is not None:
            done: Future[T] = Future()
            done.set_result(found)
            return done
        with self._cond:
            future = self._submit(generation, query, _HOVER)
            self._drop_stale_hovers()
        return future

    def wait(self, future: Future[T], budget_s: float | None) -> T | None:
        """``future``'s results, waiting at most ``budget_s`` (None: no limit)."""
        try:
            return future.result(timeout=None if budget_s is None else max(0.0, budget_s))
        except FutureTimeout:
            log.debug("related memory not ready within the hover's budget")
        except CancelledError:
            pass
        except Exception as exc:  # the anchored notes are still worth a hover
            log.warning("related memory failed: %s", exc)
        return None

    def prefetch(self, queries: Iterable[str]) -> int:
        """Search these in the background, after any hover's; returns how many were queued."""
        generation = self._generation()
        queued = 0
        with self._cond:
            # newest file first, each file top first
            batch = -next(self._order) * _BATCH
            for i, query in enumerate(dict.fromkeys(queries)):
                if query and self.cache.get(generation, query) is None:
                    future = self._submit(generation, query, _PREFETCH, batch + i)
                    self._prefetched.append(((generation, query), future))
                    queued += 1
            pending = deque(e for e in self._prefetched if not (e[1].done() or e[1].running()))
            while len(pending) > MAX_PREFETCH:
                key, future = pending.popleft()
                if self._inflight.get(key, (None, _HOVER))[1] == _PREFETCH:
                    future.cancel()  # its heap entry is skipped; inflight cleared below
            self._prefetched = pending
            for key, (future, _) in list(self._inflight.items()):
                if future.cancelled():
                    del self._inflight[key]
        return queued

    def close(self) -> None:
        with self._cond:
            self._closed = True
            for future, _ in self._inflight.values():
                future.cancel()
            self._inflight.clear()
            self._heap.clear()
            self._cond.notify_all()

    # -- the worker (lock: self._cond) ----------------------------------------------------------

    def _submit(
        self, generation: int, query: str, priority: int, rank: int | None = None
    ) -> Future[T]:
        """Queue a search (or join the queued one): hovers come first, first come first
        served; prefetches by ``rank``. A query queued again at a better place gets a second
        heap entry; whichever comes up first runs it, the other is skipped."""
        key = (generation, query)
        known = self._inflight.get(key)
        if known is not None and (known[1] < priority or known[1] == priority == _HOVER):
            return known[0]
        future: Future[T] = known[0] if known is not None else Future()
        self._inflight[key] = (future, min(priority, known[1]) if known else priority)
        order = next(self._order) if rank is None else rank
        heapq.heappush(self._heap, (priority, order, key, future))
        self._cond.notify()
        return future

    def _drop_stale_hovers(self) -> None:
        waiting = sorted(
            (e for e in self._heap if e[0] == _HOVER and not (e[3].running() or e[3].done())),
            key=lambda entry: entry[1],
        )
        for _, _, key, future in waiting[: max(0, len(waiting) - MAX_QUEUED)]:
            if future.cancel():
                self._inflight.pop(key, None)

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._heap and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                _, _, key, future = heapq.heappop(self._heap)
                if future.done() or future.running() or not future.set_running_or_notify_cancel():
                    continue  # cancelled, or a duplicate entry of one already searched
            started = time.perf_counter()
            try:
                result = self._search(key[1])
                log.debug(
                    "related search %r: %.1f ms", key[1], 1000 * (time.perf_counter() - started)
                )
            except Exception as exc:
                log.exception("related-memory search for %r failed", key[1])
                future.set_exception(exc)
            else:
                self.cache.put(key[0], key[1], result)
                future.set_result(result)
            finally:
                with self._cond:
                    if self._inflight.get(key, (None,))[0] is future:
                        del self._inflight[key]


def related_memories(
    brain: Brain,
    query: str,
    *,
    limit: int,
    min_similarity: float,
    snippet_chars: int,
) -> list[RelatedView]:
    """Notes and session summaries related to ``query``, only ones that actually relate: a
    lexical match, or a vector similarity of at least ``min_similarity``.

    ``track=False``: hovers fire as the pointer moves, not because someone chose to read a
    memory, so counting them would let the mouse drive the usage boost. Explicit searches
    (``nano-brain/search``, the searchRelated command) do count.
    """
    try:
        # expand=False: a hover shows what matches the symbol, not what was written next to
        # it, and stays within its few milliseconds
        request = validate_request(
            query=query[:400], limit=limit + 3, kind=["note", "session"], explain=True,
            track=False, expand=False, depth=_DEPTH, floor="related",
        )  # fmt: skip
        response = brain.search(request)
    except NanoBrainError as exc:
        log.info("related search failed: %s", exc)
        return []
    out: list[RelatedView] = []
    for hit in response.results:
        explain: dict[str, Any] = hit.explain or {}
        lexical = "lexical" in explain.get("ranks", {})
        similarity = float(explain.get("leg_scores", {}).get("vector", 0.0))
        if not lexical and similarity < min_similarity:
            continue
        out.append(
            RelatedView(
                hit.id,
                hit.title,
                hit.kind,
                hit.status,
                hit.updated_at,
                one_line(hit.snippet, snippet_chars),
            )  # fmt: skip
        )
        if len(out) >= limit:
            break
    return out
