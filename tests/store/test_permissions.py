"""A store is private to its user: data folders 0700, the store and its -wal/-shm 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain, paths
from nano_brain.config import load_config


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)  # the common default, which leaves new files world-readable
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _folders(db: Path) -> list[Path]:
    """The store's folder up to nano-brain's data folder."""
    top = paths.data_dir()
    chain = [db.parent]
    while chain[-1] != top:
        chain.append(chain[-1].parent)
    return chain


def test_new_store_is_private_whatever_the_umask(workspace: Path, umask_022: None) -> None:
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config) as brain:
        brain.write("the staging password rotates monthly")  # creates -wal and -shm
        db = brain.store.path
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert {str(d): _mode(d) for d in _folders(db)} == {str(d): 0o700 for d in _folders(db)}
    assert not [p.name for p in db.parent.iterdir() if p.name != "brain.db"]  # no leftovers


def test_existing_open_store_is_made_private(workspace: Path, umask_022: None) -> None:
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config) as brain:
        brain.write("a note from an older version")
        db = brain.store.path
    for folder in _folders(db):
        folder.chmod(0o755)
    db.chmod(0o644)
    with Brain(workspace, config=config) as brain:
        brain.write("another note")
        for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert _mode(f) == 0o600, f
        for folder in _folders(db):
            assert _mode(folder) == 0o700, folder


def test_store_at_an_explicit_path_is_private_but_its_folder_is_left_alone(
    tmp_path: Path, workspace: Path, umask_022: None
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=folder / "brain.db") as brain:
        brain.write("a note")
        assert _mode(folder / "brain.db") == 0o600
        assert _mode(folder / "brain.db-wal") == 0o600
    assert _mode(folder) == 0o755  # the user's own folder: not ours to change
