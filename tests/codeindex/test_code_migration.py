"""Migration 4 from a store written at schema 3 (code tables without 'assigns' edges)."""

from __future__ import annotations

from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.store._sqlite import sqlite_module
from nano_brain.store.migrations import MIGRATIONS
from nano_brain.store.store import _statements

from .conftest import write_tree


def test_schema_3_store_upgrades_and_reindexes_assignments(workspace: Path) -> None:
    write_tree(
        workspace,
        {
            "buf.py": "class Buf:\n    def close(self):\n        pass\n",
            "app.py": "from buf import Buf\n\ndef f():\n    b = Buf()\n    b.close()\n",
        },
    )
    db_path = workspace.parent / "old.db"
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    # a schema-3 store indexed by the code of that time (no assignment rows)
    db = sqlite_module().connect(str(db_path), isolation_level=None)
    for script in MIGRATIONS[:3]:
        for statement in _statements(script):
            db.execute(statement)
    db.execute("PRAGMA user_version = 3")
    db.close()
    with Brain(workspace, config=config, db_path=db_path) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS)
        code = CodeIndex(brain)
        assert code.index().new == 2
        assert [c.caller for c in code.callers("buf.py::Buf.close")] == ["app.py::f"]
    # a store that had code rows at schema 3: rows survive, files are re-parsed once
    db = sqlite_module().connect(str(db_path), isolation_level=None)
    db.execute("PRAGMA user_version = 3")
    db.execute("DELETE FROM code_edges WHERE kind = 'assigns'")
    db.execute("UPDATE code_edges SET target = NULL WHERE kind = 'calls' AND name = 'close'")
    edges = db.execute("SELECT count(*) FROM code_edges").fetchone()[0]
    db.close()
    with Brain(workspace, config=config, db_path=db_path) as brain:
        kept = brain.store._rows("SELECT count(*) FROM code_edges")[0][0]
        assert kept == edges
        report = CodeIndex(brain).index()
        assert (report.changed, report.new) == (2, 0)
        assert [c.caller for c in CodeIndex(brain).callers("buf.py::Buf.close")] == ["app.py::f"]
