"""One loaded model serves many threads: the sidecar's three Brains share it, MCP tool calls
and the background embedder use it at once. Every call must get the vectors of its own texts.

Each thread plans its calls (batches of documents, single queries, both models), the plan is
run one call at a time for reference, then all threads run their plans at once: every result
must equal its reference. Any state one call left on the shared session or tokenizer for
another would change some result.
"""

from __future__ import annotations

import random
from typing import Literal

import numpy as np
import pytest

from nano_brain.config import EmbeddingConfig
from nano_brain.embedding import EmbeddingProvider, create_provider

from ..threads import run_together

THREADS = 6
CALLS = 8
_WORDS = (
    "invoice refund ledger retry queue schema migration index token parser socket thread "
    "timeout budget vector journal snapshot checksum deploy release worker cursor signal"
).split()

Call = tuple[Literal["text", "code"], Literal["documents", "query"], list[str]]


@pytest.fixture(scope="module")
def models() -> dict[str, EmbeddingProvider]:
    config = EmbeddingConfig()
    text = create_provider(config)
    code = create_provider(config, model=config.code_model_name())
    assert text is not None and code is not None and text.name != code.name
    return {"text": text, "code": code}


def _plan(rng: random.Random) -> list[Call]:
    calls: list[Call] = []
    for _ in range(CALLS):
        # a word to a hundred tokens; more than 8 texts run in groups of similar length
        texts = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.choice((1, 6, 30, 90))))
            for _ in range(rng.choice((1, 2, 9)))
        ]
        calls.append((rng.choice(("text", "code")), rng.choice(("documents", "query")), texts))
    return calls


def _run(models: dict[str, EmbeddingProvider], call: Call) -> np.ndarray:
    space, what, texts = call
    model = models[space]
    if what == "query":
        return np.stack([model.embed_query(t) for t in texts[:3]])
    return model.embed_documents(texts)


def test_threads_sharing_both_models_each_get_their_own_vectors(
    models: dict[str, EmbeddingProvider],
) -> None:
    plans = [_plan(random.Random(n)) for n in range(THREADS)]
    expected = [[_run(models, call) for call in plan] for plan in plans]
    got: list[list[np.ndarray]] = [[] for _ in range(THREADS)]

    def work(n: int) -> None:
        for call in plans[n]:
            got[n].append(_run(models, call))

    run_together(work, THREADS)
    for n in range(THREADS):
        for i, (want, have) in enumerate(zip(expected[n], got[n], strict=True)):
            assert have.shape == want.shape, (n, i)
            assert np.allclose(have, want, atol=1e-5), (n, i, plans[n][i][:2])
