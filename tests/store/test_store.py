from pathlib import Path

import pytest

from nano_brain.errors import StoreError
from nano_brain.store import SCHEMA_VERSION, Store
from nano_brain.store.sqlite._driver import sqlite_module


def test_fresh_store_is_migrated_in_wal_mode(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    assert store.schema_version() == SCHEMA_VERSION
    assert store._rows("PRAGMA journal_mode")[0][0] == "wal"
    assert store._rows("PRAGMA foreign_keys")[0][0] == 1
    assert store._rows("SELECT vec_version()")[0][0].startswith("v")
    store.close()
    # reopening applies nothing and keeps the workspace id
    again = Store(tmp_path / "b.db", "ws1")
    assert again.meta_get("workspace_id") == "ws1"


def test_new_store_has_8k_pages_and_an_existing_store_keeps_its_own(tmp_path: Path) -> None:
    store = Store(tmp_path / "new.db", "ws1")
    assert store._rows("PRAGMA page_size")[0][0] == 8192
    store.close()
    # a store made with SQLite's default pages (as every store was before) opens, migrates
    # and takes writes as it is
    old = tmp_path / "old.db"
    conn = sqlite_module().connect(str(old))
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    store = Store(old, "ws1")
    assert store._rows("PRAGMA page_size")[0][0] == 4096
    assert store.schema_version() == SCHEMA_VERSION
    store.meta_set("probe", "1")
    assert store.meta_get("probe") == "1"
    store.close()


def test_store_of_another_workspace_is_refused(tmp_path: Path) -> None:
    Store(tmp_path / "b.db", "ws1").close()
    with pytest.raises(StoreError, match="belongs to workspace ws1"):
        Store(tmp_path / "b.db", "ws2")


def test_corrupt_file_is_a_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "b.db"
    garbage = b"this is not an sqlite database, just bytes" * 100
    path.write_bytes(garbage)
    with pytest.raises(StoreError, match="cannot open the store"):
        Store(path, "ws1")
    assert path.read_bytes() == garbage


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.db"
    Store(path, "ws1").close()
    conn = sqlite_module().connect(str(path))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer than this nano-brain"):
        Store(path, "ws1")


def test_store_path_that_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(StoreError, match="not a file"):
        Store(tmp_path / "dir.db", "ws1")


def test_failed_transaction_writes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws1")
    with pytest.raises(RuntimeError), store.transaction():
        store.meta_set("k", "v")
        raise RuntimeError("boom")
    assert store.meta_get("k") is None


def test_store_that_cannot_be_created_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(StoreError, match="cannot create the store folder"):
        Store(blocker / "brain.db", "ws1")
    assert blocker.read_text() == "a file where a folder should be"
