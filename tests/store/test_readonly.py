"""A store in a folder the user may not write: reads work, writes say it is read-only.

SQLite needs the -shm file of a WAL database to read it. With the -wal/-shm files there
(another process has the store open, or left them), a read-only connection uses them; without
them and with no way to create them, the store is opened `immutable` (nothing can be writing
it: a writer would have created them).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from nano_brain import Brain
from nano_brain.config import load_config

from .conftest import one_line_error, run_cli


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _seed(base: Path) -> tuple[Path, Path, list[str]]:
    workspace = base / "ws"
    workspace.mkdir()
    workspace.chmod(0o755)
    folder = base / "store"
    folder.mkdir()
    db = folder / "brain.db"
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db) as brain:
        ids = [
            brain.write("Caches are warmed before each deploy.").document.id,
            brain.write("The deploy checklist lives in the wiki.").document.id,
        ]
    return workspace, db, ids


def _make_read_only(folder: Path) -> None:
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)


def _reads_work(workspace: Path, db: Path, home: Path, expected: list[str]) -> None:
    common = ("--workspace", str(workspace), "--db", str(db), "--json")
    status = run_cli("status", *common, home=home, as_reader=True)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["documents"] == len(expected)
    for command in ("query", "search"):
        found = run_cli(command, "deploy", *common, home=home, as_reader=True)
        assert found.returncode == 0, found.stderr
        assert sorted(h["id"] for h in json.loads(found.stdout)["results"]) == sorted(expected)
    listed = run_cli("list", *common, home=home, as_reader=True)
    assert listed.returncode == 0, listed.stderr
    got = run_cli("get", f"#{expected[0]}", *common, home=home, as_reader=True)
    assert got.returncode == 0 and json.loads(got.stdout)["id"] == expected[0]


def _writes_refused(workspace: Path, db: Path, home: Path, note: str) -> None:
    common = ("--workspace", str(workspace), "--db", str(db))
    for args in (("write", "a note that cannot be saved"), ("retract", f"#{note}")):
        out = run_cli(*args, *common, home=home, as_reader=True)
        assert out.returncode == 4, out
        err = one_line_error(out)
        assert "read-only" in err and str(db) in err, err
        assert "is it a nano-brain database" not in err


def test_read_only_store_without_wal_files(open_dir: Path) -> None:
    workspace, db, ids = _seed(open_dir)
    assert sorted(p.name for p in db.parent.iterdir()) == ["brain.db"]  # closed cleanly
    _make_read_only(db.parent)
    before = _digest(db.parent)
    _reads_work(workspace, db, open_dir / "home", ids)
    _writes_refused(workspace, db, open_dir / "home", ids[0])
    assert _digest(db.parent) == before


def test_read_only_store_with_wal_files_of_a_live_writer(open_dir: Path) -> None:
    workspace, db, ids = _seed(open_dir)
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db) as writer:
        # still in the write-ahead log only: a reader must see it through the -wal/-shm
        ids.append(writer.write("Deploy freezes start on the 20th.").document.id)
        assert (db.parent / "brain.db-wal").stat().st_size > 0
        _make_read_only(db.parent)
        before = _digest(db.parent)
        _reads_work(workspace, db, open_dir / "home", ids)
        _writes_refused(workspace, db, open_dir / "home", ids[0])
        assert _digest(db.parent) == before


def test_status_of_a_store_in_a_missing_folder_creates_nothing(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    db = tmp_path / "nonexistent" / "dir" / "x.db"
    out = run_cli("status", "--workspace", str(workspace), "--db", str(db), home=tmp_path)
    assert out.returncode == 4
    err = one_line_error(out)
    assert "does not exist" in err and str(db.parent) in err
    assert not (tmp_path / "nonexistent").exists()
