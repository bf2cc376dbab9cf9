"""Word counts from the lexical index's vocabulary (what feedback words are weighed by): each
word's count is the number of chunks FTS5 itself matches for it, its stem made as FTS5's
porter tokenizer makes it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.search import SearchPipeline
from nano_brain.store import SqliteStore

LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "locomo"
TURNS = 300


def _turns() -> list[str]:
    conversation = json.loads((LOCOMO / "locomo-dev.json").read_text())[0]["conversation"]
    sessions = sorted(
        (k for k, v in conversation.items() if re.fullmatch(r"session_\d+", k) and v),
        key=lambda k: int(k.split("_")[1]),
    )
    turns = [f"{t['speaker']}: {t['text']}" for s in sessions for t in conversation[s]]
    return turns[:TURNS]


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Brain]:
    root = tmp_path_factory.mktemp("term-counts")
    (root / "ws").mkdir()
    config = load_config(root / "ws", overrides={"embedding": {"provider": "none"}})
    with Brain(root / "ws", config=config, db_path=root / "store.db") as b:
        for turn in _turns():
            b.write(turn)
        yield b


def test_counts_are_fts5s_own_match_counts(brain: Brain) -> None:
    store = brain.store
    assert isinstance(store, SqliteStore)
    words = sorted({w for t in _turns() for w in re.findall(r"[^\W\d_]{3,}", t.lower())})
    counts, total = store.term_counts(words)
    assert total >= TURNS  # one chunk per short turn (ids are never reused)
    differ = []
    for word in words:
        matched = store._rows(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{word}"',)
        )[0][0]
        assert matched > 0, word  # every word of a turn is found in some chunk
        if counts[word] != matched:
            differ.append((word, counts[word], matched))
    # the stemmers disagree on a few endings ("-logy", "-bly"): such a word reads 0
    assert len(differ) <= len(words) // 100, differ
    assert all(found == 0 for _, found, _ in differ), differ


def test_readers_count_too(brain: Brain) -> None:
    store = brain.store
    counts, _ = store.term_counts(["caroline", "nowhereword"])
    with store.reading():
        assert store.term_counts(["caroline", "nowhereword"])[0] == counts
    assert counts["caroline"] > 10 and counts["nowhereword"] == 0


def test_feedback_words_held_by_too_many_chunks_are_not_used(
    brain: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nano_brain.search import lexical as search

    store = brain.store
    pipeline = SearchPipeline(store, brain.config, brain)
    counts, _ = store.term_counts(["caroline", "support"])
    assert counts["caroline"] > counts["support"] > 0
    scored = [("caroline", 9.0), ("support", 1.0)]
    assert set(pipeline._feedback_choice(scored, 2)) == {"caroline", "support"}
    monkeypatch.setattr(search, "_FEEDBACK_COMMON", counts["caroline"] - 1)
    monkeypatch.setattr(search, "_FEEDBACK_COMMON_SHARE", 0.0)
    assert pipeline._feedback_choice(scored, 2) == ["support"]


def test_counts_follow_the_store_as_it_grows(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = load_config(tmp_path / "ws", overrides={"embedding": {"provider": "none"}})
    with Brain(tmp_path / "ws", config=config, db_path=tmp_path / "s.db") as brain:
        for i in range(5):
            brain.write(f"Kayaking trip number {i} on the lake.")
        assert brain.store.term_counts(["kayaking", "lake"]) == ({"kayaking": 5, "lake": 5}, 5)
        for i in range(20):
            brain.write(f"Another kayaking weekend, {i}.")
        counts, total = brain.store.term_counts(["kayaking", "lake"])
        assert (counts, total) == ({"kayaking": 25, "lake": 5}, 25)
