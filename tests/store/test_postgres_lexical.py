"""The team store's lexical leg on a real PostgreSQL: candidates from each lexeme's best
postings (impact order) scored exactly, the fallback to every posting when filters leave too
few, document frequencies kept by triggers, and migration 4 filling them in for postings
written before it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from nano_brain import Filters
from nano_brain.store.postgres import lexical, schema, testserver
from nano_brain.store.postgres.store import PostgresStore, migrate
from nano_brain.store.rows import Operator

from .conftest import team_brain

_EVERYTHING = 10**9


@pytest.fixture(scope="module")
def notes(pg_server: testserver.TestServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A workspace of 120 notes: every one says alpha, half beta, five gamma; three in a
    collection of their own say alpha many times in long text (low impact)."""
    root = tmp_path_factory.mktemp("lexical")
    with team_brain(root, pg_server.app_url, "team/lexical") as brain:
        for i in range(120):
            words = ["alpha", f"item{i}"] + ["beta"] * (i % 2) + ["gamma"] * (i % 24 == 0)
            brain.write(" ".join(words) + ".", title=f"Note {i}", collection="main")
        for i in range(3):
            filler = " ".join(f"word{i}x{j}" for j in range(80))
            brain.write(f"alpha {filler} beta.", title=f"Rare {i}", collection="rare")
    return "team/lexical"


@pytest.fixture
def store(pg_server: testserver.TestServer, notes: str, tmp_path: Path) -> Iterator[PostgresStore]:
    found = PostgresStore(pg_server.app_url, notes, path=tmp_path / "x.db")
    yield found
    found.close()


def _search(
    store: PostgresStore,
    patch: pytest.MonkeyPatch,
    terms: list[str],
    op: Operator,
    filters: Filters,
    limit: int,
    *,
    read: int,
) -> list[tuple[int, float]]:
    """Hits with every lexeme's postings read up to `read` (at least a few times `limit`)."""
    patch.setattr(lexical, "_AND_READ", read)
    patch.setattr(lexical, "_OR_READ", read)
    patch.setattr(lexical, "_OR_EXACT", 0 if read < _EVERYTHING else _EVERYTHING)
    return [(h.chunk_id, round(h.score, 9)) for h in store.lexical(terms, op, filters, limit)]


@pytest.fixture(params=["by key", "joined"])
def lookup(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the candidates' other postings are read: by key (small workspaces), or joined
    (large ones); both must give the same hits."""
    if request.param == "joined":
        monkeypatch.setattr(lexical, "_LOOKUP_WORKSPACE", -1)
    return str(request.param)


def test_best_postings_give_exactly_scored_hits(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch, lookup: str
) -> None:
    """With 120 postings of alpha and 32 read (limit 2), alpha's other postings are looked up
    for the candidates: each hit scores as when every posting is read, and the best hits
    (gamma's, all read: five postings) are the same."""
    exact = dict(
        _search(store, monkeypatch, ["alpha", "gamma"], "OR", Filters(), 200, read=_EVERYTHING)
    )
    fast = _search(store, monkeypatch, ["alpha", "gamma"], "OR", Filters(), 2, read=1)
    assert len(fast) == 2
    assert all(exact[chunk] == score for chunk, score in fast)
    best = sorted(exact.items(), key=lambda item: (item[1], item[0]))[:2]
    assert fast == best
    # an AND query's candidates are its rarest lexeme's postings (gamma's five, all read)
    both = _search(store, monkeypatch, ["alpha", "gamma"], "AND", Filters(), 2, read=1)
    assert both == _search(store, monkeypatch, ["alpha", "gamma"], "AND", Filters(), 2,
                           read=_EVERYTHING)  # fmt: skip


def test_filters_that_reject_the_best_candidates_fall_back_to_every_posting(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch, lookup: str
) -> None:
    """The rare collection's notes rank last on alpha (long text): among the first 64 of
    alpha's 123 postings (limit 1, a filter: 16 candidates, four times as many postings)
    there are none, so the filtered search reads them all."""
    rare = Filters(collections=("rare",))
    queries: list[tuple[list[str], Operator]] = [(["alpha"], "AND"), (["alpha", "item5"], "OR")]
    for terms, op in queries:
        expected = _search(store, monkeypatch, terms, op, rare, 1, read=_EVERYTHING)
        assert len(expected) == 1
        assert _search(store, monkeypatch, terms, op, rare, 1, read=1) == expected
    # a kind the store holds none of: nothing, whatever the postings
    commits = Filters(kinds=("commit",))
    assert _search(store, monkeypatch, ["alpha", "beta"], "OR", commits, 2, read=1) == []


def test_document_frequencies_follow_writes_and_deletes(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    with team_brain(tmp_path / "ws", pg_server.app_url, "team/df") as brain:
        first = brain.write("The heron fishes at dawn.", title="Heron")
        brain.write("A heron and an egret.", title="Birds")

        def df() -> dict[str, int]:
            rows = brain.store._rows(
                "SELECT lexeme, df FROM chunk_terms_df WHERE workspace_id = 'team/df' "
                "AND lexeme IN ('heron', 'egret', 'dawn')"
            )
            return {r[0]: int(r[1]) for r in rows}

        assert df() == {"heron": 2, "egret": 1, "dawn": 1}  # chunks, not occurrences
        counted = brain.store._rows("SELECT lexeme, count(*) FROM chunk_terms GROUP BY lexeme")
        kept = brain.store._rows("SELECT lexeme, df FROM chunk_terms_df WHERE df > 0")
        assert sorted(counted) == sorted(kept) and counted
        brain.delete(f"#{first.document.id}")
        assert df() == {"heron": 1, "egret": 1, "dawn": 0}
        hits = brain.store.lexical(["heron"], "AND", Filters(), 10)
        assert len(hits) == 1


def test_migration_4_fills_impacts_and_frequencies_of_postings_written_before_it(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    owner = pg_server.owner_url.replace("/nano_brain?", "/nb_v3?")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS nb_v3 WITH (FORCE)")
        conn.execute("CREATE DATABASE nb_v3")
    with psycopg.connect(owner, autocommit=True) as conn:
        migrate(conn, "nb_v3", to=3)
        w1 = ["pelican pelican dives", "pelican rests", "heron", "egret", "crane"]
        for ws, bodies in (("w1", w1), ("w2", ["pelican"])):
            for i, body in enumerate(bodies):
                doc = conn.execute(
                    "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
                    "content_hash, created_at, updated_at, valid_from, recorded_at) VALUES "
                    "(%s, %s, 'note', 'memory', 'Bird', %s, 'h', 1, 1, 1, 1) RETURNING id",
                    (ws, f"u{i}", body),
                ).fetchone()[0]
                conn.execute(
                    "INSERT INTO chunks (doc_id, workspace_id, seq, title, body, start_line, "
                    "end_line) VALUES (%s, %s, 0, 'Bird', %s, 1, 1)",
                    (doc, ws, body),
                )
        migrate(conn, "nb_v3")
        version = conn.execute("SELECT max(version) FROM nb_schema").fetchone()[0]
        assert version == schema.SCHEMA_VERSION
        conn.execute(schema.grant_sql(testserver.APP_ROLE))
        frequencies = conn.execute(
            "SELECT workspace_id, lexeme, df FROM chunk_terms_df ORDER BY 1, 2"
        ).fetchall()
        assert ("w1", "pelican", 2) in frequencies and ("w2", "pelican", 1) in frequencies
        assert ("w1", "bird", 5) in frequencies and len(frequencies) == 9
        postings = conn.execute(
            "SELECT t.tf_title, t.tf_body, t.ntok, t.impact, s.tokens::float8 / s.chunks "
            "FROM chunk_terms t JOIN chunk_stats s USING (workspace_id)"
        ).fetchall()
        pelican = conn.execute(
            "SELECT t.chunk_id, t.tf_body, t.ntok, s.tokens::float8 / s.chunks FROM chunk_terms t "
            "JOIN chunk_stats s USING (workspace_id) WHERE t.workspace_id = 'w1' "
            "AND t.lexeme = 'pelican'"
        ).fetchall()
    for tf_title, tf_body, ntok, impact, avgdl in postings:
        f = 5 * tf_title + tf_body
        assert impact == pytest.approx(f * 2.2 / (f + 1.2 * (0.25 + 0.75 * ntok / avgdl)))
    idf = math.log((5 - 2 + 0.5) / (2 + 0.5))  # N 5, df 2
    expected = sorted(
        (-idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * n / avgdl)), chunk)
        for chunk, f, n, avgdl in pelican
    )
    app = owner.replace("postgres:@", f"{testserver.APP_ROLE}@")
    store = PostgresStore(app, "w1", path=tmp_path / "x.db")
    try:
        hits = store.lexical(["pelican"], "AND", Filters(), 10)
        assert [h.chunk_id for h in hits] == [chunk for _, chunk in expected]
        assert [h.score for h in hits] == pytest.approx([score for score, _ in expected])
        assert expected[0][0] < expected[1][0]  # the chunk saying it twice first
    finally:
        store.close()


def test_term_counts_are_the_lexemes_document_frequencies(store: PostgresStore) -> None:
    # the fixture: alpha in all 123 notes, beta in 60 + 3, gamma in 5, item7 in one
    counts, total = store.term_counts(["alpha", "Beta", "gammas", "item7", "nowhere"])
    assert counts == {"alpha": 123, "Beta": 63, "gammas": 5, "item7": 1, "nowhere": 0}
    assert total == 123
    with store.reading():  # a reader connection is scoped to the same workspace
        assert store.term_counts(["alpha", "gamma"]) == ({"alpha": 123, "gamma": 5}, 123)


@pytest.mark.parametrize("read", [1, _EVERYTHING])
def test_every_word_then_any_in_one_statement_equals_the_two_searches(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch, lookup: str, read: int
) -> None:
    """`lexical_terms` ranks the chunks holding every word first, then those holding any:
    the same hits, scores and order as the AND search followed by the OR search, whatever
    the postings read first, the filters and the limit."""
    queries = [["alpha", "beta"], ["beta", "gamma"], ["gamma", "item0"], ["item5", "beta", "alpha"],
               ["beta", "item7"], ["alpha"], ["nowhere", "gamma"]]  # fmt: skip
    reordered = 0  # cases where a chunk holding some words outscores one holding all
    for terms in queries:
        for filters in (Filters(), Filters(collections=("rare",)), Filters(collections=("main",))):
            for limit in (1, 3, 40, 200):
                every = _search(store, monkeypatch, terms, "AND", filters, limit,
                                read=read)  # fmt: skip
                anyone = _search(store, monkeypatch, terms, "OR", filters, limit,
                                 read=read)  # fmt: skip
                expected = every + [h for h in anyone if h not in every]
                reordered += expected != sorted(expected, key=lambda h: (h[1], h[0]))
                hits, n = store.lexical_terms(terms, filters, limit)
                assert [(h.chunk_id, round(h.score, 9)) for h in hits] == expected[:limit]
                assert n == min(len(every), limit)
    assert reordered


def test_filters_few_documents_pass_read_only_their_postings_with_the_same_hits(
    store: PostgresStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When at most a few documents pass the filters, only their chunks' postings are read
    (by key): the hits and scores are those of reading every posting."""
    rare = Filters(collections=("rare",))  # 3 of 123 documents
    calls: list[str] = []
    driven = store._driven

    def counted(*args: Any) -> Any:
        calls.append(args[1])
        return driven(*args)

    def both(terms: list[str], limit: int) -> list[Any]:
        hits, every = store.lexical_terms(terms, rare, limit)
        out: list[Any] = [[(h.chunk_id, round(h.score, 9)) for h in hits], every]
        for op in ("AND", "OR"):
            found = store.lexical(terms, op, rare, limit)
            out.append([(h.chunk_id, round(h.score, 9)) for h in found])
        return out

    monkeypatch.setattr(store, "_driven", counted)
    for terms in (["alpha"], ["alpha", "beta"], ["beta", "item5"], ["nowhere", "beta"]):
        for limit in (1, 2, 10):
            got = both(terms, limit)
            with monkeypatch.context() as patch:  # every posting read, then filtered
                patch.setattr(lexical, "DRIVE_LIMIT", -1)
                patch.setattr(lexical, "_OR_EXACT", _EVERYTHING)
                patch.setattr(lexical, "_AND_READ", _EVERYTHING)
                assert got == both(terms, limit), (terms, limit)
    assert set(calls) == {"AND", "OR", "ALL"}
    assert len(store.lexical_terms(["alpha", "beta"], rare, 10)[0]) == 3  # all three hold both
