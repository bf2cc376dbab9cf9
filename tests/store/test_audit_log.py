"""The audit log is append-only: rows are never rewritten, ids never reused, and the one
way to remove rows (a prune) is a single transaction that logs itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nano_brain import Brain
from nano_brain.errors import NanoBrainError, StoreError
from nano_brain.store.sqlite._driver import sqlite_module


def _log(brain: Brain) -> list[tuple[Any, ...]]:
    return brain.store._rows("SELECT * FROM audit_log ORDER BY id")


def _other_writer(brain: Brain) -> Any:
    """Another connection to the same file, as any program with SQLite could open."""
    return sqlite_module().connect(str(brain.store.path), isolation_level=None)


def test_replace_cannot_rewrite_an_audit_row(tiny_brain: Brain) -> None:
    tiny_brain.write("something worth logging")
    before = _log(tiny_brain)
    first = before[0][0]
    forge = (
        "INSERT OR REPLACE INTO audit_log (id, workspace_id, at, actor, action) "
        "VALUES (?, ?, 0, 'someone', 'forged')"
    )
    with pytest.raises(StoreError, match="append-only"):
        tiny_brain.store._exec(forge, (first, tiny_brain.workspace_id))
    other = _other_writer(tiny_brain)
    with pytest.raises(sqlite_module().DatabaseError, match="append-only"):
        other.execute(forge, (first, tiny_brain.workspace_id))
    other.close()
    assert _log(tiny_brain) == before


def test_no_writer_can_grant_itself_a_prune(tiny_brain: Brain) -> None:
    tiny_brain.write("something worth logging")
    before = _log(tiny_brain)
    other = _other_writer(tiny_brain)
    # schema 6 allowed deletes while this flag was set; it is no permission any more
    other.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('audit_prune', '1')")
    with pytest.raises(sqlite_module().DatabaseError):
        other.execute("DELETE FROM audit_log")
    with pytest.raises(sqlite_module().DatabaseError, match="append-only"):
        other.execute("UPDATE audit_log SET actor = 'someone'")
    other.close()
    with pytest.raises(StoreError, match="append-only"):
        tiny_brain.store._exec("DELETE FROM audit_log")
    assert _log(tiny_brain) == before


def test_pruned_ids_are_never_reused(tiny_brain: Brain) -> None:
    for text in ("one", "two", "three"):
        tiny_brain.write(text)
    highest = _log(tiny_brain)[-1][0]
    assert tiny_brain.prune_log(older_than="0s") == 3
    other = _other_writer(tiny_brain)
    with pytest.raises(sqlite_module().DatabaseError, match="never reused"):
        other.execute(
            "INSERT INTO audit_log (id, workspace_id, at, actor, action) "
            "VALUES (?, ?, 0, 'someone', 'forged')",
            (highest, tiny_brain.workspace_id),
        )
    other.close()
    tiny_brain.write("four")
    ids = [row[0] for row in _log(tiny_brain)]
    assert all(i > highest for i in ids) and ids == sorted(set(ids))


def test_prune_and_its_log_entry_are_one_transaction(tiny_brain: Brain) -> None:
    for text in ("one", "two"):
        tiny_brain.write(text)
    before = _log(tiny_brain)
    # the prune's own entry cannot be written (as when the disk fills up)
    tiny_brain.store._exec(
        "CREATE TEMP TRIGGER prune_entry_fails BEFORE INSERT ON audit_log "
        "WHEN new.action = 'prune-log' BEGIN SELECT RAISE(ABORT, 'no room for the entry'); END"
    )
    with pytest.raises(NanoBrainError, match="no room for the entry"):
        tiny_brain.prune_log(older_than="0s")
    assert _log(tiny_brain) == before  # nothing was deleted without its entry
    tiny_brain.store._exec("DROP TRIGGER temp.prune_entry_fails")
    assert tiny_brain.prune_log(older_than="0s") == 2
    [entry] = tiny_brain.log()
    assert entry.action == "prune-log" and entry.details["deleted"] == 2


def test_prune_keeps_newer_rows(workspace: Path) -> None:
    with Brain(workspace, provider=None) as brain:
        brain.write("old news")
        assert brain.prune_log(older_than="365d") == 0
        assert [e.action for e in brain.log()] == ["prune-log", "write"]
