"""The background embedder: writes acknowledged before their vectors, vectors soon after,
pending chunks caught up after a crash, and one Brain shared by many threads."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nano_brain import Brain, SearchRequest
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.embedder import _Shared, embed_text
from nano_brain.store.rows import PendingChunk

from .conftest import TinyEmbedder


class SlowEmbedder(TinyEmbedder):
    """The tiny embedder with the latency of a real model on a slow CPU."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        time.sleep(self.delay)
        return super().embed_documents(texts)


def test_a_running_worker_acknowledges_first_and_embeds_right_after(workspace: Path) -> None:
    with Brain(workspace, provider=SlowEmbedder(0.3)) as brain:
        brain.embedder.start()
        start = time.perf_counter()
        result = brain.write("Deploys freeze on Fridays after 3pm.")
        acknowledged = time.perf_counter() - start
        assert not result.embedded and acknowledged < 0.3  # the model was not waited for
        # lexically findable at once, by vector within a second
        lexical = brain.search(SearchRequest(query="deploys freeze", mode="lexical"))
        assert [h.id for h in lexical.results] == [result.document.id]
        assert brain.embedder.wait_idle(timeout=1.5)
        vector = brain.search(SearchRequest(query="deploys freeze fridays", mode="vector"))
        assert [h.id for h in vector.results] == [result.document.id]


def test_pending_chunks_left_by_a_crash_catch_up_when_a_worker_starts(workspace: Path) -> None:
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    with Brain(workspace, config=config, provider=TinyEmbedder()) as crashed:
        ids = [crashed.write(f"note {i} about caching").document.id for i in range(5)]
        assert crashed.store.pending_count() == 5  # as if killed before embedding
    with Brain(workspace, provider=TinyEmbedder()) as restarted:
        restarted.embedder.start()
        assert restarted.embedder.wait_idle(timeout=5)
        assert restarted.store.pending_count() == 0
        hits = restarted.search(SearchRequest(query="caching", mode="vector", limit=10))
        assert {h.id for h in hits.results} == set(ids)


def test_a_short_lived_writer_catches_up_on_what_others_left(workspace: Path) -> None:
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    with Brain(workspace, config=config, provider=TinyEmbedder()) as crashed:
        for i in range(3):
            crashed.write(f"left pending {i}")
    with Brain(workspace, provider=TinyEmbedder()) as cli:
        assert cli.write("the next write").embedded
        assert cli.store.pending_count() == 0


def test_threads_share_one_brain(tiny_brain: Brain) -> None:
    """MCP runs each tool call in a worker thread and the sidecar has a pool: searches and
    writes from many threads on one Brain must all succeed (per-request state is never kept
    on the shared pipeline)."""
    for i in range(40):
        tiny_brain.write(f"note {i} on topic{i % 5} with word{i}")
    tiny_brain.embedder.start()
    errors: list[BaseException] = []
    counts = [0] * 6

    def work(n: int) -> None:
        try:
            for i in range(150):
                mode = ("lexical", "hybrid", "vector")[i % 3]
                query = f"topic{(i + n) % 5} word{i % 40}"
                response = tiny_brain.search(SearchRequest(query=query, mode=mode, explain=True))
                assert all(h.explain for h in response.results)
                if i % 25 == 0:
                    tiny_brain.write(f"thread {n} wrote {i}")
                counts[n] += 1
        except BaseException as exc:  # noqa: BLE001 - collected and reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == [] and counts == [150] * 6
    assert tiny_brain.embedder.wait_idle(timeout=10)
    assert tiny_brain.status()["documents"] == 40 + 6 * 6


class _Recording(TinyEmbedder):
    """Remembers every text it embeds, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return super().embed_documents(texts)


def test_notes_then_the_open_files_code_then_the_rest(workspace: Path) -> None:
    (workspace / "a.py").write_text("def alpha():\n    return 'ALPHA'\n")
    (workspace / "b.py").write_text(
        "def beta():\n    return 'BETA'\n\ndef gamma():\n    return 'BETA'\n"
    )
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    model = _Recording()
    with Brain(workspace, config=config, provider=model) as brain:
        CodeIndex(brain).index()
        brain.write("NOTE the release train leaves on Tuesdays")
        assert brain.prioritize_embedding(["b.py"]) == 2  # in the clone's store in team mode
        assert brain.embed_pending() == 4
    marks = ["NOTE" if "NOTE" in t else "BETA" if "BETA" in t else "ALPHA" for t in model.texts]
    assert marks == ["NOTE", "BETA", "BETA", "ALPHA"]


class _TeamVectors:
    """The shared-vectors side of a team store (a PostgreSQL the user configures): the
    clone's documents (negative ids) share, the team's notes do not; nothing shared yet."""

    def __init__(self) -> None:
        self.published: list[bytes] = []

    def shares_vectors(self, doc_id: int) -> bool:
        return doc_id < 0

    def shared_vectors(
        self, model: str, dim: int, digests: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]:
        return {}

    def share_vectors(self, model: str, dim: int, items: Sequence[tuple[bytes, np.ndarray]]) -> int:
        self.published += [digest for digest, _ in items]
        return len(items)


def test_a_batch_of_notes_and_commits_publishes_only_the_commits() -> None:
    team = _TeamVectors()
    provider = TinyEmbedder()
    pending = [
        PendingChunk(-1, -10, "shop: refunds end after 30 days", None, "The provider refuses."),
        PendingChunk(2, 20, "note", None, "Refunds stop after thirty days."),
        PendingChunk(-3, -30, "billing: invoices", None, "Monthly invoices."),
    ]
    texts = [embed_text(p) for p in pending]
    vectors = _Shared(team).vectors(provider, pending, texts)
    assert np.array_equal(vectors, provider.embed_documents(texts))  # rows in batch order
    assert team.published == [hashlib.sha256(texts[i].encode()).digest() for i in (0, 2)]
