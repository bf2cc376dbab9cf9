"""Chunks written many rows per statement (`DocumentQueries._insert_rows`): every row lands,
in order, with its full-text rows; a replaced chunk leaves neither index; None is NULL."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nano_brain.filters import Filters
from nano_brain.store import ChunkRow, Store
from nano_brain.store.documents import _ROWS_PER_STATEMENT, PARAMS_PER_STATEMENT
from nano_brain.store.rows import LexicalKind

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)


def _document(store: Store) -> int:
    now = time.time()
    with store.transaction():
        return store.insert_document(
            uid=secrets.token_hex(6), kind="note", collection="memory", title="many chunks",
            content="many chunks", content_hash=secrets.token_hex(16), source_path=None,
            metadata={}, created_at=now, updated_at=now, recorded_at=now, valid_from=now,
        )  # fmt: skip


def _word(i: int) -> str:
    # letters only: the word index keeps it whole, and no two chunks share one
    return "zq" + "".join("abcdefghij"[int(d)] for d in f"{i:04d}")


def _found(store: Store, kind: LexicalKind, term: str) -> set[int]:
    hits = store.lexical([term], "OR", Filters(), 50, kind=kind)
    return {h.chunk_id for h in hits}


@pytest.mark.parametrize(
    "count", [1, _ROWS_PER_STATEMENT, _ROWS_PER_STATEMENT + 1, 2 * _ROWS_PER_STATEMENT + 13]
)
def test_every_chunk_lands_in_order_with_its_fulltext_rows(tmp_path: Path, count: int) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    doc_id = _document(store)
    rows = [
        ChunkRow(i, f"part {i}", f"body {_word(i)} of chunk {i}", "", i + 1, i + 1)
        for i in range(count)
    ]
    with store.transaction():
        store.replace_chunks(doc_id, rows)
    stored = store.chunks_of(doc_id)
    assert [c for _, c in stored] == rows
    ids = {c.seq: chunk_id for chunk_id, c in stored}
    for i in (0, count // 2, count - 1):
        assert _found(store, "words", _word(i)) == {ids[i]}
        # the trigram index holds the body too: a fragment of the word finds the chunk
        assert ids[i] in _found(store, "trigrams", _word(i)[1:])
    store.close()


def test_replaced_chunks_leave_both_fulltext_indexes(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    doc_id = _document(store)
    old = [ChunkRow(i, "t", f"old {_word(i)}", "", 1, 1) for i in range(100)]
    new = [ChunkRow(i, "t", f"new {_word(500 + i)}", "", 1, 1) for i in range(70)]
    with store.transaction():
        store.replace_chunks(doc_id, old)
    with store.transaction():
        store.replace_chunks(doc_id, new)
    assert [c.body for _, c in store.chunks_of(doc_id)] == [c.body for c in new]
    assert _found(store, "words", _word(5)) == set()
    assert _found(store, "trigrams", _word(99)[1:]) == set()
    assert len(_found(store, "words", _word(569))) == 1
    assert store.integrity_problems() == []  # FTS5's own check of both indexes included
    store.close()


def test_wide_rows_stay_under_the_parameter_cap_and_none_is_null(tmp_path: Path) -> None:
    """Rows so wide that the parameter cap, not the row cap, sizes each statement (more
    than one statement's worth would fail to prepare); a bound None is stored as NULL."""
    store = Store(tmp_path / "b.db", "ws1")
    width = 1000  # SQLite allows 2,000 columns; 64 such rows would bind 64,000 values
    assert _ROWS_PER_STATEMENT * width > 32_766 > PARAMS_PER_STATEMENT
    rows = [(n, *([None] * (width - 2)), f"last {n}") for n in range(100)]
    with store.transaction():
        store._exec("CREATE TEMP TABLE wide (" + ", ".join(f"c{i}" for i in range(width)) + ")")
        store._insert_rows("INSERT INTO temp.wide", rows)
    last = f"c{width - 1}"
    assert store._rows(f"SELECT c0, {last} FROM temp.wide ORDER BY c0") == [
        (n, f"last {n}") for n in range(100)
    ]
    assert store._rows("SELECT count(*) FROM temp.wide WHERE c1 IS NULL") == [(100,)]
    with store.transaction():
        store._insert_rows("INSERT INTO temp.wide", [])  # nothing to insert: no statement
    assert store._rows("SELECT count(*) FROM temp.wide") == [(100,)]
    store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    bodies=st.lists(st.tuples(_TEXT, _TEXT, _TEXT), max_size=3 * _ROWS_PER_STATEMENT),
    again=st.integers(min_value=0, max_value=2 * _ROWS_PER_STATEMENT),
)
def test_any_chunks_round_trip_and_leave_sound_indexes(
    tmp_path_factory: pytest.TempPathFactory, bodies: list[tuple[str, str, str]], again: int
) -> None:
    """Any number of chunks with any text (quotes, NULs, CJK, the statement's own separator
    characters) comes back exactly, twice over, and FTS5 finds its indexes sound."""
    store = Store(tmp_path_factory.mktemp("chunks") / "b.db", "ws1")
    doc_id = _document(store)
    rows = [ChunkRow(i, t, b, h, i, i + 1) for i, (t, b, h) in enumerate(bodies)]
    with store.transaction():
        store.replace_chunks(doc_id, rows)
    assert [c for _, c in store.chunks_of(doc_id)] == rows
    with store.transaction():
        store.replace_chunks(doc_id, rows[:again])
    assert [c for _, c in store.chunks_of(doc_id)] == rows[:again]
    assert store.integrity_problems() == []
    store.close()
