"""Hybrid search on the real default model: legs, filters, retries, degradation, explain."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from nano_brain import Brain, Filters, InvalidInputError, NanoBrainError, SearchRequest
from nano_brain.config import load_config
from nano_brain.embedding import EmbeddingProvider
from nano_brain.search import validate_request
from nano_brain.search.words import code_query

DAY = 86400.0


def _ids(brain: Brain, **kwargs: object) -> list[str]:
    return [h.id for h in brain.search(SearchRequest(**kwargs)).results]


def test_written_note_is_found_lexically_and_by_vector_on_return(brain: Brain) -> None:
    note = brain.write("The billing service retries failed card charges three times.").document
    brain.write("Frontend uses React with server components.")
    assert _ids(brain, query="billing retries", mode="lexical")[0] == note.id
    # a paraphrase with no shared word: only the vector leg can find it
    assert _ids(brain, query="payment attempts repeated", mode="lexical") == []
    assert _ids(brain, query="payment attempts repeated", mode="vector")[0] == note.id
    assert _ids(brain, query="payment attempts repeated", floor="off")[0] == note.id
    # a paraphrase this loose (the small model's cosine is about 0.37) is below the hybrid
    # list's floor: the default query answers nothing, and says why
    floored = brain.search(SearchRequest(query="payment attempts repeated"))
    assert floored.results == [] and "relevance floor" in floored.note


def test_vector_hit_waits_for_embedding_when_deferred(
    workspace: Path, real_provider: EmbeddingProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("nano_brain.embedder.NOTES_BEFORE_SEARCH", 0)  # a backlog
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    with Brain(workspace, config=config, provider=real_provider) as brain:
        note = brain.write("Our staging database is refreshed every Sunday night.").document
        assert _ids(brain, query="staging database", mode="lexical") == [note.id]
        assert _ids(brain, query="weekly copy of production data", mode="vector") == []
        assert brain.embed_pending() == 1
        assert _ids(brain, query="weekly copy of production data", mode="vector") == [note.id]


def test_a_note_written_and_not_embedded_yet_is_found_by_meaning(
    workspace: Path, real_provider: EmbeddingProvider
) -> None:
    """Read your writes: a search first embeds the few notes still waiting for a vector
    (another process wrote them, or the worker has not come to them), so a question worded
    otherwise than the note finds it; judged by its words alone it would find nothing."""
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    with Brain(workspace, config=config, provider=real_provider) as brain:
        note = brain.write("The flux capacitor needs 1.21 gigawatts.").document
        assert brain.pending_embeddings("text") == 1
        found = brain.search(SearchRequest(query="how much power does the flux capacitor need"))
        assert [h.id for h in found.results] == [note.id] and found.partial == ""
        assert brain.pending_embeddings("text") == 0
        # a keyword search reads no vector: it embeds nothing
        other = brain.write("Staging is rebuilt every Sunday.").document
        assert _ids(brain, query="staging", mode="lexical") == [other.id]
        assert brain.pending_embeddings("text") == 1


def test_the_first_search_of_a_store_records_its_model_and_runs_every_leg(
    workspace: Path, real_provider: EmbeddingProvider
) -> None:
    """Before anything is embedded the store has no model recorded: the first search records
    it (a write, made on the store's own connection, not on the reader the vector leg uses)
    and its vector leg runs."""
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    with Brain(workspace, config=config, provider=real_provider) as brain:
        note = brain.write("Our staging database is refreshed every Sunday night.").document
        assert brain.store.vector_model("text") is None
        response = brain.search(SearchRequest(query="staging database"))
        # the search embedded the waiting note first (read your writes), recording the model
        assert response.legs["vector"] == "ok" and response.legs["lexical"] == "ok"
        assert [h.id for h in response.results] == [note.id]
        assert brain.store.vector_model("text") == (real_provider.name, real_provider.dim)


@pytest.fixture
def seeded(brain: Brain) -> dict[str, str]:
    """Five notes on one topic that differ in exactly one filterable attribute each."""
    now = time.time()
    text = "Deployment checklist: run migrations, then restart the workers ({})."
    ids = {
        "base": brain.write(
            text.format("base"), collection="ops", tags=["deploy"], created_at=now - 2 * DAY
        ).document.id,
        "other_collection": brain.write(
            text.format("docs"), collection="docs", tags=["deploy"], created_at=now - 2 * DAY
        ).document.id,
        "other_tag": brain.write(
            text.format("tag"), collection="ops", tags=["misc"], created_at=now - 2 * DAY
        ).document.id,
        "other_kind": brain.write(
            text.format("kind"),
            collection="ops",
            tags=["deploy"],
            kind="session",
            created_at=now - 2 * DAY,
        ).document.id,
        "old": brain.write(
            text.format("old"), collection="ops", tags=["deploy"], created_at=now - 40 * DAY
        ).document.id,
    }
    return ids


FILTERS = {
    "collection": ({"collection": ["ops"]}, "other_collection"),
    "tags": ({"tags": ["deploy"]}, "other_tag"),
    "kind": ({"kind": ["note"]}, "other_kind"),
    "created_after": ({"created_after": "10d"}, "old"),
    "created_before": ({"created_before": "10d"}, "base"),
}


@pytest.mark.parametrize("mode", ["lexical", "vector", "hybrid"])
@pytest.mark.parametrize("name", list(FILTERS))
def test_each_filter_is_applied_by_each_leg(
    brain: Brain, seeded: dict[str, str], mode: str, name: str
) -> None:
    query = "deployment checklist migrations workers"
    unfiltered = _ids(brain, query=query, mode=mode, limit=50)
    filt, excluded = FILTERS[name]
    assert seeded[excluded] in unfiltered  # positive control
    filtered = _ids(brain, query=query, mode=mode, limit=50, **filt)
    assert seeded[excluded] not in filtered
    assert filtered, "the filter must keep the matching notes"


@pytest.mark.parametrize("name", list(FILTERS))
def test_relaxed_or_retry_keeps_every_filter(
    brain: Brain, seeded: dict[str, str], name: str
) -> None:
    # "zebra" is in no note: the AND query finds nothing, so the OR retry must run
    query = "deployment zebra"
    filt, excluded = FILTERS[name]
    unfiltered = brain.search(SearchRequest(query=query, mode="lexical", limit=50))
    assert "or" in unfiltered.fallback and seeded[excluded] in [h.id for h in unfiltered.results]
    response = brain.search(SearchRequest(query=query, mode="lexical", limit=50, **filt))
    assert "or" in response.fallback
    assert seeded[excluded] not in [h.id for h in response.results]
    assert response.results


def test_notes_holding_every_word_come_before_better_scored_ones_holding_some(
    lexical_brain: Brain,
) -> None:
    """The lexical leg lists the notes holding every query word first (AND), then the others
    (OR), each group best bm25 first: a short note saying one word three times outscores a
    long note holding both words once, yet comes after it."""
    brain = lexical_brain
    filler = " ".join(f"topic{i}" for i in range(60))
    texts = {
        "both": f"{filler} the lighthouse keeper kept a logbook {filler}",
        "one": "Lighthouse lighthouse lighthouse.",
        "other": "A logbook of tides.",
    }
    for i in range(20):  # common words elsewhere keep both query words rare
        brain.write(f"Note {i} about the harbour and its boats.")
    ids = {name: brain.write(text).document.id for name, text in texts.items()}
    response = brain.search(SearchRequest(query="lighthouse logbook", mode="lexical", limit=10))
    found = [h.id for h in response.results]
    assert found[0] == ids["both"] and set(found) == set(ids.values())
    assert "or" in response.fallback
    store = brain.store
    hits, every = store.lexical_terms(["lighthouse", "logbook"], Filters(), 10)
    assert every == 1 and len(hits) == 3
    alone = store.lexical(["lighthouse", "logbook"], "OR", Filters(), 10)
    assert alone[0].chunk_id != hits[0].chunk_id  # by score alone the short note leads
    assert store.lexical_terms(["lighthouse", "logbook"], Filters(), 1) == (hits[:1], 1)
    assert store.lexical_terms(["lighthouse"], Filters(), 10)[1] == 2


def test_trigram_retry_keeps_filters_and_finds_fragments(brain: Brain) -> None:
    a = brain.write("def parseConfigFile(path): load the YAML settings", collection="code").document
    b = brain.write("def parseConfigFile(path): legacy INI loader", collection="old").document
    response = brain.search(SearchRequest(query="ConfigFile", mode="lexical"))
    assert "trigram" in response.fallback
    assert {h.id for h in response.results} == {a.id, b.id}
    scoped = brain.search(SearchRequest(query="ConfigFile", mode="lexical", collection=["code"]))
    assert [h.id for h in scoped.results] == [a.id]


def test_substrings_are_searched_only_for_terms_the_word_index_does_not_hold(
    lexical_brain: Brain,
) -> None:
    """A word the index holds had its chance: when a filter leaves no chunk with it, its
    substrings are not searched (they are everywhere); an identifier fragment still is."""
    brain = lexical_brain
    code = brain.write("def parseConfigFile(path): read the settings", collection="code")
    brain.write("The harbour crane lifts containers; screens show cranes.", collection="ops")
    held = brain.search(SearchRequest(query="crane", mode="lexical", collection=["code"]))
    assert held.results == [] and "trigram" not in held.fallback
    fragment = brain.search(SearchRequest(query="ConfigFile", mode="lexical", collection=["code"]))
    assert "trigram" in fragment.fallback
    assert [h.id for h in fragment.results] == [code.document.id]


def test_the_exact_vector_search_ranks_what_the_filters_leave(brain: Brain) -> None:
    """A filter few documents pass is answered by an exact search (the team store ranks on
    the server): the k nearest among the documents passing, as ranking every one of them
    here gives."""
    topics = ["database backups", "payment retries", "cache warmup", "login tokens"]
    for i in range(24):
        tags = ["ops"] if i % 3 == 0 else ["misc"]
        brain.write(f"Note {i} on {topics[i % 4]} and follow-ups.", tags=tags)
    q = np.asarray(brain.provider("text")[0].embed_query("restoring the database"))  # type: ignore[union-attr]
    ops = Filters(tags=("ops",))
    ids, _, matrix = brain.store.filtered_vectors(ops, 1000)
    assert len(ids) == 8
    expected = [ids[i] for i in np.argsort(-(matrix @ q))[:3]]
    near, _, near_matrix = brain.store.nearest_vectors(q, ops, 3, cap=1000)
    assert near == expected
    assert np.allclose(near_matrix @ q, np.sort(matrix @ q)[::-1][:3], atol=1e-5)
    assert brain.store.nearest_vectors(q, Filters(tags=("none",)), 3, cap=1000)[0] == []


def test_cjk_text_is_findable(brain: Brain) -> None:
    zh = brain.write("我们决定使用数据库连接池来减少延迟。").document
    ja = brain.write("キャッシュの有効期限は十分です。").document
    brain.write("An English note about latency.")
    assert _ids(brain, query="连接池", mode="lexical") == [zh.id]
    assert _ids(brain, query="数据库连接", mode="lexical") == [zh.id]
    assert _ids(brain, query="有効期限", mode="lexical") == [ja.id]


class _BrokenQueries(EmbeddingProvider):
    """The real model for documents; every query embedding fails (endpoint down, OOM...)."""

    def __init__(self, inner: EmbeddingProvider) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        raise RuntimeError("model crashed")


def test_vector_leg_failing_leaves_lexical_results(
    workspace: Path, real_provider: EmbeddingProvider
) -> None:
    with Brain(workspace, provider=_BrokenQueries(real_provider)) as brain:
        note = brain.write("Rate limits are 100 requests per minute per token.").document
        response = brain.search(SearchRequest(query="rate limits"))
        assert response.legs["vector"].startswith("failed: model crashed")
        assert response.legs["lexical"] == "ok"
        assert [h.id for h in response.results] == [note.id]
        with pytest.raises(NanoBrainError, match="vector search is unavailable"):
            brain.search(SearchRequest(query="rate limits", mode="vector"))


_THREAD_NOTES = (
    "The billing service retries failed card charges three times.",
    "Invoices are generated on the first business day of each month.",
    "Payment webhooks are verified with the provider's signing secret.",
    "Refunds above 500 euros need a second approval.",
    "Frontend uses React with server components.",
)


def test_hybrid_legs_run_on_two_threads_and_rank_as_on_one(
    brain: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [brain.write(text).document.id for text in _THREAD_NOTES]
    store = brain.store
    readers: list[str] = []
    reading = store.reading

    def counted() -> object:
        readers.append(threading.current_thread().name)
        return reading()

    monkeypatch.setattr(store, "reading", counted)
    queries = ("payment attempts repeated", "card charges", "monthly invoice", "refund approval")
    # the floor off: these weak paraphrases are below it, and the legs are what is compared
    beside = [
        brain.search(SearchRequest(query=q, explain=True, track=False, floor="off"))
        for q in queries
    ]
    # each vector leg ran on a reader connection, on a thread other than the caller's
    assert len(readers) == len(queries)
    assert threading.current_thread().name not in readers
    monkeypatch.setattr(store, "concurrent_reads", lambda: False)
    alone = [
        brain.search(SearchRequest(query=q, explain=True, track=False, floor="off"))
        for q in queries
    ]
    assert len(readers) == len(queries)  # one thread: no reader asked for
    for two, one in zip(beside, alone, strict=True):
        assert two.legs == one.legs and two.fallback == one.fallback
        assert [h.id for h in two.results] == [h.id for h in one.results]
        for a, b in zip(two.results, one.results, strict=True):  # times differ, legs do not
            assert a.explain and b.explain
            assert (a.explain["ranks"], a.explain["leg_scores"]) == (
                b.explain["ranks"],
                b.explain["leg_scores"],
            )
    # the paraphrase shares no word with the note: found by the leg that ran beside
    found = {h.id: h.explain for h in beside[0].results}
    assert set((found[ids[0]] or {})["ranks"]) == {"vector"}


def test_a_search_inside_a_write_transaction_sees_that_transaction(brain: Brain) -> None:
    """Readers beside the store's connection see committed rows only: a search inside a
    write transaction reads on its own thread and finds what the transaction wrote."""
    brain.write("Frontend uses React with server components.")
    with brain.store.transaction():
        note = brain.write("The billing service retries failed card charges three times.")
        assert not brain.store.concurrent_reads()
        response = brain.search(
            SearchRequest(query="payment attempts repeated", explain=True, floor="off")
        )
        assert response.results[0].id == note.document.id
        assert "vector" in (response.results[0].explain or {})["ranks"]
    assert brain.store.concurrent_reads()


def test_no_provider_means_lexical_only(lexical_brain: Brain) -> None:
    note = lexical_brain.write("Feature flags live in LaunchDarkly.").document
    response = lexical_brain.search(SearchRequest(query="feature flags"))
    assert response.legs["vector"].startswith("unavailable")
    assert [h.id for h in response.results] == [note.id]


def test_explain_shows_every_component(brain: Brain) -> None:
    brain.write("Logs are shipped to Loki and kept for 14 days.")
    hit = brain.search(SearchRequest(query="log retention Loki", explain=True)).results[0]
    ex = hit.explain
    assert ex is not None and set(ex["ranks"]) == {"lexical", "vector"}
    assert ex["fused"] == pytest.approx(ex.get("lexical_rrf", 0) + ex.get("vector_rrf", 0))
    best_possible = (1.5 + 1.0) / (10 + 1)  # first in both legs, default weights and rrf_k
    assert ex["final"] == pytest.approx(ex["fused"] * ex["recency_boost"] / best_possible)
    assert hit.score == pytest.approx(ex["final"], abs=1e-6)


def test_recency_boost_orders_equal_matches(brain: Brain) -> None:
    now = time.time()
    old = brain.write(
        "Token rotation happens monthly (old note).", created_at=now - 300 * DAY
    ).document
    new = brain.write("Token rotation happens monthly (new note).", created_at=now).document
    # the old note's updated_at is its write time; age it so recency differs
    brain.store._exec(
        "UPDATE documents SET updated_at = ? WHERE uid = ?", (now - 300 * DAY, old.id)
    )
    ids = _ids(brain, query="token rotation monthly", explain=True)
    assert ids.index(new.id) < ids.index(old.id)


def test_include_content_and_limit(brain: Brain) -> None:
    for i in range(5):
        brain.write(f"Queue consumer {i} handles retries with backoff.")
    response = brain.search(
        SearchRequest(query="queue consumer retries", limit=3, include_content=True)
    )
    assert len(response.results) == 3
    assert all(h.content and h.content.startswith("Queue consumer") for h in response.results)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query is empty"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "mode": "psychic"}, "mode"),
        ({"query": "x", "created_after": "yesterday-ish"}, "invalid time"),
        ({"query": "x" * 5000}, "query"),
        ({"query": "x", "depth": 0}, "depth"),
    ],
)
def test_bad_requests_are_clear_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        validate_request(**kwargs)


def test_code_queries_drop_language_names_only_when_other_words_remain() -> None:
    assert code_query("python read a csv file") == "read a csv file"
    assert code_query("How to sort a dict in Python3?") == "How to sort a dict in"
    assert code_query("python") == "python"  # nothing else to search for
    assert code_query("go to definition") == "go to definition"
