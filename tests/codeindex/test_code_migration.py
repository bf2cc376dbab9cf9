"""Code-index migrations: 4 ('assigns' edges) and 5 (symbol chunks indexed in bulk)."""

from __future__ import annotations

from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import LoadedConfig, load_config
from nano_brain.search import SearchRequest
from nano_brain.store import CodeStore
from nano_brain.store.sqlite._driver import sqlite_module
from nano_brain.store.sqlite.migrations import MIGRATIONS
from nano_brain.store.sqlite.store import _statements

from ..store._rewind import undo_migration_10, undo_migration_13
from .conftest import write_tree


def _rewind_to_schema_4(db: object) -> None:
    """Undo migrations 7 and 5 on an open store (6 changed only the k-NN index, which these
    stores without vectors do not have): migration 1's trigram index and triggers again."""
    undo_migration_10(db)
    db.execute("DROP INDEX documents_thread")  # type: ignore[attr-defined]
    for column in ("thread_seq", "thread"):
        db.execute(f"ALTER TABLE documents DROP COLUMN {column}")  # type: ignore[attr-defined]
    for trigger in ("chunks_ai", "chunks_ad", "chunks_au"):
        db.execute(f"DROP TRIGGER {trigger}")  # type: ignore[attr-defined]
    db.execute("DROP TABLE chunks_tri")  # type: ignore[attr-defined]
    db.execute("DROP VIEW chunks_tri_content")  # type: ignore[attr-defined]
    for statement in _statements(MIGRATIONS[0]):
        if "chunks_tri USING" in statement or statement.startswith("CREATE TRIGGER chunks_"):
            db.execute(statement)  # type: ignore[attr-defined]
    db.execute("INSERT INTO chunks_tri (chunks_tri) VALUES ('rebuild')")  # type: ignore[attr-defined]
    db.execute("ALTER TABLE chunks DROP COLUMN symbol")  # type: ignore[attr-defined]


def _fts_consistent(brain: Brain) -> None:
    """FTS5's own check that both lexical indexes match their content rows (raises if not)."""
    for table in ("chunks_fts", "chunks_tri"):
        brain.store._exec(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)")


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
    _rewind_to_schema_4(db)
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


def test_schema_4_symbol_chunks_move_to_bulk_indexing(workspace: Path) -> None:
    write_tree(
        workspace,
        {
            "ledger.py": (
                "def settle_invoice(total):\n"
                '    """Close the books."""\n'
                "    return reconcile_quarterly(total)\n"
            ),
            "notes.md": "# Ledger\n\nWe reconcile quarterly.\n",
        },
    )
    db_path = workspace.parent / "v4.db"
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db_path) as brain:
        CodeIndex(brain).index()
    db = sqlite_module().connect(str(db_path), isolation_level=None)
    _rewind_to_schema_4(db)  # symbol chunks as schema 4 indexed them: whole body in trigrams
    db.execute("PRAGMA user_version = 4")
    db.close()

    with Brain(workspace, config=config, db_path=db_path) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS)
        # a symbol chunk's title starts with the qualified name (then its words and summary)
        rows = brain.store._rows("SELECT title, symbol FROM chunks")
        flags = {title.split("\n")[0]: flag for title, flag in rows}
        assert flags["ledger.py::settle_invoice"] == 1
        assert flags["notes.md: Ledger"] == 0
        _fts_consistent(brain)

        def trigram(fragment: str) -> set[str]:
            rows = brain.store._rows(
                "SELECT c.title FROM chunks_tri t JOIN chunks c ON c.id = t.rowid "
                "WHERE chunks_tri MATCH ?",
                (f'"{fragment}"',),
            )
            return {r[0].split("\n")[0] for r in rows}

        # trigrams of a symbol's name, not of its body; prose files keep their bodies
        assert trigram("settle_inv") == {"ledger.py::settle_invoice"}
        assert trigram("reconcile_quart") == set()
        assert trigram("reconcile quart") == {"notes.md: Ledger"}
        # words of the body still find the symbol
        hits = brain.search(SearchRequest(query="reconcile_quarterly", mode="lexical"))
        assert "ledger.py::settle_invoice" in [h.title for h in hits.results]

        # an edit replaces the symbol's rows; a deletion removes them; the indexes stay exact
        write_tree(workspace, {"ledger.py": "def settle_invoice(total):\n    return 0\n"})
        assert CodeIndex(brain).index().changed == 1
        _fts_consistent(brain)
        (workspace / "ledger.py").unlink()
        assert CodeIndex(brain).index().deleted == 1
        _fts_consistent(brain)
        assert trigram("settle_inv") == set()


def test_schema_10_store_gains_the_aliased_imports_index(workspace: Path) -> None:
    """Migration 11: an index over the imports that rename, used by the edit-time lookup of
    the names other files bind a changed name to."""
    write_tree(
        workspace,
        {
            "lib.py": "def helper():\n    return 1\n",
            "app.py": "from lib import helper as h\n\ndef main():\n    return h()\n",
        },
    )
    db_path = workspace.parent / "v10.db"
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db_path) as brain:
        CodeIndex(brain, workers=1).index()
    db = sqlite_module().connect(str(db_path), isolation_level=None)
    db.execute("DROP INDEX code_edges_alias")
    undo_migration_13(db)
    db.execute("PRAGMA user_version = 10")
    db.close()
    with Brain(workspace, config=config, db_path=db_path) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS)
        code = CodeStore(brain.store)
        assert code.missing_indexes() == []
        assert code.import_aliases(["helper"]) == {"h"}
        plan = brain.store._rows(
            "EXPLAIN QUERY PLAN SELECT DISTINCT alias FROM code_edges WHERE kind = 'imports' "
            "AND alias IS NOT NULL AND expression IN (?)",
            ("helper",),
        )
        assert any("USING INDEX code_edges_alias" in row[-1] for row in plan), plan
        target = "SELECT target FROM code_edges WHERE kind = 'calls' AND name = 'h'"
        assert brain.store._rows(target) == [("lib.py::helper",)]
        # an edit that removes a name another file imports under an alias: its call unbinds
        (workspace / "lib.py").write_text("def other():\n    pass\n")
        report = CodeIndex(brain, workers=1).index(paths=["lib.py"])
        assert report.reresolved_calls == 1
        assert brain.store._rows(target) == [(None,)]


def _indexed_at_version_12(
    workspace: Path, *, killed_before_fulltext: bool = False
) -> tuple[Path, LoadedConfig]:
    """Index the workspace, then put the store back at version 12 (symbol trigram rows with
    whole titles); ``killed_before_fulltext``: as a bulk load killed before its full-text
    rows leaves it (no symbol trigram rows, the flag set)."""
    db_path = workspace.parent / "v12.db"
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db_path) as brain:
        CodeIndex(brain, workers=1).index()
    db = sqlite_module().connect(str(db_path), isolation_level=None)
    undo_migration_13(db)
    if killed_before_fulltext:
        db.execute(
            "INSERT INTO chunks_tri (chunks_tri, rowid, title, body) "
            "SELECT 'delete', id, title, '' FROM chunks WHERE symbol = 1"
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('code_fulltext_pending', '1')")
    db.execute("PRAGMA user_version = 12")
    db.close()
    return db_path, config


def test_schema_12_store_indexes_symbol_trigrams_by_name(workspace: Path) -> None:
    """Migration 13: a symbol chunk's trigram row holds the qualified name (its title's first
    line), not the name's words and docstring summary after it."""
    write_tree(
        workspace,
        {"lib.py": 'def parseHeaderBlock():\n    """Reads the quoxfrobulated preamble."""\n'},
    )
    (workspace / "notes.md").write_text("# Notes\n\nThe quoxfrobulated preamble is legacy.\n")
    db_path, config = _indexed_at_version_12(workspace)

    def trigram_hits(brain: Brain, fragment: str) -> set[str]:
        rows = brain.store._rows(
            "SELECT d.source_path FROM chunks_tri JOIN chunks c ON c.id = chunks_tri.rowid "
            "JOIN documents d ON d.id = c.doc_id WHERE chunks_tri MATCH ?",
            (f'"{fragment}"',),
        )
        return {r[0] for r in rows}

    with Brain(workspace, config=config, db_path=db_path) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS)
        _fts_consistent(brain)
        symbol = "code://lib.py::parseHeaderBlock"
        assert trigram_hits(brain, "seHeaderBl") == {symbol}  # the name, case-folded
        # the summary's words: the word index has them, the trigram index only for the note
        assert trigram_hits(brain, "frobulat") == {"notes.md"}
        words = SearchRequest(query="quoxfrobulated", limit=5)
        assert symbol in {h.source_path for h in brain.search(words).results}
        # the rows stay consistent through an edit and a delete (the triggers' 'delete's)
        (workspace / "lib.py").write_text("def parseHeaderBlock2():\n    pass\n")
        CodeIndex(brain, workers=1).index()
        _fts_consistent(brain)
        assert trigram_hits(brain, "seHeaderBlock2") == {symbol + "2"}
        (workspace / "lib.py").unlink()
        CodeIndex(brain, workers=1).index()
        _fts_consistent(brain)
        assert trigram_hits(brain, "seHeaderBl") == set()


def test_schema_12_store_stopped_mid_bulk_load_is_rebuilt_by_the_next_run(
    workspace: Path,
) -> None:
    """A bulk load killed before its full-text rows left the symbol chunks out of the
    trigram index: migration 13 must not delete rows that are not there (that corrupts an
    FTS5 index); the next index run rebuilds it."""
    write_tree(workspace, {"lib.py": "def parseHeaderBlock():\n    pass\n"})
    db_path, config = _indexed_at_version_12(workspace, killed_before_fulltext=True)
    with Brain(workspace, config=config, db_path=db_path) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS)
        CodeIndex(brain, workers=1).index()
        _fts_consistent(brain)
        found = brain.store._rows(
            "SELECT count(*) FROM chunks_tri WHERE chunks_tri MATCH '\"seHeaderBl\"'"
        )
        assert found == [(1,)]
