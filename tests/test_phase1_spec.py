"""One test per scenario of the phase-1 "memory intelligence" spec (seeds/000_*.txt, spec.md)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from nano_brain import Brain, SearchRequest
from nano_brain.categorize import categorize
from nano_brain.config import load_config
from nano_brain.paths import workspace_id
from nano_brain.search import decay_score, usage_boost
from nano_brain.store import Store
from nano_brain.store.sqlite._driver import load_vec, sqlite_module
from nano_brain.store.sqlite.migrations import MIGRATIONS
from nano_brain.store.sqlite.store import _statements

from .conftest import TinyEmbedder

DAY = 86400.0


def _brain(workspace: Path, **overrides: object) -> Brain:
    return Brain(
        workspace, config=load_config(workspace, overrides=overrides), provider=TinyEmbedder()
    )


def _doc_row(brain: Brain, uid: str) -> tuple[int, float | None]:
    return tuple(
        brain.store._rows(
            "SELECT access_count, last_accessed_at FROM documents "
            "WHERE uid = ? AND valid_to IS NULL",
            (uid,),
        )[0]
    )


def _set_access(
    brain: Brain, uid: str, count: int, last: float | None, created: float | None = None
) -> None:
    brain.store._exec(
        "UPDATE documents SET access_count = ?, last_accessed_at = ? WHERE uid = ?",
        (count, last, uid),
    )
    if created is not None:
        brain.store._exec(
            "UPDATE documents SET created_at = ?, updated_at = ? WHERE uid = ?",
            (created, created, uid),
        )


# -- auto-categorization --------------------------------------------------------------------


def test_content_contains_architecture_decision_keywords(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("We decided to use PostgreSQL for billing.").document
    assert "auto:architecture-decision" in doc.tags


def test_content_contains_debugging_keywords(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("Fixed bug: the stack trace pointed at the retry loop.").document
    assert "auto:debugging-insight" in doc.tags


def test_content_with_no_matching_patterns(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("The quarterly offsite is in Lisbon.").document
    assert [t for t in doc.tags if t.startswith("auto:")] == []


def test_architecture_decision_content() -> None:
    assert "auto:architecture-decision" in categorize("We chose React over Vue for the frontend")


def test_debugging_insight_content() -> None:
    assert "auto:debugging-insight" in categorize("npm install failed, fixed by clearing cache")


def test_content_matching_multiple_categories() -> None:
    tags = categorize("We decided on a blue-green deploy workflow for the API.")
    assert {"auto:architecture-decision", "auto:workflow"} <= set(tags)


def test_user_provides_explicit_tags(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("Fixed the bug in the importer.", tags=["important"]).document
    assert set(doc.tags) == {"important", "auto:debugging-insight"}


def test_user_provides_no_tags(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("Fixed the bug in the importer.").document
    assert doc.tags == ["auto:debugging-insight"]


# The scenarios' time limits (5 ms for 5 KB, 50 ms for 100 KB) are measured by
# benchmarks/bench_categorize.py: tests assert behaviour, never time.
def test_small_document_categorization() -> None:
    text = ("Notes on the deploy pipeline and the bug we fixed. " * 120)[: 5 * 1024]
    tags = categorize(text)
    assert "auto:workflow" in tags and "auto:debugging-insight" in tags


def test_large_document_categorization() -> None:
    text = ("Plain words about lunch and weather, nothing else at all here. " * 1700)[: 100 * 1024]
    assert categorize(text) == []


# -- memory-relevance-decay -----------------------------------------------------------------


def test_search_returns_multiple_results(tiny_brain: Brain) -> None:
    ids = [
        tiny_brain.write(f"Kafka consumer group {i} rebalances often.").document.id
        for i in range(5)
    ]
    before = time.time()
    hits = tiny_brain.search(SearchRequest(query="kafka consumer rebalances", limit=5)).results
    assert sorted(h.id for h in hits) == sorted(ids)
    for uid in ids:
        count, last = _doc_row(tiny_brain, uid)
        assert count == 1 and last is not None and last >= before


def test_same_document_returned_in_separate_searches(tiny_brain: Brain) -> None:
    uid = tiny_brain.write("Redis is used for sessions.").document.id
    tiny_brain.search(SearchRequest(query="redis sessions"))
    first = _doc_row(tiny_brain, uid)[1]
    time.sleep(0.01)
    tiny_brain.search(SearchRequest(query="redis"))
    count, last = _doc_row(tiny_brain, uid)
    assert count == 2 and last is not None and first is not None and last > first


def test_internal_pipeline_query_does_not_trigger_tracking(tiny_brain: Brain) -> None:
    uids = [tiny_brain.write(f"Shard {i} holds tenants {i}00-{i}99.").document.id for i in range(6)]
    hits = tiny_brain.search(SearchRequest(query="shard tenants", limit=2)).results
    returned = {h.id for h in hits}
    for uid in uids:  # the legs saw all six; only the two returned are counted
        assert _doc_row(tiny_brain, uid)[0] == (1 if uid in returned else 0)
    tiny_brain.search(SearchRequest(query="shard tenants", track=False))
    assert sum(_doc_row(tiny_brain, u)[0] for u in uids) == 2


def test_document_accessed_today() -> None:
    now = time.time()
    assert decay_score(now, now - 100 * DAY, 30, now) == pytest.approx(1.0)


def test_document_not_accessed_for_30_days_with_30_day_half_life() -> None:
    now = time.time()
    assert decay_score(now - 30 * DAY, now - 100 * DAY, 30, now) == pytest.approx(0.5)


def test_document_never_accessed() -> None:
    now = time.time()
    assert decay_score(None, now - 60 * DAY, 30, now) == pytest.approx(1 / 3)


def test_fresh_database_initialization(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws")
    columns = {r[1]: r for r in store._rows("PRAGMA table_info(documents)")}
    assert "access_count" in columns and "last_accessed_at" in columns
    assert columns["access_count"][4] == "0"


def _v1_store(path: Path, ws: str = "ws") -> None:
    """A store exactly as schema version 1 made it, holding two documents."""
    db = sqlite_module().connect(str(path), isolation_level=None)
    load_vec(db)
    for statement in _statements(MIGRATIONS[0]):
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO meta VALUES ('workspace_id', ?)", (ws,))
    for i, text in enumerate(["first kept note about caching", "second kept note about queues"]):
        db.execute(
            "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
            "content_hash, metadata, created_at, updated_at) VALUES "
            "(?, ?, 'note', 'memory', ?, ?, ?, '{}', ?, ?)",
            (ws, f"{i:012x}", text, text, f"h{i}", 1_700_000_000 + i, 1_700_000_000 + i),
        )
        db.execute(
            "INSERT INTO chunks (doc_id, workspace_id, seq, title, body, start_line, "
            "end_line) VALUES (?, ?, 0, ?, ?, 1, 1)",
            (i + 1, ws, text, text),
        )
    db.close()


def test_existing_database_without_decay_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _v1_store(path)
    store = Store(path, "ws")
    columns = {r[1] for r in store._rows("PRAGMA table_info(documents)")}
    assert {"access_count", "last_accessed_at", "status", "valid_from"} <= columns
    assert store._rows("SELECT count(*) FROM documents")[0][0] == 2
    hits = store.lexical(["queues"], "AND", __import__("nano_brain").Filters(), 10)
    assert len(hits) == 1


@pytest.mark.sqlite_only  # reads the SQLite file's own tables
def test_existing_documents_after_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _v1_store(path, workspace_id(tmp_path.resolve()))
    with Brain(tmp_path, db_path=path, provider=TinyEmbedder()) as brain:
        rows = brain.store._rows(
            "SELECT access_count, last_accessed_at, status, valid_from, created_at FROM documents"
        )
        assert [(r[0], r[1], r[2]) for r in rows] == [(0, None, "active")] * 2
        assert all(r[3] == r[4] for r in rows)
        docs = {d.title for d in brain.list()}
        assert docs == {"first kept note about caching", "second kept note about queues"}


def test_decay_not_configured(workspace: Path) -> None:
    with _brain(workspace) as brain:
        assert brain.config.decay.enabled is False
        doc = brain.write("Nginx config lives in ops/nginx.").document
        _set_access(brain, doc.id, 0, None, created=time.time() - 300 * DAY)
        hit = brain.search(SearchRequest(query="nginx config", explain=True)).results[0]
        assert hit.explain and hit.explain["decay_factor"] == 1.0


def test_decay_enabled_with_custom_half_life(workspace: Path) -> None:
    with _brain(workspace, decay={"enabled": True, "halfLife": "7d"}) as brain:
        assert brain.config.decay.half_life_days() == 7
        doc = brain.write("Nginx config lives in ops/nginx.").document
        _set_access(brain, doc.id, 0, time.time() - 7 * DAY)
        hit = brain.search(SearchRequest(query="nginx config", explain=True)).results[0]
        assert hit.explain and hit.explain["decay_score"] == pytest.approx(0.5, abs=0.01)
        assert hit.explain["decay_factor"] == pytest.approx(1 - 0.15 + 0.15 * 0.5, abs=0.01)


def test_invalid_half_life_value(workspace: Path, caplog: pytest.LogCaptureFixture) -> None:
    (workspace / ".nano-brain.yml").write_text("decay:\n  halfLife: banana\n")
    loaded = load_config(workspace)
    assert loaded.config.decay.half_life == "30d"
    assert any("halfLife" in w and "banana" in w for w in loaded.warnings)
    # the warning is the front end's to show, once (tests/test_config_warnings.py): the log
    # line a front end would print a second time is at debug level
    assert "banana" not in caplog.text


# -- usage-based-boosting -----------------------------------------------------------------


def test_document_with_no_access_history() -> None:
    assert usage_boost(0, 1.0, 0.15) == 0


def _twins(brain: Brain, text: str) -> tuple[str, str]:
    """Two documents with identical content (so identical relevance), in two collections."""
    return (
        brain.write(text, collection="one").document.id,
        brain.write(text, collection="two").document.id,
    )


def test_document_with_moderate_access_and_recent_activity(workspace: Path) -> None:
    assert usage_boost(7, 1.0, 0.15) == pytest.approx(math.log2(8) * 0.15)
    with _brain(workspace) as brain:
        a, b = _twins(brain, "Rotate the signing key yearly.")
        _set_access(brain, b, 7, time.time())
        _set_access(brain, a, 1, time.time())
        ids = [h.id for h in brain.search(SearchRequest(query="rotate signing key")).results]
        assert ids.index(b) < ids.index(a)


def test_document_with_high_access_but_stale() -> None:
    now = time.time()
    stale = usage_boost(100, decay_score(now - 90 * DAY, now - 200 * DAY, 30, now), 0.15)
    fresh = usage_boost(100, decay_score(now, now - 200 * DAY, 30, now), 0.15)
    assert stale < fresh and stale == pytest.approx(fresh * 0.25)


BEST_POSSIBLE = (1.5 + 1.0) / (10 + 1)  # the default leg weights over rrf_k + 1
BAND = 0.1  # the default search.usage_band


def test_result_with_high_centrality_and_high_usage(workspace: Path) -> None:
    # nano-brain's centrality step is the recency boost; both apply and compound
    with _brain(workspace) as brain:
        doc = brain.write("Use pgbouncer in transaction mode.").document
        _set_access(brain, doc.id, 15, time.time())
        ex = brain.search(SearchRequest(query="pgbouncer mode", explain=True)).results[0].explain
        assert ex and ex["recency_boost"] > 1 and ex["usage_boost"] > 0
        relevance = ex["fused"] * ex["recency_boost"] * ex["decay_factor"] / BEST_POSSIBLE
        assert ex["final"] == pytest.approx(relevance + ex["usage_boost"])
        # the phase-1 boost log2(16) * 1 * 0.15, mapped into the band
        assert ex["usage_boost"] == pytest.approx(BAND * (1 - math.exp(-4 * 0.15)), rel=0.01)


def test_superseded_document_with_high_usage(workspace: Path) -> None:
    with _brain(workspace) as brain:
        old = brain.write("Logs go to Elasticsearch.").document
        brain.write("Logs go to Loki now.", supersedes=old.id)
        _set_access(brain, old.id, 50, time.time())
        hits = brain.search(
            SearchRequest(query="logs elasticsearch", include_superseded=True, explain=True)
        ).results
        shown = next(h for h in hits if h.id == old.id)
        ex = shown.explain
        assert ex and ex["usage_boost"] > 0 and ex["supersede_demotion"] == 0.5
        boosted = ex["relevance"] + ex.get("thread", {}).get("share", 0) + ex["usage_boost"]
        assert ex["final"] == pytest.approx(boosted * 0.5)  # demotion applied after the boost


def test_usage_boost_disabled(workspace: Path) -> None:
    with _brain(workspace, search={"usage_boost_weight": 0}) as brain:
        doc = brain.write("Alerts page the on-call engineer.").document
        _set_access(brain, doc.id, 20, time.time())
        hit = brain.search(SearchRequest(query="alerts on-call", explain=True)).results[0]
        assert hit.explain and hit.explain["usage_boost"] == 0
        assert _doc_row(brain, doc.id)[0] == 21  # tracking still happened


def test_stronger_usage_signal(workspace: Path) -> None:
    boosts = []
    for weight in (0.15, 0.3):
        root = workspace / str(weight)
        root.mkdir()
        with _brain(root, search={"usage_boost_weight": weight}) as brain:
            doc = brain.write("Alerts page the on-call engineer.").document
            _set_access(brain, doc.id, 7, time.time())
            ex = brain.search(SearchRequest(query="alerts", explain=True)).results[0].explain
            boosts.append(ex["usage_boost"] if ex else 0)
    assert BAND > boosts[1] > boosts[0] > 0


def test_negative_boost_weight(workspace: Path) -> None:
    loaded = load_config(workspace, overrides={"search": {"usage_boost_weight": -0.5}})
    assert loaded.config.search.usage_boost_weight == 0.15
    assert any("usage_boost_weight" in w for w in loaded.warnings)


# -- search-pipeline ------------------------------------------------------------------------


def test_hybrid_search_with_usage_boost_enabled(workspace: Path) -> None:
    with _brain(workspace) as brain:
        cold, hot = _twins(brain, "Backups run nightly at 02:00.")
        _set_access(brain, hot, 12, time.time())
        ids = [h.id for h in brain.search(SearchRequest(query="backups nightly")).results]
        assert ids[0] == hot and cold in ids


def test_hybrid_search_with_usage_boost_disabled(workspace: Path) -> None:
    with _brain(workspace, search={"usage_boost_weight": 0}) as brain:
        a = brain.write("Backups run nightly at 02:00 (a).").document
        b = brain.write("Backups run nightly at 02:00 (b).").document
        request = SearchRequest(query="backups nightly", explain=True, track=False)
        before = [(h.id, h.score) for h in brain.search(request).results]
        _set_access(brain, b.id, 30, time.time())
        _set_access(brain, a.id, 0, None)
        after = [(h.id, h.score) for h in brain.search(request).results]
        assert after == before


def test_bm25_only_search_does_not_apply_usage_boost(workspace: Path) -> None:
    with _brain(workspace) as brain:
        doc = brain.write("Backups run nightly.").document
        _set_access(brain, doc.id, 40, time.time())
        lexical = brain.search(SearchRequest(query="backups", mode="lexical", explain=True))
        assert lexical.results[0].explain["usage_boost"] == 0
        hybrid = brain.search(SearchRequest(query="backups", explain=True))
        assert hybrid.results[0].explain["usage_boost"] > 0


# -- storage-limits -------------------------------------------------------------------------


def _fill(brain: Brain, n: int, created: float) -> list[str]:
    filler = " ".join(f"word{i}" for i in range(3000))
    return [
        brain.write(f"bulk record {i} {filler}", created_at=created).document.id for i in range(n)
    ]


def _evict_one(brain: Brain) -> list[str]:
    brain.config.storage.max_size = str(brain.store.logical_size() - 1)
    evicted = brain.enforce_storage_limit()
    brain.config.storage.max_size = None
    return [d.id for d in evicted]


def test_two_documents_same_age_with_different_access_counts(workspace: Path) -> None:
    with _brain(workspace, decay={"enabled": True}) as brain:
        created = time.time() - 5 * DAY
        busy, idle = _fill(brain, 2, created)
        _set_access(brain, busy, 10, time.time(), created=created)
        _set_access(brain, idle, 0, None, created=created + 1)
        evicted = _evict_one(brain)
        assert evicted[0] == idle and busy not in evicted
        assert brain.log(limit=1)[0].action == "evict"


def test_decay_disabled_uses_age_only_eviction(workspace: Path) -> None:
    with _brain(workspace) as brain:
        older, newer = _fill(brain, 2, time.time() - 5 * DAY)
        _set_access(brain, older, 50, time.time(), created=time.time() - 6 * DAY)
        _set_access(brain, newer, 0, None, created=time.time() - 5 * DAY)
        assert _evict_one(brain)[0] == older


def test_all_documents_have_zero_access_count(workspace: Path) -> None:
    with _brain(workspace, decay={"enabled": True}) as brain:
        ids = _fill(brain, 3, time.time())
        for age, uid in zip((3, 9, 1), ids, strict=True):  # in tier order, oldest first
            _set_access(brain, uid, 0, None, created=time.time() - age * 30 * DAY)
        assert _evict_one(brain)[0] == ids[1]


def test_eviction_never_touches_pinned_or_active_decisions(workspace: Path) -> None:
    with _brain(workspace) as brain:
        old = time.time() - 100 * DAY
        pinned = brain.write("pinned " + "x " * 3000, created_at=old, pinned=True).document.id
        decision = brain.write(
            "We decided to shard by tenant. " + "y " * 3000, created_at=old
        ).document.id
        _fill(brain, 2, time.time())
        brain.config.storage.max_size = "1KB"
        evicted = {d.id for d in brain.enforce_storage_limit()}
        assert pinned not in evicted and decision not in evicted and len(evicted) == 2
        assert {d.id for d in brain.list()} == {pinned, decision}
