"""Migration 12: CHECK (c IN (...)) constraints rewritten as OR chains, which refuse and accept
the same values (SQLite built a temporary b-tree of an IN list for every inserted row)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.store.sqlite._driver import sqlite_module
from nano_brain.store.sqlite.migrations import MIGRATIONS

from ._rewind import undo_migration_13

_OR_CHECK = re.compile(r"CHECK \((\w+) = ('[^']*'(?: OR \w+ = '[^']*')*)\)")
_IN_CHECK = re.compile(r"CHECK \((\w+) IN \(([^()]*)\)\)")


def _as_in(match: re.Match[str]) -> str:
    values = re.findall(r"'[^']*'", match.group(0))
    return f"CHECK ({match.group(1)} IN ({', '.join(values)}))"


def _rewind_to_11(db: Any) -> None:
    """Put the IN lists back, as migrations 1-11 wrote them."""
    version = db.execute("PRAGMA schema_version").fetchone()[0]
    db.execute("PRAGMA writable_schema = ON")
    for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"):
        if _OR_CHECK.search(sql):
            db.execute(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                (_OR_CHECK.sub(_as_in, sql), name),
            )
    db.execute(f"PRAGMA schema_version = {version + 1}")
    db.execute("PRAGMA writable_schema = OFF")
    undo_migration_13(db)
    db.execute("PRAGMA user_version = 11")


def _tables(db_path: Path) -> dict[str, str]:
    db = sqlite_module().connect(str(db_path))
    try:
        return dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    finally:
        db.close()


def _allowed_values() -> dict[str, list[str]]:
    """Each checked column's allowed values, read off the migrations' own CHECK text (the
    last list written for a column wins: migration 10 widened documents.kind)."""
    found: dict[str, list[str]] = {}
    for script in MIGRATIONS:
        for table, body in re.findall(
            r"CREATE TABLE(?: IF NOT EXISTS)? (\w+) \((.*?)\n\)", script, re.S
        ):
            for column, values in _IN_CHECK.findall(body):
                # a table rebuilt under a versioned name (code_edges_v4) is renamed after
                found[f"{re.sub(r'_v[0-9]+$', '', table)}.{column}"] = re.findall(
                    r"'([^']*)'", values
                )
        for table, column, values in re.findall(
            r"ALTER TABLE (\w+) ADD COLUMN (\w+) [^;]*?CHECK \(\w+ IN \(([^()]*)\)\)", script
        ):
            found[f"{table}.{column}"] = re.findall(r"'([^']*)'", values)
    found["documents.kind"].append("commit")  # migration 10 widened it in place
    return found


def test_fresh_store_has_no_in_list_checks(tmp_path: Path) -> None:
    config = load_config(tmp_path, overrides={"embedding": {"provider": "none"}})
    with Brain(tmp_path, config=config, db_path=tmp_path / "b.db"):
        pass
    tables = _tables(tmp_path / "b.db")
    assert not [n for n, sql in tables.items() if _IN_CHECK.search(sql)]
    checked = {n for n, sql in tables.items() if _OR_CHECK.search(sql)}
    assert {"documents", "code_edges", "code_route_facts", "git_changes"} <= checked


def test_store_at_version_11_gets_equivalent_checks(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("import os\n\ndef main():\n    return os.getcwd()\n")
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    fresh_db, db_path = tmp_path / "fresh.db", tmp_path / "v11.db"
    with Brain(workspace, config=config, db_path=fresh_db):
        pass
    with Brain(workspace, config=config, db_path=db_path) as brain:
        brain.write("Use os.getcwd for the root of the workspace.")
        CodeIndex(brain, workers=1).index()
        counts = {t: brain.store._rows(f"SELECT count(*) FROM {t}")[0][0]
                  for t in ("documents", "chunks", "code_edges", "code_symbols")}  # fmt: skip
    db = sqlite_module().connect(str(db_path), isolation_level=None)
    _rewind_to_11(db)
    db.close()
    assert sum(bool(_IN_CHECK.search(sql)) for sql in _tables(db_path).values()) >= 4

    with Brain(workspace, config=config, db_path=db_path) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS) >= 12
        assert brain.store._rows("PRAGMA integrity_check") == [("ok",)]
        for table, count in counts.items():
            assert brain.store._rows(f"SELECT count(*) FROM {table}")[0][0] == count
    assert _tables(db_path) == _tables(fresh_db)

    db = sqlite_module().connect(str(db_path), isolation_level=None)
    try:
        allowed = _allowed_values()
        assert allowed["code_edges.kind"] == ["contains", "imports", "calls", "assigns"]
        for key in ("documents.kind", "documents.status", "code_edges.kind"):
            table, column = key.split(".")
            row = f"(SELECT min(id) FROM {table})"
            for value in allowed[key]:
                db.execute("SAVEPOINT s")
                db.execute(f"UPDATE {table} SET {column} = ? WHERE id = {row}", (value,))
                db.execute("ROLLBACK TO s")
                db.execute("RELEASE s")
            for bad in ("", "bogus", allowed[key][0].upper(), allowed[key][0] + " "):
                with pytest.raises(sqlite_module().IntegrityError, match="CHECK constraint"):
                    db.execute(f"UPDATE {table} SET {column} = ? WHERE id = {row}", (bad,))
    finally:
        db.close()
