"""Migration 14: indexes for the hooks' lists of notes and sessions (newest, most used), so an
agent's session start reads a kind's newest few instead of every document; partial, so that
no other plan of the store picks them up."""

from __future__ import annotations

from pathlib import Path

from nano_brain import Brain
from nano_brain.store.sqlite._driver import sqlite_module
from nano_brain.store.sqlite.migrations import SCHEMA_VERSION
from nano_brain.store.sqlite.quick import QuickReader
from tests.conftest import TinyEmbedder

NEW_INDEXES = {"documents_brief_updated", "documents_brief_created", "documents_brief_accessed"}


def _indexes(db_path: Path) -> set[str]:
    db = sqlite_module().connect(str(db_path))
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        db.close()


def test_a_store_at_version_13_gets_the_indexes_and_keeps_its_notes(workspace: Path) -> None:
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        ids = [
            brain.write(f"Note {i} on the release train.", title=f"Note {i}").document.id
            for i in range(5)
        ]
        path = brain.store_path
    db = sqlite_module().connect(str(path))
    for name in NEW_INDEXES:
        db.execute(f"DROP INDEX {name}")
    db.execute("PRAGMA user_version = 13")
    db.commit()
    db.close()
    assert not _indexes(path) & NEW_INDEXES
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        assert brain.store.schema_version() == SCHEMA_VERSION >= 14
        assert sorted(d.id for d in brain.list(limit=10)) == sorted(ids)
    assert NEW_INDEXES <= _indexes(path)


def test_the_quick_readers_lists_walk_the_kind_indexes(workspace: Path) -> None:
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        brain.write("A session's summary.", title="Session")
        path, wid = brain.store_path, brain.workspace_id
    expected = {
        "updated": "documents_brief_updated",
        "created": "documents_brief_created",
        "accessed": "documents_brief_accessed",
    }
    with QuickReader(path, wid) as reader:
        for order, index in expected.items():
            sql, params = reader._documents_sql(("session",), order, 5, decisions=False)
            plan = " ".join(
                str(row[-1]) for row in reader._rows(f"EXPLAIN QUERY PLAN {sql}", params)
            )
            assert index in plan, (order, plan)
