"""`nano-brain harvest` and `nano-brain watch`, run as a user would (real console script)."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from nano_brain.harvest import HarvestLocations

from . import _layout

EXE = shutil.which("nano-brain")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """HOME points at the temporary home, so the agents' default folders are used."""
    env = dict(os.environ)
    env["HOME"] = str(tmp_path / "home")
    env["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    return env


def _run(env: dict[str, str], workspace: Path, *args: str) -> subprocess.CompletedProcess:
    assert EXE, "nano-brain is not installed"
    return subprocess.run(
        [EXE, *args, "--workspace", str(workspace)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_harvest_dry_run_then_harvest_then_unchanged(
    env: dict[str, str], home: HarvestLocations, workspace: Path
) -> None:
    _layout.claude(home, workspace)
    _layout.codex(home, workspace)

    dry = _run(env, workspace, "harvest", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["counts"] == {"added": 2}
    assert json.loads(_run(env, workspace, "list", "--json").stdout) == []

    out = _run(env, workspace, "harvest", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["counts"] == {"added": 2} and not report["dry_run"]
    ids = {item["agent"]: item["doc_id"] for item in report["items"]}
    doc = json.loads(_run(env, workspace, "get", f"#{ids['claude-code']}", "--json").stdout)
    assert doc["kind"] == "session" and doc["author"] == "harvest"
    assert "create hello.py, md and js" in doc["content"]

    text = _run(env, workspace, "harvest")
    assert text.returncode == 0, text.stderr
    assert text.stdout.strip().startswith("0 added, 0 updated; skipped: 2 unchanged")

    assert _run(env, workspace, "delete", f"#{ids['codex']}").returncode == 0
    again = _run(env, workspace, "harvest", "--agent", "codex")
    assert "1 deleted by you (tombstone)" in again.stdout


def test_harvest_text_lists_added_sessions(
    env: dict[str, str], home: HarvestLocations, workspace: Path
) -> None:
    _layout.claude(home, workspace)
    _layout.gemini(home, workspace)
    out = _run(env, workspace, "harvest", "--agent", "claude-code")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("added     claude-code 4c2ddfdc-b619-4525-8d03-1950fb1b0257")
    assert lines[0].endswith("create hello.py, md and js")
    assert lines[-1].startswith("1 added, 0 updated")


def test_watch_prints_a_json_report_per_change(
    env: dict[str, str], home: HarvestLocations, workspace: Path
) -> None:
    home.claude_projects.mkdir(parents=True)
    assert EXE
    proc = subprocess.Popen(
        [EXE, "watch", "--workspace", str(workspace), "--json", "--debounce", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        time.sleep(1.5)  # let it start watching (an empty start prints nothing)
        _layout.claude(home, workspace)
        old = time.time() - 120  # a finished session: older than the settle time
        for path in home.claude_projects.rglob("*.jsonl"):
            os.utime(path, (old, old))
        selector = selectors.DefaultSelector()
        assert proc.stdout is not None
        selector.register(proc.stdout, selectors.EVENT_READ)
        assert selector.select(timeout=30), "watch printed nothing within 30s"
        report = json.loads(proc.stdout.readline())
        assert report["counts"] == {"added": 1}
        assert report["items"][0]["session_id"] == "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_watch_progress_reaches_a_stderr_that_is_not_a_terminal(
    env: dict[str, str], home: HarvestLocations, workspace: Path
) -> None:
    home.claude_projects.mkdir(parents=True)
    assert EXE
    proc = subprocess.Popen(
        [EXE, "watch", "--workspace", str(workspace), "--settle", "30", "--debounce", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # a pipe: no terminal
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        selector = selectors.DefaultSelector()
        selector.register(proc.stderr, selectors.EVENT_READ)
        seen: list[str] = []

        def until(text: str) -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(text in line for line in seen):
                if selector.select(timeout=1):
                    seen.append(proc.stderr.readline())  # type: ignore[union-attr]

        until("INFO nano_brain.harvest: watching ")  # the watcher is up
        _layout.claude(home, workspace)  # a session just written: it must settle first
        until("waiting for")
        waiting = [line for line in seen if "waiting for" in line]
        assert waiting, seen
        assert "1 session still being written to be quiet for 30s" in waiting[0]
        assert "4c2ddfdc-b619-4525-8d03-1950fb1b0257" in waiting[0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
