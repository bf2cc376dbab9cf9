"""A search made while the workspace is still being embedded says so (`partial`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from nano_brain import Brain, NanoBrainError, SearchRequest
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.embedprogress import SpaceProgress
from nano_brain.store.spaces import Space

from .conftest import TinyEmbedder

NOTES = [
    "The billing service retries failed card charges three times.",
    "Staging is rebuilt from production every Sunday night.",
    "Invoices round the total after tax, never per line.",
    "The deploy checklist runs migrations before restarting workers.",
]


@pytest.fixture
def deferred(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Brain:
    """A Brain whose writes leave their chunks pending (as a first index does), as many as a
    search does not embed first (a harvest's backlog: NOTES_BEFORE_SEARCH is 0 here)."""
    monkeypatch.setattr("nano_brain.embedder.NOTES_BEFORE_SEARCH", 0)
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    return Brain(workspace, config=config, provider=TinyEmbedder())


def test_a_partly_embedded_space_gives_a_note_until_every_chunk_has_a_vector(
    deferred: Brain,
) -> None:
    with deferred as brain:
        for text in NOTES:
            brain.write(text)
        assert brain.embed_pending(limit=1) == 1  # 1 of 4 chunks: 25%, and a measured rate
        response = brain.search(SearchRequest(query="billing retries", floor="off"))
        assert response.partial.startswith("memory search is partial: 25% of memory has vectors (")
        assert "left)" in response.partial
        assert response.partial.endswith("; results found by meaning may be missing")
        # a lexical search asks no vector leg: nothing of it is partial
        assert brain.search(SearchRequest(query="billing", mode="lexical")).partial == ""
        brain.embed_pending()
        assert brain.search(SearchRequest(query="billing retries", floor="off")).partial == ""


def test_the_note_is_in_the_json_a_front_end_returns(deferred: Brain) -> None:
    with deferred as brain:
        brain.write(NOTES[0])
        dumped = brain.search(SearchRequest(query="billing", floor="off")).model_dump()
        assert dumped["partial"].startswith("memory search is partial: 0% of memory")


def test_no_note_when_vectors_are_off(workspace: Path) -> None:
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config) as brain:
        brain.write(NOTES[0])
        assert brain.pending_embeddings() == 1  # waits for a model that never comes
        response = brain.search(SearchRequest(query="billing retries"))
        assert response.partial == ""
        assert response.legs["vector"] == "unavailable: embedding.provider is none"


def test_code_with_no_vector_yet_makes_code_search_partial(
    deferred: Brain, workspace: Path
) -> None:
    (workspace / "billing.py").write_text(
        textwrap.dedent(
            '''\
            def compute_invoice_total(items, tax_rate):
                """Sum the line items and add tax."""
                return sum(items) * (1 + tax_rate)


            def refund_amount(order, days):
                """Money back within thirty days."""
                return order.total if days <= 30 else 0
            '''
        ),
        encoding="utf-8",
    )
    with deferred as brain:
        CodeIndex(brain).index()
        pending = brain.pending_embeddings("code")
        assert pending >= 2
        # nothing of the code space has a vector: its leg is skipped, the note says why
        code = CodeIndex(brain).search("invoice total")
        assert code.partial.startswith("code search is partial: 0% of code has vectors")
        with pytest.raises(NanoBrainError, match="code search is partial: 0% of code"):
            CodeIndex(brain).search("invoice total", mode="vector")
        brain.embed_pending(space="code")
        assert CodeIndex(brain).search("invoice total").partial == ""


def test_the_per_space_progress_is_read_once_for_the_searches_of_two_seconds(
    deferred: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    with deferred as brain:
        for text in NOTES:
            brain.write(text)
        reads: list[dict[Space, SpaceProgress]] = []
        read = brain.embedding_progress

        def counted() -> dict[Space, SpaceProgress]:
            reads.append(read())
            return reads[-1]

        monkeypatch.setattr(brain, "embedding_progress", counted)
        notes = [brain.search(SearchRequest(query="billing", floor="off")).partial for _ in "abc"]
        assert len(reads) == 1 and notes[0] and notes == [notes[0]] * 3
        # with nothing pending the store's one cheap count answers: no note, no read
        brain.embed_pending()
        assert brain.search(SearchRequest(query="billing", floor="off")).partial == ""
        assert len(reads) == 1


def test_commit_messages_waiting_make_only_commit_search_partial(deferred: Brain) -> None:
    from nano_brain.store.commits import CommitRows, CommitStore

    commit = CommitRows(
        hash="c" * 40, seq=1, uid="c" * 12, title="Retry card charges on timeouts",
        content="Retry card charges on timeouts", content_hash="c", metadata={"hash": "c" * 40},
        authored_at=1.0, committed_at=1.0, chunks=[(0, "Retry card charges on timeouts", "", 1, 1)],
    )  # fmt: skip
    with deferred as brain:
        brain.write(NOTES[0])
        with brain.store.transaction():
            CommitStore(brain.store).add_commits([commit], now=2.0)
        brain.embed_pending(limit=1)  # the note (notes come first): the commit waits
        assert brain.pending_embeddings("text") == 1
        notes = brain.search(SearchRequest(query="card charges", kind=["note"], floor="off"))
        assert notes.partial == ""  # every note has its vector
        for kinds in ([], ["commit"]):
            found = brain.search(SearchRequest(query="card charges", kind=kinds, floor="off"))
            assert found.partial.startswith(
                "commit search is partial: 1 commit message waits for vectors"
            ), kinds
