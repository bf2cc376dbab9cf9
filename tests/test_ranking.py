"""How results are ordered beyond fusion: thread context, feedback words, and a usage boost
that reorders only near-ties."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nano_brain import Brain, SearchRequest
from nano_brain.config import load_config


def test_a_reply_is_found_through_the_turn_it_answers(brain: Brain) -> None:
    # the answer shares no word with the question; the turn before it does
    brain.write("Sam: what did you think of the coconut milk ice cream you made?")
    reply = brain.write("Nate: Super good! Rich and creamy, my new favourite snack.").document
    brain.write("Sam: Did the tournament go well last weekend?")
    question = "What did Nate think of the coconut milk ice cream?"
    hybrid = brain.search(SearchRequest(query=question, explain=True))
    shown = {h.id: h for h in hybrid.results}
    assert reply.id in shown and shown[reply.id].explain["thread"]["distance"] == 1
    # keyword search returns what matched only, and so do quick internal lookups (hover)
    lexical = brain.search(SearchRequest(query="coconut ice cream", mode="lexical"))
    assert reply.id not in [h.id for h in lexical.results]
    quick = brain.search(SearchRequest(query=question, expand=False, explain=True))
    assert all("thread" not in h.explain for h in quick.results)


def test_a_pause_starts_a_new_thread(workspace: Path, real_provider: object) -> None:
    config = load_config(workspace, overrides={"search": {"thread_gap": "1s"}})
    with Brain(workspace, config=config, provider=real_provider) as brain:  # type: ignore[arg-type]
        a = brain.write("first note").document.id
        b = brain.write("second note").document.id
        time.sleep(1.2)
        c = brain.write("third note, after a pause").document.id
        other = brain.write("in another collection", collection="other").document.id
        rows = {u: brain.store.find_current(u) for u in (a, b, c, other)}
        assert rows[a].thread == rows[b].thread
        assert (rows[a].thread_seq, rows[b].thread_seq) == (1, 2)
        assert rows[c].thread not in (rows[a].thread, None)
        assert rows[other].thread not in (rows[a].thread, rows[c].thread)


def test_a_weak_match_is_never_lifted_by_use(brain: Brain) -> None:
    strong = [
        brain.write(f"Backups of the billing database run nightly, copy {i}.", collection=f"c{i}")
        for i in range(3)
    ]
    weak = brain.write("Nightly someone waters the plants.", collection="misc").document
    brain.store._exec(
        "UPDATE documents SET access_count = 10000, last_accessed_at = ? WHERE uid = ?",
        (time.time(), weak.id),
    )
    hits = brain.search(SearchRequest(query="billing database backups", explain=True)).results
    assert {h.id for h in hits[:3]} == {s.document.id for s in strong}
    shown = next(h for h in hits if h.id == weak.id)
    assert shown.explain["usage_eligible"] is False and shown.explain["usage_boost"] == 0


def test_use_saturates_within_the_band(workspace: Path, real_provider: object) -> None:
    config = load_config(workspace, overrides={"search": {"usage_band": 0.1}})
    with Brain(workspace, config=config, provider=real_provider) as brain:  # type: ignore[arg-type]
        doc = brain.write("Alerts page the on-call engineer.").document
        boosts = []
        for count in (1, 10, 100, 10**6):
            brain.store._exec(
                "UPDATE documents SET access_count = ?, last_accessed_at = ? WHERE uid = ?",
                (count, time.time(), doc.id),
            )
            request = SearchRequest(query="alerts on-call", explain=True, track=False)
            boosts.append(brain.search(request).results[0].explain["usage_boost"])
        assert boosts == sorted(boosts) and 0 < boosts[0] and boosts[-1] <= 0.1


def test_tracking_can_be_switched_off(workspace: Path, real_provider: object) -> None:
    config = load_config(workspace, overrides={"search": {"track_access": False}})
    with Brain(workspace, config=config, provider=real_provider) as brain:  # type: ignore[arg-type]
        doc = brain.write("Alerts page the on-call engineer.").document
        brain.search(SearchRequest(query="alerts"))
        assert brain.store.find_current(doc.id).access_count == 0  # type: ignore[union-attr]


@pytest.mark.sqlite_only  # reads the code documents' table (local in team mode)
def test_code_index_lookups_are_not_accesses(workspace: Path, real_provider: object) -> None:
    from nano_brain.codeindex import CodeIndex

    (workspace / "app.py").write_text("def retry_request(url):\n    return url\n")
    with Brain(workspace, provider=real_provider) as brain:  # type: ignore[arg-type]
        code = CodeIndex(brain)
        code.index()
        assert code.search("retry request").results
        counts = brain.store._rows("SELECT sum(access_count) FROM documents")[0][0]
        assert counts == 0


def test_an_unrelated_query_on_a_small_store_finds_nothing(brain: Brain) -> None:
    for text in (
        "We chose WAL mode so the CLI and the editor can write at once.",
        "Lunch on Fridays is pizza.",
        "The staging cluster runs in eu-west-1.",
    ):
        brain.write(text)
    unrelated = brain.search(SearchRequest(query="kubernetes ingress certificate renewal"))
    assert unrelated.results == []
    related = brain.search(SearchRequest(query="how can the CLI and the editor both write"))
    assert [h.title for h in related.results][:1] == [
        "We chose WAL mode so the CLI and the editor can write at once."
    ]


def test_a_match_one_leg_found_scores_below_one_both_found(brain: Brain) -> None:
    # two collections: not one thread, so no relevance is lent between them
    both = brain.write("Retry card charges three times, then give up.").document
    meaning = brain.write("Payments that fail are attempted again later.", collection="b")
    meaning = meaning.document
    hits = brain.search(SearchRequest(query="retry card charges", explain=True)).results
    scores = {h.id: h for h in hits}
    assert scores[both.id].score > 0.95  # first in both legs
    if meaning.id in scores:  # found by meaning only: at most the vector leg's share
        assert scores[meaning.id].explain["ranks"].keys() == {"vector"}
        assert scores[meaning.id].score < 0.5
