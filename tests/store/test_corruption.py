"""A damaged store says so in one line (exit 4), points to recovery, and is never written."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from nano_brain import Brain, SearchRequest
from nano_brain.config import load_config
from nano_brain.errors import StoreCorruptError, StoreError
from nano_brain.store import Store
from nano_brain.store.sqlite._driver import sqlite_module

from ..mcp.conftest import make_env, nano_brain_command
from .conftest import one_line_error, run_cli

NOTES = 200


def _seed(workspace: Path, db: Path) -> list[str]:
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db) as brain:
        return [
            brain.write(f"Deploy note {i}: the cache for region {i} is warmed first.").document.id
            for i in range(NOTES)
        ]


def _damage(db: Path) -> bytes:
    """Overwrite the leaf pages of the documents table in the middle of the (checkpointed,
    closed) file, as a failing disk or a bad copy would; returns the damaged bytes."""
    conn = sqlite_module().connect(str(db))
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [
        p
        for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'documents' AND pagetype = 'leaf'"
        )
    ]
    total = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    assert len(pages) > 5 and not Path(f"{db}-wal").exists()
    assert any(total // 4 < p < 3 * total // 4 for p in pages)  # mid-file
    with db.open("r+b") as f:
        for page in pages:
            f.seek((page - 1) * page_size + 8)
            f.write(bytes(range(7, 256, 3)) * ((page_size - 16) // 83))
    return db.read_bytes()


def _lexical(workspace: Path) -> object:
    return load_config(workspace, overrides={"embedding": {"provider": "none"}})


def test_damaged_store_is_one_line_exit_4_and_never_written(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    db = tmp_path / "store" / "brain.db"
    db.parent.mkdir()
    _seed(workspace, db)
    damaged = _damage(db)
    # the write reads a note from a damaged page (a retried write of the same note); a write
    # that touches no damaged page cannot know of the damage (detection is by SQLite's errors)
    again = "Deploy note 150: the cache for region 150 is warmed first."
    for args in (("write", again), ("query", "deploy cache"),
                 ("search", "deploy cache"), ("status",)):  # fmt: skip
        out = run_cli(*args, "--workspace", str(workspace), "--db", str(db), home=tmp_path)
        assert out.returncode == 4, (args, out)
        err = one_line_error(out)
        assert "damaged" in err and str(db) in err and ".recover" in err, err
        assert "backup" in err and not out.stdout.strip()
        assert db.read_bytes() == damaged, args  # nothing written, nothing checkpointed
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_once_damage_is_seen_the_store_writes_nothing(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    db = tmp_path / "brain.db"
    ids = _seed(workspace, db)
    damaged = _damage(db)
    brain = Brain(workspace, config=_lexical(workspace), db_path=db)  # type: ignore[arg-type]
    try:
        with pytest.raises(StoreCorruptError, match="damaged"):
            brain.search(SearchRequest(query="deploy cache warmed", mode="lexical"))
        with pytest.raises(StoreCorruptError):
            brain.store.track_access(ids[:3], 1.0)
        with pytest.raises(StoreCorruptError):
            brain.write("a note after the damage")
        with pytest.raises(StoreCorruptError):
            brain.retract(ids[0])
    finally:
        brain.close()
    assert db.read_bytes() == damaged
    # a later process is told at once, before it reads anything
    with pytest.raises(StoreCorruptError, match="damaged"):
        Brain(workspace, config=_lexical(workspace), db_path=db)  # type: ignore[arg-type]
    assert db.read_bytes() == damaged


def test_restored_store_is_used_again(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    db = tmp_path / "brain.db"
    _seed(workspace, db)
    backup = db.read_bytes()
    _damage(db)
    with pytest.raises(StoreCorruptError):
        with Brain(workspace, config=_lexical(workspace), db_path=db) as brain:  # type: ignore[arg-type]
            brain.status()
    db.write_bytes(backup)  # the user restores a backup in place
    with Brain(workspace, config=_lexical(workspace), db_path=db) as brain:  # type: ignore[arg-type]
        assert brain.status()["documents"] == NOTES
        brain.write("after the restore")


def test_empty_store_file_is_reported_not_reused(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    db = tmp_path / "store" / "brain.db"
    db.parent.mkdir()
    db.touch()
    for args in (("status",), ("write", "into an empty file")):
        out = run_cli(*args, "--workspace", str(workspace), "--db", str(db), home=tmp_path)
        assert out.returncode == 4, out
        err = one_line_error(out)
        assert "empty" in err and str(db) in err, err
    assert db.stat().st_size == 0
    assert [p.name for p in db.parent.iterdir()] == ["brain.db"]


def test_not_an_sqlite_file_is_reported_as_damaged(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    garbage = b"this is not an sqlite database, just bytes" * 100
    db.write_bytes(garbage)
    with pytest.raises(StoreCorruptError, match="not an SQLite database"):
        Store(db, "ws1")
    assert db.read_bytes() == garbage


def test_a_failed_rollback_never_hides_the_first_error(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    with pytest.raises(RuntimeError, match="the first error"), store.transaction():
        store.meta_set("k", "v")
        store._db.execute("ROLLBACK")  # as SQLite does by itself after some errors
        raise RuntimeError("the first error")
    with store.transaction():
        store.meta_set("k", "w")
    assert store.meta_get("k") == "w"
    store.close()


def test_sqlite_errors_inside_a_write_are_store_errors(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    with pytest.raises(StoreError, match="no such table"), store.transaction():
        store._exec("INSERT INTO no_such_table VALUES (1)")
    store.close()


def test_mcp_tool_on_a_damaged_store_is_an_error_result(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    db = tmp_path / "brain.db"
    _seed(env.workspace, db)
    _damage(db)
    command = nano_brain_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp", "--workspace", str(env.workspace), "--db", str(db)],
        env={**env.vars, "NANO_BRAIN_EMBEDDING__PROVIDER": "none"},
        cwd=str(env.root),
    )

    async def body() -> list[str]:
        texts = []
        async with Client(params) as client:
            for tool, args in (
                ("memory_query", {"query": "deploy cache warmed"}),
                ("memory_write", {"content": "a note after the damage"}),
            ):
                result = await client.call_tool(tool, args)
                assert result.is_error, (tool, result)
                texts.append(result.content[0].text)  # type: ignore[union-attr]
        return texts

    for text in asyncio.run(body()):
        assert "damaged" in text and "internal error" not in text and "\n" not in text, text
