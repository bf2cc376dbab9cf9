"""A store path that names someone else's file (a page, a FIFO, a symlink, a device) is refused
before anything touches it: its bytes, mode and mtime, and its folder's, stay as they were."""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from nano_brain.errors import StoreCorruptError, StoreError
from nano_brain.store import Store
from nano_brain.store.sqlite._driver import sqlite_module

from .conftest import one_line_error, run_cli

PAGE = b"<!doctype html>\n<html><body><p>My notes, not a database.</p></body></html>\n"
#: An mtime the test sets, far from now, so that any write shows.
MTIME_NS = 1_600_000_000_123_456_789


@dataclass(frozen=True)
class Snapshot:
    """What a file and its folder look like: any change to either shows as inequality."""

    data: bytes
    mode: int
    mtime_ns: int
    folder_mode: int
    folder_names: tuple[str, ...]


def _snapshot(path: Path) -> Snapshot:
    info = path.lstat()
    data = path.read_bytes() if stat.S_ISREG(info.st_mode) else b""
    return Snapshot(
        data,
        stat.S_IMODE(info.st_mode),
        info.st_mtime_ns,
        stat.S_IMODE(path.parent.stat().st_mode),
        tuple(sorted(p.name for p in path.parent.iterdir())),
    )


def _page(folder: Path) -> Path:
    """~/Documents/page.html as a user keeps it: world-readable, in a world-readable folder."""
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    page = folder / "page.html"
    page.write_bytes(PAGE)
    page.chmod(0o644)
    os.utime(page, ns=(MTIME_NS, MTIME_NS))
    return page


def _sqlite_file(path: Path) -> None:
    conn = sqlite_module().connect(str(path))
    conn.execute("CREATE TABLE t (x)")
    conn.close()


@pytest.mark.parametrize("via", ["--db", "storage.db_path"])
@pytest.mark.parametrize(
    "command", [("status",), ("get", "#1"), ("write", "a note"), ("doctor",)], ids=lambda c: c[0]
)
def test_cli_refuses_a_file_that_is_not_sqlite_and_leaves_it_as_it_was(
    tmp_path: Path, command: tuple[str, ...], via: str
) -> None:
    home = tmp_path / "home"
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True)
    page = _page(home / "Documents")
    before = _snapshot(page)
    args = [*command, "--workspace", str(workspace)]
    if via == "--db":
        args += ["--db", str(page)]
    else:
        config = home / "xdg_config_home" / "nano-brain" / "config.yml"
        config.parent.mkdir(parents=True)
        config.write_text(f"storage:\n  db_path: {page}\n", encoding="utf-8")
    out = run_cli(*args, home=home)
    if command[0] == "doctor":  # doctor reports every check and exits 1 on errors
        assert out.returncode == 1, out
        assert "not an SQLite database" in out.stdout and str(page) in out.stdout, out.stdout
    else:
        assert out.returncode == 4, out
        err = one_line_error(out)
        assert "not an SQLite database" in err and str(page) in err, err
        assert not out.stdout.strip()
    assert _snapshot(page) == before


def test_a_page_is_refused_before_anything_is_written_beside_it(tmp_path: Path) -> None:
    page = _page(tmp_path / "Documents")
    before = _snapshot(page)
    with pytest.raises(StoreCorruptError, match="not an SQLite database") as err:
        Store(page, "ws1")
    assert str(page) in str(err.value) and "unchanged" in str(err.value)
    assert _snapshot(page) == before


def test_a_short_file_and_a_file_with_a_near_miss_header_are_refused(tmp_path: Path) -> None:
    for name, data in (("short.db", b"SQLite"), ("near.db", b"SQLite format 4\x00" + bytes(200))):
        path = tmp_path / name
        path.write_bytes(data)
        path.chmod(0o644)
        before = _snapshot(path)
        with pytest.raises(StoreCorruptError, match="not an SQLite database"):
            Store(path, "ws1")
        assert _snapshot(path) == before, name


def test_a_symlink_is_refused_and_its_target_left_alone(tmp_path: Path) -> None:
    real = tmp_path / "real.db"
    _sqlite_file(real)
    real.chmod(0o644)
    page = _page(tmp_path / "Documents")
    cases = {"to_store": real, "to_page": page, "dangling": tmp_path / "nowhere.db"}
    for name, target in cases.items():
        link = tmp_path / f"{name}.db"
        link.symlink_to(target)
        seen = {p: _snapshot(p) for p in (real, page)}
        with pytest.raises(StoreError, match="symbolic link") as err:
            Store(link, "ws1")
        assert str(link) in str(err.value)
        assert {p: _snapshot(p) for p in (real, page)} == seen, name
        assert link.is_symlink() and os.readlink(link) == str(target)
    assert not (tmp_path / "nowhere.db").exists()  # nothing created through the dangling link


def test_a_symlinked_side_file_is_refused_and_its_target_left_alone(tmp_path: Path) -> None:
    """`brain.db-wal` pointing at a file of the user's: SQLite would write the log into it."""
    store = Store(tmp_path / "brain.db", "ws1")
    store.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp_path / 'brain.db'}{suffix}").unlink(missing_ok=True)
    page = _page(tmp_path / "Documents")
    for suffix in ("-wal", "-shm"):
        side = Path(f"{tmp_path / 'brain.db'}{suffix}")
        side.symlink_to(page)
        before = _snapshot(page)
        with pytest.raises(StoreError, match=f"brain.db{suffix}") as err:
            Store(tmp_path / "brain.db", "ws1")
        assert "not a regular file" in str(err.value)
        assert _snapshot(page) == before, suffix
        side.unlink()
    Store(tmp_path / "brain.db", "ws1").close()  # positive control: without them it opens


def _open_into(path: Path, errors: list[BaseException]) -> None:
    try:
        Store(path, "ws1")
    except BaseException as exc:  # the thread reports what it raised
        errors.append(exc)


def test_fifos_folders_and_devices_are_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo, 0o644)
    folder = tmp_path / "folder.db"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    for path in (fifo, folder, Path("/dev/null")):
        before = _snapshot(path)
        errors: list[BaseException] = []
        worker = threading.Thread(target=_open_into, args=(path, errors), daemon=True)
        worker.start()
        worker.join(10)
        assert not worker.is_alive(), f"opening {path} hangs"
        assert len(errors) == 1 and isinstance(errors[0], StoreError), (path, errors)
        assert "not a file" in str(errors[0]) and str(path) in str(errors[0])
        assert _snapshot(path) == before, path


def test_a_new_store_in_a_users_folder_leaves_the_folders_mode(tmp_path: Path) -> None:
    folder = tmp_path / "Documents"
    folder.mkdir()
    folder.chmod(0o755)
    store = Store(folder / "brain.db", "ws1")
    store.close()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "brain.db").stat().st_mode) == 0o600  # ours: private


def _malformed(path: Path) -> None:
    """An SQLite file (its header intact) whose schema page is garbage: damage, not a stranger."""
    _sqlite_file(path)
    data = bytearray(path.read_bytes())
    data[100:108] = b"\xff" * 8  # page 1's b-tree header
    path.write_bytes(bytes(data))


def test_the_damage_marker_is_never_written_through_a_link(tmp_path: Path) -> None:
    db = tmp_path / "brain.db"
    _malformed(db)
    page = _page(tmp_path / "Documents")
    mark = Path(f"{db}.damaged")
    mark.symlink_to(page)
    before = _snapshot(page)
    with pytest.raises(StoreCorruptError, match="damaged") as err:
        Store(db, "ws1")
    assert _snapshot(page) == before
    assert "My notes" not in str(err.value)  # another file's text is no damage report
    mark.unlink()
    mark.symlink_to(tmp_path / "Documents" / "new.txt")  # a link to nothing yet
    with pytest.raises(StoreCorruptError, match="damaged"):
        Store(db, "ws1")
    assert not (tmp_path / "Documents" / "new.txt").exists()
    # positive control: without the link the damage is remembered beside the store
    Path(f"{db}.damaged").unlink()
    with pytest.raises(StoreCorruptError, match="damaged"):
        Store(db, "ws1")
    assert "malformed" in Path(f"{db}.damaged").read_text(encoding="utf-8")
