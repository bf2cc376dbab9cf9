"""Filtered lexical search is the exact filtered top-k, whichever plan the store picks.

A real SQLite store holds a few hundred documents with overlapping words, spread over
collections, kinds, tags and times, some edited into new versions, some superseded or
retracted. Every filtered search must return what filtering an unfiltered search deep enough
to hold every match would keep: the same scores in the same order, and the same chunks
wherever the score is not tied with the last one kept. Both plans are checked: driven by a
selective indexed filter (only its documents' chunks are scored) and ranked by FTS5 first
(with its retry over every match when too few of the best pass).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from nano_brain import Brain, Filters, SearchRequest
from nano_brain.config import load_config
from nano_brain.store import DocumentRow, Hit, SqliteStore
from nano_brain.store.rows import LexicalKind, Operator
from nano_brain.store.sqlite import lexical as sqlite_lexical

T0 = 1_700_000_000.0
HOUR = 3600.0
WORDS = (
    "deploy queue worker retry cache index shard replica backup restore billing invoice "
    "ledger token session cookie schema migration rollback canary metric alert latency "
    "throughput budget quota tenant region cluster node pod volume snapshot lease lock"
).split()
QUERIES = [
    ["deploy", "worker"],
    ["cache", "index", "shard"],
    ["retry"],
    ["billing", "ledger", "token", "alert"],
    ["migration", "rollback"],
    ["cluster", "node", "pod", "volume", "lease"],
]


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    """A lexical-only Brain on ~600 current documents (and older versions and statuses)."""
    root = tmp_path_factory.mktemp("lexical-filters")
    workspace = root / "ws"
    workspace.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            patch.setenv(var, str(root / var.lower()))
        for key in list(__import__("os").environ):
            if key.startswith("NANO_BRAIN_"):
                patch.delenv(key)
        config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
        with Brain(workspace, config=config, db_path=root / "store.db") as b:
            _fill(b, random.Random(7))
            yield b


@pytest.fixture(scope="module")
def store(brain: Brain) -> SqliteStore:
    assert isinstance(brain.store, SqliteStore)
    return brain.store


#: The clock between the 300th and 301st writes (documents are updated when written).
MIDDLE: list[float] = []


def _fill(brain: Brain, rng: random.Random) -> None:
    # a few words are common, most are not: bm25 scores spread, and an OR query matches most
    # documents while its best matches crowd into a few
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    for i in range(600):
        if i == 300:  # a whole second, which a search request's time text holds exactly
            time.sleep(1.01 - time.time() % 1)
            MIDDLE[:] = [float(int(time.time()))]
        words = rng.choices(WORDS, weights=weights, k=rng.randint(6, 40))
        created = T0 + i * HOUR
        if rng.random() < 0.2:  # times mostly follow insertion, not always
            created = T0 + rng.uniform(0, 600) * HOUR
        tags = [t for t, p in (("rare", 0.03), ("common", 0.4), ("mid", 0.1)) if rng.random() < p]
        brain.write(
            " ".join(words),
            title=" ".join(rng.choices(WORDS, k=2)) if rng.random() < 0.5 else None,
            collection=rng.choices(["alpha", "beta", "gamma"], weights=[70, 25, 5])[0],
            kind="session" if rng.random() < 0.2 else "note",
            tags=tags,
            source_path=f"docs/{i}.md" if i % 10 == 0 else None,
            created_at=created,
        )
    for i in range(0, 600, 20):  # new versions: the old ones keep their tags and chunks
        brain.write(
            " ".join(rng.choices(WORDS, weights=weights, k=20)),
            collection="alpha",
            tags=["rare"],
            source_path=f"docs/{i}.md",
            created_at=T0 + rng.uniform(0, 600) * HOUR,
        )
    current = brain.list(Filters(), limit=1000)
    for doc in rng.sample(current, 30):
        brain.retract(f"#{doc.id}")


FILTERS = {
    "tag rare": Filters(tags=("rare",)),
    "tag common": Filters(tags=("common",)),
    "two tags": Filters(tags=("common", "mid")),
    "collection beta": Filters(collections=("beta",)),
    "collection alpha": Filters(collections=("alpha",)),
    "two collections": Filters(collections=("beta", "gamma")),
    "kind": Filters(kinds=("session",)),
    "created after": Filters(created_after=T0 + 560 * HOUR),
    "created range": Filters(created_after=T0 + 100 * HOUR, created_before=T0 + 160 * HOUR),
    "updated after": Filters(),  # resolved by `_filters`: the clock in the middle of the fill
    "kind and created after": Filters(kinds=("session",), created_after=T0 + 500 * HOUR),
    "tag and collection": Filters(tags=("common",), collections=("gamma",)),
    "nothing passes": Filters(kinds=("session",), created_after=T0 + 10_000 * HOUR),
}


def _filters(name: str) -> Filters:
    if name == "updated after":
        return Filters(updated_after=MIDDLE[0])
    return FILTERS[name]


def _passes(doc: DocumentRow, f: Filters) -> bool:
    """The user filters, spelled out in Python over a document row."""
    return (
        (not f.collections or doc.collection in f.collections)
        and set(f.tags) <= set(doc.tags)
        and doc.kind in f.allowed_kinds()
        and (f.created_after is None or doc.created_at >= f.created_after)
        and (f.created_before is None or doc.created_at < f.created_before)
        and (f.updated_after is None or doc.updated_at >= f.updated_after)
        and (f.updated_before is None or doc.updated_at < f.updated_before)
    )


def _assert_exact_top(got: list[Hit], passing: list[Hit], k: int, what: str) -> None:
    """`got` is a top-k of `passing` (every visible match that passes, best first): the
    same scores, the same chunks above the last score, and chunks of that score that pass."""
    want = passing[:k]
    assert [h.score for h in got] == [h.score for h in want], what
    assert len({h.chunk_id for h in got}) == len(got), what
    last = want[-1].score if want else None
    assert {h.chunk_id for h in got if h.score != last} == {
        h.chunk_id for h in want if h.score != last
    }, what
    tied = {h.chunk_id for h in passing if h.score == last}
    assert {h.chunk_id for h in got if h.score == last} <= tied, what
    docs = {h.chunk_id: h.doc_id for h in passing}
    assert all(docs[h.chunk_id] == h.doc_id for h in got), what


def _check(store: SqliteStore, kind: LexicalKind, f: Filters, name: str) -> int:
    """Compare every query, AND and OR, at a few depths; returns how many were compared."""
    compared = 0
    ops: tuple[Operator, ...] = ("AND", "OR")
    for words in QUERIES:
        for op in ops:
            # an unfiltered search as deep as the store: every visible match
            deep = store.lexical(words, op, Filters(), 100_000, kind=kind)
            docs = store.get_many({h.doc_id for h in deep})
            passing = [h for h in deep if _passes(docs[h.doc_id], f)]
            for k in (1, 5, 20):
                got = store.lexical(words, op, f, k, kind=kind)
                _assert_exact_top(got, passing, k, f"{name}: {kind} {op} {words} k={k}")
                compared += 1
    return compared


@pytest.fixture(params=["driven", "ranked first"])
def plan(
    request: pytest.FixtureRequest, store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """Which plan the store must pick: driven by any indexed filter (however many documents
    it leaves), or never driven."""
    if request.param == "ranked first":
        monkeypatch.setattr(sqlite_lexical, "DRIVE_LIMIT", -1)
    else:
        monkeypatch.setattr(sqlite_lexical, "DRIVE_SHARE", 1.0)
    store._drivers.clear()  # the choice is remembered per filters
    yield request.param
    store._drivers.clear()


@pytest.mark.parametrize("name", list(FILTERS))
def test_filtered_search_is_the_exact_filtered_top_k(
    store: SqliteStore, plan: str, name: str
) -> None:
    f = _filters(name)
    indexed = bool(f.tags or f.collections or f.created_after or f.created_before)
    indexed = indexed or f.updated_after is not None
    assert (store._lexical_driver(f) is not None) == (plan == "driven" and indexed)
    assert _check(store, "words", f, name) == len(QUERIES) * 2 * 3


@pytest.mark.parametrize("name", ["tag rare", "created after", "collection beta"])
def test_trigram_leg_is_the_exact_filtered_top_k(store: SqliteStore, plan: str, name: str) -> None:
    _check(store, "trigrams", _filters(name), name)


def test_the_filters_are_selective_enough_to_matter(store: SqliteStore) -> None:
    """The cases above are not vacuous: the filters keep a minority of the matches, and the
    best unfiltered matches are mostly rejected (so the ranked-first plan retries)."""
    deep = store.lexical(["deploy", "worker", "queue"], "OR", Filters(), 100_000)
    docs = store.get_many({h.doc_id for h in deep})
    rare = [h for h in deep if "rare" in docs[h.doc_id].tags]
    assert len(deep) > 300 and 0 < len(rare) < len(deep) / 10
    best = deep[: 5 * 16]  # what the ranked-first plan ranks first for k=5
    assert sum("rare" in docs[h.doc_id].tags for h in best) < 5


def test_old_versions_and_hidden_statuses_never_leak_through_a_driver(
    store: SqliteStore,
) -> None:
    """The tag and time indexes list old versions and retracted documents too; the driven
    plan must still keep only what the predicate allows."""
    f = FILTERS["tag rare"]
    assert store._lexical_driver(f) is not None
    hits = store.lexical(WORDS, "OR", f, 1000)
    docs = store.get_many({h.doc_id for h in hits})
    assert hits and all(d.valid_to is None and d.status == "active" for d in docs.values())
    versions = store._rows("SELECT count(*) FROM documents WHERE valid_to IS NOT NULL")[0][0]
    assert versions >= 20


def test_only_filters_leaving_a_small_share_drive(store: SqliteStore) -> None:
    """With the store's own limits: a tag on a few percent of the documents drives, a tag or
    collection on most of them leaves the search to FTS5's ranking (cheaper there)."""
    store._drivers.clear()
    assert store._lexical_driver(FILTERS["tag rare"]) is not None
    assert store._lexical_driver(FILTERS["tag common"]) is None
    assert store._lexical_driver(FILTERS["collection alpha"]) is None
    assert store._lexical_driver(FILTERS["kind"]) is None  # no index: never


def test_a_store_change_makes_the_driver_be_chosen_again(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = FILTERS["tag rare"]
    store._drivers.clear()
    assert store._lexical_driver(f) is not None
    monkeypatch.setattr(sqlite_lexical, "DRIVE_LIMIT", 10)
    assert store._lexical_driver(f) is not None  # remembered
    monkeypatch.setattr(sqlite_lexical, "_DRIVER_RECOUNT", 1)
    with store.transaction():
        store.meta_set("lexical-filters-test", "1")
    assert store._lexical_driver(f) is None  # counted again: too many now
    store._drivers.clear()


def _request_filters(f: Filters) -> dict[str, Any]:
    """The same filters as a search request's fields."""
    fields: dict[str, Any] = {"collection": list(f.collections), "tags": list(f.tags)}
    fields["kind"] = list(f.kinds)
    for name in ("created_after", "created_before", "updated_after", "updated_before"):
        value = getattr(f, name)
        if value is not None:
            fields[name] = datetime.fromtimestamp(value, tz=UTC).isoformat()
    return fields


@pytest.mark.parametrize("name", list(FILTERS))
def test_searches_return_the_same_results_on_both_plans(
    brain: Brain, store: SqliteStore, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Through the whole lexical pipeline (AND, the OR retry, trigrams, fusion): the same
    documents in the same order with the same scores, driven or ranked first."""
    fields = _request_filters(_filters(name))
    assert SearchRequest(query="x", **fields).filters() == _filters(name)
    queries = ["deploy worker", "cache shard replica", "billing zebra", "rollback", "snapsh"]

    def results() -> list[list[tuple[str, float]]]:
        store._drivers.clear()
        return [
            [
                (h.id, h.score)
                for h in brain.search(
                    SearchRequest(query=q, mode="lexical", limit=20, track=False, **fields)
                ).results
            ]
            for q in queries
        ]

    with monkeypatch.context() as patch:
        patch.setattr(sqlite_lexical, "DRIVE_SHARE", 1.0)
        driven = results()
    monkeypatch.setattr(sqlite_lexical, "DRIVE_LIMIT", -1)
    ranked_first = results()
    store._drivers.clear()
    assert [[i for i, _ in r] for r in driven] == [[i for i, _ in r] for r in ranked_first]
    # the recency boost moves with the clock between the two runs, by far less than this
    for got, want in zip(driven, ranked_first, strict=True):
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
    if name != "nothing passes":
        assert any(driven), "the filter must keep some matches"


@pytest.mark.parametrize("name", list(FILTERS))
def test_an_or_of_rare_and_common_words_is_the_exact_top_k_of_chunks_with_a_rare_one(
    store: SqliteStore, plan: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OR whose words are partly common matches the chunks holding a rare word, scored
    with every word (ranked as two groups: rare and common words, rare only): the same top k
    as the whole OR scored at once and kept to those chunks."""
    f = _filters(name)
    monkeypatch.setattr(sqlite_lexical, "_COMMON_SHARE", 0.0)
    groups: list[str] = []
    ranked = store._ranked

    def counted(table: str, match: str, *args: Any) -> list[Hit]:
        groups.append(match)
        return ranked(table, match, *args)

    for words in (q for q in QUERIES if len(q) > 1):
        counts, _ = store.term_counts(words)
        # the commonest half of the words are "common"
        middle = sorted(counts.values())[(len(words) - 1) // 2]
        monkeypatch.setattr(sqlite_lexical, "_COMMON_WORD", middle)
        match = " OR ".join(f'"{w}"' for w in words)
        assert store._split_common(match) is not None
        rare = " OR ".join(f'"{w}"' for w in words if counts[w] <= middle)
        every = sqlite_lexical.BM25_WEIGHTS
        holding_rare = {h.chunk_id for h in ranked("chunks_fts", rare, Filters(), 100_000, every)}
        deep = ranked("chunks_fts", match, Filters(), 100_000, every)
        docs = store.get_many({h.doc_id for h in deep})
        passing = [h for h in deep if _passes(docs[h.doc_id], f) and h.chunk_id in holding_rare]
        monkeypatch.setattr(store, "_ranked", counted)
        for k in (1, 5, 20):
            got = store.lexical(words, "OR", f, k)
            _assert_exact_top(_sums(got), _sums(passing), k, f"{name}: {match!r} k={k}")
        monkeypatch.setattr(store, "_ranked", ranked)
    assert any(" AND " in g for g in groups) and any(" NOT " in g for g in groups)


def test_chunks_holding_only_common_words_do_not_match_an_or_with_rare_ones(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = QUERIES[-1]
    counts, _ = store.term_counts(words)
    commonest = max(counts, key=lambda w: counts[w])
    monkeypatch.setattr(sqlite_lexical, "_COMMON_SHARE", 0.0)
    monkeypatch.setattr(sqlite_lexical, "_COMMON_WORD", counts[commonest] - 1)
    match = " OR ".join(f'"{w}"' for w in words)
    assert store._split_common(match) == (
        " OR ".join(f'"{w}"' for w in words if w != commonest),
        f'"{commonest}"',
    )
    every = sqlite_lexical.BM25_WEIGHTS
    rare = " OR ".join(f'"{w}"' for w in words if w != commonest)
    only_common = {h.chunk_id for h in store._ranked(
        "chunks_fts", f'"{commonest}" NOT ({rare})', Filters(), 100_000, every)}  # fmt: skip
    assert only_common, "the fixture must have chunks holding the common word alone"
    got = store.lexical(words, "OR", Filters(), 100_000)
    assert got and not {h.chunk_id for h in got} & only_common
    # every word common: a plain OR, which they match
    monkeypatch.setattr(sqlite_lexical, "_COMMON_WORD", 0)
    assert store._split_common(match) is None
    assert only_common <= {h.chunk_id for h in store.lexical(words, "OR", Filters(), 100_000)}


def _sums(hits: list[Hit]) -> list[Hit]:
    """Scores to 12 digits: bm25 adds the words' parts in another order when the words are
    grouped, which can change the last bit."""
    return [Hit(h.chunk_id, h.doc_id, float(f"{h.score:.12g}")) for h in hits]
