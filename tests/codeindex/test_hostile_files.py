"""Files that are not files: a FIFO, a socket, a device behind a symlink, a .gitignore that
is a FIFO, a file that grows past the limit after the walk. Indexing neither blocks nor
reads them, and says why each was skipped."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from nano_brain.codeindex import walk_workspace
from nano_brain.codeindex._parse_worker import work
from nano_brain.codeindex.walk import NotRegularFile, read_regular

from .conftest import write_tree


def _hostile_tree(root: Path) -> None:
    write_tree(root, {"app.py": "def main():\n    return 1\n", "sub/ok.md": "# fine\n"})
    os.mkfifo(root / "pipe.py")
    os.mkfifo(root / "sub" / ".gitignore")  # a writer would be needed to read it
    os.symlink(root / "pipe.py", root / "to_pipe.py")  # inside the root, to a FIFO
    os.symlink("/dev/zero", root / "zero.py")  # endless, outside the root
    server = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(root)  # a relative name: socket paths are limited to about 100 bytes
    try:
        server.bind("sock.py")
    finally:
        os.chdir(here)
        server.close()


def test_the_walk_skips_fifos_sockets_and_devices_without_opening_them(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _hostile_tree(root)
    result = walk_workspace(root)
    assert [f.path for f in result.files] == ["app.py", "sub/ok.md"]
    assert {s.path: s.reason for s in result.skipped} == {
        "pipe.py": "special",
        "to_pipe.py": "special",
        "sock.py": "special",
        "zero.py": "symlink_outside",
    }


def test_index_of_a_hostile_tree_finishes(tmp_path: Path) -> None:
    """Through the CLI, in a process of its own: a blocking open would hang it."""
    root = tmp_path / "ws"
    _hostile_tree(root)
    done = subprocess.run(
        [sys.executable, "-m", "nano_brain", "index", "--workspace", str(root), "--no-embed",
         "--json", "--db", str(tmp_path / "b.db")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["skipped"] == {"special": 3, "symlink_outside": 1}
    assert (report["source_files"], report["text_files"], report["symbols"]) == (1, 1, 1)


def test_reading_refuses_what_took_a_files_place_and_stops_at_the_limit(tmp_path: Path) -> None:
    fifo = tmp_path / "was_a_file.py"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        read_regular(fifo, 100)
    job = (fifo.name, str(fifo), "python", None, 2000, 200, 1_000)
    assert work(job)[:3] == ("skip", fifo.name, "special")
    grown = tmp_path / "grown.py"
    grown.write_text("x = 1\n" * 1000)  # 6,000 bytes: past a 1,000-byte limit
    assert len(read_regular(grown, 1_000)) == 1_001
    job = (grown.name, str(grown), "python", None, 2000, 200, 1_000)
    assert work(job)[:3] == ("skip", grown.name, "too_large")
    small = (grown.name, str(grown), "python", None, 2000, 200, 10_000)
    assert work(small)[0] == "code"


def test_the_editors_path_rules_read_no_fifo_gitignore(tmp_path: Path) -> None:
    """The sidecar judges watcher events with the walk's rules: a FIFO where a .gitignore
    should be is skipped there too, instead of blocking the watcher's thread."""
    from nano_brain.lsp.watch import PathRules

    root = tmp_path / "ws"
    _hostile_tree(root)
    rules = PathRules(root)
    assert rules.relevant("sub/new.py") and rules.relevant("app.py")


def test_a_tree_nested_deeper_than_pythons_stack_is_indexed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    depth = sys.getrecursionlimit() + 200
    deep = root
    root.mkdir()
    for _ in range(depth):  # pathlib's mkdir(parents=True) recurses itself
        deep = deep / "d"
        os.mkdir(deep)
    (deep / "bottom.py").write_text("def bottom():\n    return 1\n")
    rel = "/".join(["d"] * depth) + "/bottom.py"
    assert [f.path for f in walk_workspace(root).files] == [rel]
    from nano_brain import Brain
    from nano_brain.codeindex import CodeIndex
    from nano_brain.config import load_config

    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    try:
        with Brain(root, config=config, db_path=tmp_path / "b.db") as brain:
            code = CodeIndex(brain, workers=1)
            assert code.index().symbols == 1
            (deep / "bottom.py").write_text("def bottom():\n    return 2\n\ndef other():\n    pass")
            report = code.index(paths=[rel])
            assert (report.changed, report.symbols) == (1, 2)
    finally:  # shutil.rmtree recurses per level: pytest's clean-up of old runs would fail
        (deep / "bottom.py").unlink()
        while deep != root:
            os.rmdir(deep)
            deep = deep.parent
