"""The hover's related-memory machinery: the generation cache, the search queue, the query."""

from __future__ import annotations

import threading
import time

from nano_brain.lsp.cache import GenerationCache
from nano_brain.lsp.features import hover_query
from nano_brain.lsp.related import MAX_QUEUED, RelatedLookups


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_cache_keeps_values_while_the_generation_holds() -> None:
    clock = _Clock()
    cache: GenerationCache[list[str]] = GenerationCache(max_entries=2, ttl_s=60, clock=clock)
    assert cache.get(5, "a") is None
    cache.put(5, "a", ["x"])
    cache.put(5, "empty", [])
    assert cache.get(5, "a") == ["x"]
    assert cache.get(5, "empty") == []  # "nothing related" is an answer worth keeping too
    cache.put(5, "b", ["y"])  # over max_entries: the least recently used ("a") goes
    assert cache.get(5, "a") is None and cache.get(5, "b") == ["y"]
    # a write anywhere moves the generation: everything cached before is dropped
    assert cache.get(6, "b") is None
    # a value computed by someone who saw the older generation is not kept
    cache.put(5, "b", ["stale"])
    assert cache.get(6, "b") is None
    # nor does a reader that saw an older generation clear the newer entries
    cache.put(6, "b", ["fresh"])
    assert cache.get(5, "b") is None and cache.get(6, "b") == ["fresh"]
    clock.now = 61  # past the time-to-live
    assert cache.get(6, "b") is None


class _Search:
    """A search that records its queries and can be held at the start of each one."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.started = threading.Event()

    def __call__(self, query: str) -> list[str]:
        self.started.set()
        assert self.gate.wait(10)
        self.queries.append(query)
        return [f"hit for {query}"]


def _lookups(search: _Search, generation: list[int]) -> RelatedLookups[list[str]]:
    return RelatedLookups(search, lambda: generation[0], GenerationCache())


def test_a_slow_search_answers_the_next_hover() -> None:
    search, generation = _Search(), [1]
    lookups = _lookups(search, generation)
    try:
        search.gate.clear()
        t = time.perf_counter()
        assert lookups.lookup("refund policy", 0.05) is None  # not ready within the budget
        assert time.perf_counter() - t < 1
        search.gate.set()
        assert lookups.lookup("refund policy", None) == ["hit for refund policy"]
        assert lookups.lookup("refund policy", 0) == ["hit for refund policy"]  # cached
        assert search.queries == ["refund policy"]  # one search for all three hovers
        generation[0] = 2  # a note was written
        assert lookups.lookup("refund policy", None) == ["hit for refund policy"]
        assert search.queries == ["refund policy"] * 2
    finally:
        lookups.close()


def test_hovers_go_before_prefetch_and_stale_hovers_are_dropped() -> None:
    search, generation = _Search(), [1]
    lookups = _lookups(search, generation)
    try:
        search.gate.clear()
        lookups.begin("first")  # occupies the worker
        assert search.started.wait(5)
        assert lookups.prefetch(["p1", "p2"]) == 2  # a file opened
        assert lookups.prefetch(["p3", "p1"]) == 2  # another one: p1 is already queued
        hovers = [f"h{i}" for i in range(MAX_QUEUED + 3)]
        for query in hovers:
            assert lookups.lookup(query, 0) is None
        search.gate.set()
        deadline = time.monotonic() + 10
        while len(search.queries) < 1 + MAX_QUEUED + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)  # nothing more may come
        # hovers first (the newest MAX_QUEUED of them), then prefetches, newest first
        assert search.queries == ["first", *hovers[3:], "p3", "p1", "p2"]
        assert lookups.lookup("p2", 0) == ["hit for p2"]  # prefetched: ready at once
    finally:
        lookups.close()


def test_hover_query_is_the_words_of_the_name_and_its_container() -> None:
    assert hover_query("refund_amount", "billing.py::RefundPolicy.refund_amount") == (
        "refund amount policy"
    )
    assert hover_query("computeInvoiceTotal", None) == "compute invoice total"
    assert hover_query("HTTPServer", "a.go::HTTPServer") == "http server"
    assert hover_query("ledger_3_0", "m.py::ledger_3_0") == "ledger"  # digits say nothing
    assert hover_query("return", None) == ""  # keywords: no search at all
    assert hover_query("id", None) == ""
