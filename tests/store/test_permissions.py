"""A store is private to its user: data folders 0700, the store and its -wal/-shm 0600."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain, paths
from nano_brain.config import load_config
from nano_brain.store.sqlite import _file


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


def test_first_stores_opened_at_once_share_the_new_data_folder(tmp_path: Path) -> None:
    """Editors open every workspace folder together; each first open creates the data folder."""
    stores = [paths.data_dir() / "workspaces" / f"{i:02x}" / "brain.db" for i in range(16)]
    assert not paths.data_dir().exists()
    for _ in range(20):  # the window between "is it there?" and mkdir is narrow
        gate = threading.Barrier(len(stores))
        errors: list[BaseException] = []

        def _open(db: Path, gate: threading.Barrier, errors: list[BaseException]) -> None:
            gate.wait()
            try:
                _file.prepare(db)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=_open, args=(db, gate, errors)) for db in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert all(db.parent.is_dir() for db in stores)
        assert _mode(paths.data_dir()) == 0o700
        for db in stores:
            db.unlink(missing_ok=True)
        shutil.rmtree(paths.data_dir())
