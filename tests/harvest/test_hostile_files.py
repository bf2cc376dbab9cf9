"""Transcript folders holding what no agent writes: FIFOs, devices, files that are swapped,
shrink, vanish or fail while they are read, nesting deeper than the interpreter's stack,
a 100 MB line, files larger than the read limit. Harvesting must neither block nor crash;
each bad file costs only itself and is reported; everything else is harvested.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import subprocess
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from nano_brain import Brain, SearchRequest
from nano_brain.harvest import (
    HarvestConfig,
    Harvester,
    HarvestLocations,
    TranscriptError,
    claude_code,
    discover_sessions,
    load_session,
)
from nano_brain.harvest.claude_code import encode_cwd
from nano_brain.harvest.gemini import project_hash
from nano_brain.harvest.pi import encode_cwd as pi_folder

from . import _layout
from . import _synthetic as syn

REQUEST = "please keep this request"
pytestmark = pytest.mark.timeout(120)  # a blocking open() would hang here, not pass


def _harvest_cli(home: Path, ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`nano-brain harvest` as a user runs it; it must exit 0 without a traceback."""
    exe = shutil.which("nano-brain")
    assert exe
    env = {**os.environ, "HOME": str(home), "NANO_BRAIN_EMBEDDING__PROVIDER": "none"}
    out = subprocess.run(
        [exe, "harvest", *args, "--workspace", str(ws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return out


def _claude(loc: HarvestLocations, ws: Path, sid: str, body: list[Any]) -> Path:
    return syn.CLAUDE.write(loc, ws, sid, body, REQUEST)


KINDS = ("fifo", "zero")


def _plant(path: Path, kind: str) -> Path:
    """A FIFO, or a symlink to /dev/zero, where a transcript would be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


def _hostile_folders(loc: HarvestLocations, ws: Path) -> list[Path]:
    """A FIFO and /dev/zero in each place every agent's discovery or parser reads."""
    claude_dir = loc.claude_projects / encode_cwd(ws)
    gemini_dir = loc.gemini_tmp / project_hash(ws)
    storage = loc.opencode_data / "storage"
    subagents = claude_dir / "4c2ddfdc-b619-4525-8d03-1950fb1b0257" / "subagents"
    places = [
        (claude_dir, "{}.jsonl"),
        (claude_dir, "agent-{}.jsonl"),  # a sub-agent file, read during discovery
        (subagents, "{}.jsonl"),
        (loc.codex_sessions / "2026" / "01" / "01", "rollout-{}.jsonl"),
        (loc.pi_sessions / pi_folder(ws), "{}.jsonl"),
        (gemini_dir / "chats", "session-{}.json"),
        (storage / "session" / "proj", "{}.json"),
        (storage / "message" / "test-session-1", "msg-{}.json"),
    ]
    planted = [
        _plant(folder / name.format(kind), kind) for folder, name in places for kind in KINDS
    ]
    # names that hold one thing only
    planted.append(_plant(loc.gemini_tmp / "other" / ".project_root", "fifo"))
    planted.append(_plant(loc.opencode_data / "opencode.db", "fifo"))
    return planted


def test_fifos_and_devices_everywhere_are_skipped_and_logged_once(
    hbrain: Brain, home: HarvestLocations, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _layout.claude(home, workspace)
    _layout.codex(home, workspace)
    _layout.pi(home, workspace)
    _layout.gemini(home, workspace)
    _layout.opencode_legacy(home, workspace)
    planted = _hostile_folders(home, workspace)
    harvester = Harvester(hbrain, home, config=HarvestConfig())

    with caplog.at_level(logging.WARNING, logger="nano_brain.harvest"):
        report = harvester.run_once()
        assert report.counts() == {"added": 5}
        warned = [r.getMessage() for r in caplog.records if "not a regular file" in r.getMessage()]
        caplog.clear()
        assert harvester.run_once().counts() == {"unchanged": 5}
        again = [r for r in caplog.records if "not a regular file" in r.getMessage()]

    # every planted file is named once, with what it is
    assert sorted(warned) == sorted(
        f"skipping {path}: a {'FIFO' if path.is_fifo() else 'character device'}, not a regular file"
        for path in planted
    )
    assert again == []  # logged once per process, not every tick
    assert hbrain.store.integrity_errors() == []


def test_transcript_swapped_for_a_fifo_between_stat_and_open(
    home: HarvestLocations, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = _claude(home, workspace, "swap-1", [])
    (source,) = discover_sessions(workspace, home, ["claude-code"])
    real_open = os.open

    def swapping_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(main) and main.is_file():
            main.unlink()  # the stat before the open saw a regular file
            os.mkfifo(main)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(TranscriptError, match="is a FIFO, not a regular file"):
        load_session(source)


def test_a_first_line_nested_deeper_than_the_stack_costs_only_that_line(
    home: HarvestLocations, workspace: Path, tmp_path: Path
) -> None:
    """The line from the bug report: discovery and parsing both survive it, in a real CLI."""
    deep = b"[" * 100_000 + b"]" * 100_000
    main = _claude(home, workspace, "deep-1", [])
    main.write_bytes(deep + b"\n" + main.read_bytes() + b'{"a":' * 5000 + b"1" + b"}" * 5000)
    runs = []
    for _ in range(2):  # the second run must not stumble on the first line either
        out = _harvest_cli(tmp_path / "home", workspace, "--json")
        runs.append(json.loads(out.stdout))
    assert runs[0]["counts"] == {"added": 1} and runs[0]["warnings"] == 2
    assert runs[0]["items"][0]["skipped"] == {"too-deep": 2}
    assert runs[1]["counts"] == {"unchanged": 1}
    session = claude_code.parse(main)
    assert session.skipped == {"too-deep": 2}
    assert session.session_id == "deep-1" and REQUEST in [m.text for m in session.messages]


def test_a_100_megabyte_line_is_skipped_without_being_held(
    home: HarvestLocations, workspace: Path
) -> None:
    main = _claude(home, workspace, "huge-1", [])
    lines = main.read_bytes().splitlines(keepends=True)
    with main.open("wb") as handle:  # written in pieces: the test never holds 100 MB either
        handle.write(lines[0])
        handle.write(b'{"type": "user", "pad": "')
        piece = b"x" * (1 << 20)
        for _ in range(100):
            handle.write(piece)
        handle.write(b'"}\n')
        handle.writelines(lines[1:])
    assert main.stat().st_size > 100 * (1 << 20)

    tracemalloc.start()
    try:
        session = claude_code.parse(main)  # default limits: lines up to 32 MiB
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert session.skipped == {"too-long": 1}
    assert REQUEST in [m.text for m in session.messages]
    assert session.source.size == main.stat().st_size
    assert peak < 48 * (1 << 20), f"peak {peak / (1 << 20):.0f} MiB"


def test_a_file_over_the_read_limit_is_read_up_to_it(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    filler = [
        {"type": "progress", "data": {"n": n, "pad": "y" * 900}} for n in range(300)
    ]  # ~300 KB of lines the parser skips quietly
    early = syn.CLAUDE.request(workspace, "cap-1", "a request near the start")
    main = _claude(home, workspace, "cap-1", [early, *filler])
    config = HarvestConfig(max_file_bytes=64 * 1024)
    report = Harvester(hbrain, home, config=config).run_once()
    (item,) = report.items
    assert item.action == "added" and item.skipped == {"truncated": 1}
    content = hbrain.get(f"#{item.doc_id}").content or ""
    assert "a request near the start" in content
    assert REQUEST not in content  # it lies past the limit
    assert main.stat().st_size > config.max_file_bytes


class _Reader:
    """A file handle that does something to its file (or fails) after `after` line reads."""

    def __init__(self, real: Any, path: Path, action: str, after: int = 3) -> None:
        self._real, self._path, self._action, self._after = real, path, action, after
        self._reads = 0

    def readline(self, size: int = -1) -> bytes:
        self._reads += 1
        if self._reads == self._after + 1:
            if self._action == "delete":
                self._path.unlink()
            elif self._action == "truncate":
                os.truncate(self._path, 300 * 1024)  # past what is already buffered
            elif self._action == "fail":
                raise OSError(errno.EIO, "Input/output error")
        return self._real.readline(size)  # type: ignore[no-any-return]

    def read(self, size: int = -1) -> bytes:
        return self._real.read(size)  # type: ignore[no-any-return]

    def __enter__(self) -> _Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()


@pytest.mark.parametrize("action", ["delete", "truncate", "fail"])
def test_a_file_that_vanishes_shrinks_or_fails_mid_read(
    action: str, home: HarvestLocations, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    filler = [
        syn.CLAUDE.request(workspace, "mid-1", f"request number {n:05d}") for n in range(4000)
    ]
    main = _claude(home, workspace, "mid-1", filler)  # ~1.3 MB, several read buffers
    (source,) = discover_sessions(workspace, home, ["claude-code"])
    real_fdopen = os.fdopen

    def watched_fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(fd, *args, **kwargs)
        return _Reader(handle, main, action) if "rb" in args else handle

    monkeypatch.setattr(os, "fdopen", watched_fdopen)
    session = load_session(source)
    texts = [m.text for m in session.messages if m.role == "user"]
    assert texts[:2] == ["look at the parser", "request number 00000"]
    if action == "delete":  # an open file outlives its name
        assert len(texts) == 4002 and session.warnings == 0
    elif action == "truncate":
        assert 2 < len(texts) < 4002 and session.skipped.get("malformed", 0) <= 1
    else:
        assert len(texts) == 2 and session.skipped == {"unreadable": 1}


def test_a_sub_agent_file_gone_at_parse_time_costs_only_itself(
    home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    (source,) = discover_sessions(workspace, home, ["claude-code"])
    assert len(source.paths) == 3
    Path(source.paths[2]).unlink()
    session = load_session(source)
    assert session.skipped == {"unreadable": 1}
    assert session.source.paths == [str(main), source.paths[1]]
    assert "create hello.py, md and js" in [m.text for m in session.messages]


def test_cli_reports_an_unreadable_session_in_one_line_and_harvests_the_rest(
    home: HarvestLocations, workspace: Path, tmp_path: Path
) -> None:
    _layout.claude(home, workspace)
    broken = _layout.gemini(home, workspace)
    broken.write_bytes(broken.read_bytes()[:500])  # caught mid-write
    out = _harvest_cli(tmp_path / "home", workspace)
    warnings = [line for line in out.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1 and f"cannot harvest gemini:{broken}" in warnings[0]
    assert out.stdout.splitlines()[-1].startswith("1 added, 0 updated, 1 failed")


def test_watch_keeps_harvesting_beside_hostile_files(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    home.claude_projects.mkdir(parents=True)
    _hostile_folders(home, workspace)
    deep = _claude(home, workspace, "deep-1", [])
    deep.write_bytes(b"[" * 50_000 + b"]" * 50_000 + b"\n" + deep.read_bytes())
    reports: list[Any] = []
    stop = threading.Event()
    config = HarvestConfig(debounce_s=0.2, settle_s=0.3, rescan_s=3600)
    thread = threading.Thread(
        target=Harvester(hbrain, home, config=config).watch,
        kwargs={"stop": stop, "on_report": reports.append},
        daemon=True,
    )
    thread.start()
    try:
        _layout.gemini(home, workspace)  # a clean session arrives later
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done = {i.session_id for r in reports for i in r.items if i.action == "added"}
            if {"deep-1", "37b7abef-713d-4522-85f0-8ff15a4e6d17"} <= done:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"not harvested within 30s: {reports}")
        assert thread.is_alive()
        hits = hbrain.search(SearchRequest(query=REQUEST, mode="lexical"))
        assert "look at the parser" in [h.title for h in hits.results]
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()
    assert hbrain.store.integrity_errors() == []


def test_codex_folders_thousands_deep_or_looping_are_walked(
    home: HarvestLocations, workspace: Path
) -> None:
    """Discovery walks the user's folder tree without recursion and without symlinked loops."""
    deep = home.codex_sessions
    deep.mkdir(parents=True)
    for _ in range(1_100):  # deeper than the interpreter's stack would allow a recursive walk
        deep = deep / "d"
        deep.mkdir()  # one level at a time: mkdir(parents=True) itself recurses
    (deep / "loop").symlink_to(home.codex_sessions, target_is_directory=True)
    rollout = syn.CODEX.write(home, workspace, "deep-codex", [], REQUEST)
    rollout.rename(deep / rollout.name)
    try:
        (source,) = discover_sessions(workspace, home, ["codex"])
        assert source.paths == (str(deep / rollout.name),)
        assert REQUEST in [m.text for m in load_session(source).messages]
    finally:  # bottom-up: shutil.rmtree (pytest's clean-up) recurses too
        (deep / rollout.name).unlink()
        (deep / "loop").unlink()
        while deep != home.codex_sessions:
            deep.rmdir()
            deep = deep.parent
