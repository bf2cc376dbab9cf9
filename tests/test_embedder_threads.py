"""The Embedder of one Brain under many threads: one background worker however many callers
start it, and no chunk embedded twice while writers, the worker and explicit fills race; the
worker runs at a lower priority than the process's other threads."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from nano_brain import Brain
from nano_brain.embedding.local import BACKGROUND_NICENESS

from .conftest import TinyEmbedder
from .threads import run_together

THREADS = 8


class _CountingEmbedder(TinyEmbedder):
    """Counts the texts it embeds (a chunk embedded twice counts twice)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0
        self._count_lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        with self._count_lock:
            self.texts += len(texts)
        return super().embed_documents(texts)


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "nano-brain-embed" and t.is_alive()]


def test_one_worker_however_many_threads_start_it(workspace: Path) -> None:
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        before = len(_workers())
        for _ in range(20):
            run_together(lambda i: brain.embedder.start(), THREADS)
            assert len(_workers()) == before + 1
            brain.embedder.stop()
            assert len(_workers()) == before


def test_no_chunk_is_embedded_twice(workspace: Path) -> None:
    model = _CountingEmbedder()
    with Brain(workspace, provider=model) as brain:
        brain.embedder.start()

        def work(i: int) -> None:
            for n in range(15):
                if i % 4 == 3:
                    brain.embed_pending()  # what `nano-brain index --embed` does meanwhile
                else:
                    brain.write(f"thread {i} note {n}\n\n" + "words about things " * 40 * (n % 3))

        run_together(work, THREADS)
        assert brain.embedder.wait_idle(timeout=60)
        status = brain.status()
        assert status["pending_embeddings"] == 0 and status["vectors"] == status["chunks"]
        assert model.texts == status["chunks"]


class _NicenessEmbedder(TinyEmbedder):
    """Remembers the nice value of each thread that asks it for vectors."""

    def __init__(self) -> None:
        super().__init__()
        self.niceness: list[int] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        tid = threading.get_native_id()
        self.niceness.append(os.getpriority(os.PRIO_PROCESS, tid))
        return super().embed_documents(texts)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_the_background_worker_runs_at_a_lower_priority(workspace: Path) -> None:
    model = _NicenessEmbedder()
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    with Brain(workspace, provider=model) as brain:
        brain.embedder.start()
        brain.write("a note for the background worker")
        assert brain.embedder.wait_idle(timeout=30)
        assert model.niceness and set(model.niceness) == {min(19, own + BACKGROUND_NICENESS)}
    # the caller's thread is untouched
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own
