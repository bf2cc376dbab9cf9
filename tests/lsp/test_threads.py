"""The sidecar's shared objects under many threads: no answer ever belongs to another request.

pygls runs hovers, lenses, symbols and searches on a pool of four threads; the related-memory
lookups have their own worker; every folder's cache, lookups, reader Brain and code index are
shared by all of them. Each test here gives many threads distinct requests at once and checks
every answer against the one its own request must get.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time
from pathlib import Path

from lsprotocol import types as lsp

from nano_brain.lsp.cache import GenerationCache
from nano_brain.lsp.related import RelatedLookups

from ..threads import run_together
from .conftest import start, stop

THREADS = 8
_AGE = re.compile(r"· \d+(?:s|m|h|d|w|mo|y) ago")


def test_generation_cache_never_answers_with_another_key_or_generation() -> None:
    cache: GenerationCache[tuple[int, str]] = GenerationCache(max_entries=16)
    generation = [0]
    gets = [0] * THREADS
    stop_bumping = threading.Event()

    def bump() -> None:  # writes elsewhere move the generation on, all the time
        while not stop_bumping.is_set():
            generation[0] += 1
            time.sleep(0.002)

    bumper = threading.Thread(target=bump)
    bumper.start()

    def work(i: int) -> None:
        rng = random.Random(i)
        for _ in range(3000):
            seen = generation[0]
            key = f"query {rng.randrange(40)}"
            value = cache.get(seen, key)
            gets[i] += 1
            if value is None:
                cache.put(seen, key, (seen, key))
            else:
                assert value == (seen, key), (seen, key, value)

    try:
        run_together(work, THREADS)
    finally:
        stop_bumping.set()
        bumper.join()
    assert cache.hits + cache.misses == sum(gets)
    assert cache.hits > 0 and cache.misses > 0


def test_related_lookups_give_each_hover_its_own_results() -> None:
    generation = [0]
    searched: list[str] = []

    def search(query: str) -> list[str]:
        time.sleep(random.random() / 500)
        searched.append(query)
        return [f"about {query}"]

    lookups: RelatedLookups[list[str]] = RelatedLookups(
        search, lambda: generation[0], GenerationCache(max_entries=64)
    )
    answered = [0] * THREADS

    def work(i: int) -> None:
        rng = random.Random(i)
        for n in range(150):
            if n % 25 == 0:
                generation[0] += 1  # a write: cached results are dropped
            if n % 10 == 0:
                lookups.prefetch(f"symbol {rng.randrange(60)}" for _ in range(5))
            query = f"symbol {rng.randrange(60)}"
            budget = None if n % 2 else 0.001
            result = lookups.lookup(query, budget)
            if result is not None:  # None: not ready in the budget, or dropped as stale
                assert result == [f"about {query}"], (query, result)
                answered[i] += 1

    try:
        run_together(work, THREADS)
        assert lookups.lookup("symbol 7", None) == ["about symbol 7"]
    finally:
        lookups.close()
    # more hovers queue here than pygls's four threads can make wait: the oldest are dropped
    # by design (None), the others answered
    assert sum(answered) > THREADS * 10
    assert searched


def test_concurrent_hovers_and_symbol_lookups_match_one_at_a_time(
    project: Path, seeded: dict[str, str]
) -> None:
    """Many hovers and workspace-symbol requests in flight at once on the real sidecar (its
    pool, the folder's reader Brain and code index, the related-memory cache and worker):
    each answer equals what the same request gets alone."""
    requests: list[tuple[str, str, int, int]] = [
        ("hover", "billing.py", 3, 10),  # compute_invoice_total: the anchored decision
        ("hover", "billing.py", 9, 8),  # RefundPolicy
        ("hover", "billing.py", 12, 10),  # refund_amount
        ("hover", "util.py", 4, 15),  # the call site
        ("symbol", "compute", 0, 0),
        ("symbol", "refund", 0, 0),
        ("symbol", "checkout", 0, 0),
    ]

    async def body() -> tuple[list[str], list[str]]:
        session = await start(
            project, options={"mcp": {"transport": "off"}, "hover": {"related_budget_ms": 0}}
        )
        try:
            await session.indexed()
            uris = {rel: session.open(rel) for rel in ("billing.py", "util.py")}

            async def ask(kind: str, where: str, line: int, col: int) -> str:
                if kind == "symbol":
                    return "|".join(sorted(await session.symbols(where)))
                hover = await session.hover(uris[where], line, col)
                assert hover is None or isinstance(hover.contents, lsp.MarkupContent)
                # a note's age ("6s ago") moves on between two asks of the same hover
                return "" if hover is None else _AGE.sub("· <age> ago", hover.contents.value)

            alone = [await ask(*r) for r in requests]
            together = await asyncio.gather(*(ask(*requests[i % len(requests)])
                                              for i in range(12 * len(requests))))  # fmt: skip
            return alone, list(together)
        finally:
            await stop(session)

    alone, together = asyncio.run(body())
    assert f"#{seeded['decision']}" in alone[0] and "<age> ago" in alone[0] and alone[4]
    for i, answer in enumerate(together):
        assert answer == alone[i % len(requests)], requests[i % len(requests)]
