"""Migration 10 (the git history): from a schema-9 store, documents of kind commit, the
history tables, sessions linked to the files they edited; safe to apply again."""

from __future__ import annotations

from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.filters import Filters
from nano_brain.search import validate_request
from nano_brain.store.commits import CommitRows, CommitStore
from nano_brain.store.sqlite._driver import sqlite_module
from nano_brain.store.sqlite.migrations import SCHEMA_VERSION

from ._rewind import undo_migration_10, undo_migration_13


def _brain(workspace: Path, db: Path) -> Brain:
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    return Brain(workspace, config=config, db_path=db)


def _seed(workspace: Path, db: Path) -> dict[str, str]:
    with _brain(workspace, db) as brain:
        note = brain.write("The cache is flushed on deploy.").document.id
        session = brain.write(
            "Session: refactor billing", kind="session",
            metadata={"harvest": {"files_changed": ["billing.py", "tests/test_billing.py"]}},
        ).document.id  # fmt: skip
    return {"note": note, "session": session}


def _rewind_to_9(db: Path) -> None:
    conn = sqlite_module().connect(str(db), isolation_level=None)
    undo_migration_10(conn, check=True)
    conn.execute("PRAGMA user_version = 9")
    conn.close()


def _commit(hash_: str) -> CommitRows:
    return CommitRows(
        hash=hash_, seq=1, uid=hash_[:12], title="a commit", content="a commit\n\nbody",
        content_hash=hash_, metadata={"hash": hash_}, authored_at=1.0, committed_at=2.0,
        chunks=[(0, "a commit body", "", 1, 3)], changes=[("m.py::f", "modified")],
        files=["m.py"],
    )  # fmt: skip


def test_a_schema_9_store_takes_commits_and_links_its_sessions(workspace: Path) -> None:
    db = workspace.parent / "v9.db"
    seen = _seed(workspace, db)
    _rewind_to_9(db)
    other = sqlite_module().connect(str(db), isolation_level=None)
    assert other.execute("SELECT count(*) FROM documents").fetchone()[0] == 2  # schema read
    with pytest.raises(sqlite_module().IntegrityError):
        other.execute(
            "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
            "content_hash, created_at, updated_at) VALUES ('w', 'x', 'commit', 'c', 't', 'c', "
            "'h', 0, 0)"
        )
    with _brain(workspace, db) as brain:
        assert brain.store.schema_version() == SCHEMA_VERSION
        assert brain.get(seen["note"]).content == "The cache is flushed on deploy."
        # the words index was made again on its view, with every note in it
        hits = brain.search(validate_request(query="cache flushed", mode="lexical"))
        assert [h.id for h in hits.results] == [seen["note"]]
        for table in ("chunks_fts", "chunks_tri", "commits_fts"):
            brain.store._exec(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)")
        history = CommitStore(brain.store)
        touching = history.documents_touching("billing.py", Filters(kinds=("session",)), 10)
        assert [d.uid for d in touching] == [seen["session"]]
        with brain.store.transaction():
            assert history.add_commits([_commit("a" * 40)], now=3.0) == 1
            assert history.add_commits([_commit("a" * 40)], now=3.0) == 0  # stored once
        assert history.counts() == {
            "commits": 1, "symbol_links": 1, "renames": 0, "file_links": 1
        }  # fmt: skip
    # a connection opened before the migration sees the new schema
    other.execute(
        "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
        "content_hash, created_at, updated_at) VALUES ('w', 'y', 'commit', 'c', 't', 'c', "
        "'h', 0, 0)"
    )
    other.execute("DELETE FROM documents WHERE uid = 'y'")
    other.close()


def test_migration_10_applied_again_doubles_nothing(workspace: Path) -> None:
    db = workspace.parent / "again.db"
    _seed(workspace, db)
    with _brain(workspace, db) as brain:
        files = brain.store._rows("SELECT count(*) FROM document_files")[0][0]
        schema = brain.store._rows("SELECT sql FROM sqlite_master WHERE name = 'documents'")
    conn = sqlite_module().connect(str(db), isolation_level=None)
    undo_migration_13(conn)
    conn.execute("PRAGMA user_version = 9")
    conn.close()
    with _brain(workspace, db) as brain:
        assert brain.store.schema_version() == SCHEMA_VERSION
        assert brain.store._rows("SELECT count(*) FROM document_files")[0][0] == files == 2
        assert brain.store._rows("SELECT sql FROM sqlite_master WHERE name = 'documents'") == schema
        assert schema[0][0].count("'commit'") == 1
        assert brain.store._rows("PRAGMA integrity_check")[0][0] == "ok"
