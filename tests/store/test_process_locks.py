"""Opening a store never costs another connection of this process its locks.

POSIX advisory locks belong to the process: closing any descriptor of a file releases every
lock the process holds on it, the ones SQLite holds for its other connections included. So
the checks made before a store is opened (its header, its mode) must not open and close the
database or its -shm while the process has it open (a sidecar opens several at once).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import Config

from ..conftest import TinyEmbedder

_WRITE_NOW = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=0)
try:
    db.execute("BEGIN IMMEDIATE")
except sqlite3.OperationalError as exc:
    print("locked" if "locked" in str(exc) else f"error: {exc}")
else:
    print("took the write lock")
"""


@pytest.mark.sqlite_only
def test_a_second_store_in_the_process_keeps_the_first_ones_write_lock(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with Brain(ws, config=Config(), provider=TinyEmbedder(), code_provider=None) as first:
        first.write("a note so the store and its -wal/-shm exist")
        path = first.store.path
        (path.parent / (path.name + "-shm")).chmod(0o644)  # so the next open fixes its mode
        with first.store.transaction():  # holds the write lock until the block ends
            second = Brain(ws, config=Config(), provider=TinyEmbedder(), code_provider=None)
            try:
                other = subprocess.run(
                    [sys.executable, "-c", _WRITE_NOW, str(path)],
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
            finally:
                second.close()
    assert other.stdout.strip() == "locked", other.stdout + other.stderr
