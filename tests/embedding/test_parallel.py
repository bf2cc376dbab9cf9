"""The local model embeds a batch's texts on several threads (`embedding.threads`), one text
per call on one shared session: the vectors are those of each text embedded alone, bit for
bit, whatever the texts' lengths; the threads run at their caller's priority (low for the
background fill); a query runs on its caller's thread."""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest

from nano_brain.config import EmbeddingConfig
from nano_brain.embedding import create_provider
from nano_brain.embedding.local import (
    BACKGROUND_NICENESS,
    LocalOnnxProvider,
    lower_thread_priority,
)

# a word to past the model's 256 tokens, code and prose, in no order of length
TEXTS = [
    "def settle(invoice): return invoice.total - invoice.paid",
    "x",
    "class Ledger:\n    '''Keeps the books.'''\n" + "    def post(self, entry): ...\n" * 40,
    "refund the customer when the payment provider reports a duplicate charge " * 3,
    "select id, name from users where active = 1 order by created_at desc " * 30,
    "a",
    "retry the queue after a timeout",
]


def _provider(threads: int, space: str = "code") -> LocalOnnxProvider:
    config = EmbeddingConfig(threads=threads)
    model = config.code_model_name() if space == "code" else config.model
    provider = create_provider(config, model=model)
    assert isinstance(provider, LocalOnnxProvider)
    return provider


def _model_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("nano-brain-model")]


@pytest.mark.parametrize("space", ["code", "text"])
def test_a_batch_on_two_threads_is_each_text_alone_bit_for_bit(space: str) -> None:
    alone = _provider(1, space)
    together = _provider(2, space)
    assert together.threads == 2
    expected = np.stack([alone.embed_documents([t])[0] for t in TEXTS])
    for _ in range(3):  # the threads take the texts in a different order each time
        got = together.embed_documents(TEXTS)
        assert got.shape == (len(TEXTS), together.dim)
        assert np.array_equal(got, expected)
    # and a text's vector does not depend on what it was embedded with
    assert np.array_equal(together.embed_documents(TEXTS[2:4]), expected[2:4])


def test_a_query_runs_on_the_callers_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = _provider(2)
    ran_on: list[str] = []
    infer = provider._infer

    def recording(token_ids: list[list[int]]) -> np.ndarray:
        ran_on.append(threading.current_thread().name)
        return infer(token_ids)

    monkeypatch.setattr(provider, "_infer", recording)
    provider.embed_query("where are refunds settled")
    provider.embed_documents(["one text"])  # a single text needs no other thread
    assert ran_on == [threading.current_thread().name] * 2
    ran_on.clear()
    provider.embed_documents(TEXTS)
    assert len(ran_on) == len(TEXTS)
    assert all(name.startswith("nano-brain-model") for name in ran_on)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_model_threads_run_at_their_callers_priority(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = _provider(2)
    niceness: list[tuple[str, int]] = []
    infer = provider._infer

    def recording(token_ids: list[list[int]]) -> np.ndarray:
        me = threading.current_thread()
        niceness.append((me.name, os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
        return infer(token_ids)

    monkeypatch.setattr(provider, "_infer", recording)
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    provider.embed_documents(TEXTS)  # a foreground caller: its own priority
    assert {n for _, n in niceness} == {own}

    def background() -> None:
        lower_thread_priority()
        provider.embed_documents(TEXTS)
        provider.embed_documents(["one text"])  # on the caller's own (lowered) thread

    niceness.clear()
    worker = threading.Thread(target=background, name="background-caller")
    worker.start()
    worker.join()
    low = min(19, own + BACKGROUND_NICENESS)
    assert len(niceness) == len(TEXTS) + 1
    assert {n for _, n in niceness} == {low}
    assert niceness[-1][0] == "background-caller"
    assert all(name.startswith("nano-brain-model") for name, _ in niceness[:-1])
    # the foreground's threads were not lowered with it
    niceness.clear()
    provider.embed_documents(TEXTS)
    assert {n for _, n in niceness} == {own}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own


def test_threads_default_to_two_or_the_cores() -> None:
    assert EmbeddingConfig().threads == min(2, os.cpu_count() or 1)
