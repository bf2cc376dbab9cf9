"""`nano-brain sessions --ticket ID`: harvested sessions of this workspace, by ticket."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.harvest import Harvester, HarvestLocations

from ..conftest import TinyEmbedder
from . import _layout
from ._util import TRANSCRIPTS


def test_sessions_by_ticket_in_this_workspace_only(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    with Brain(workspace, provider=TinyEmbedder(), actor="harvest") as brain:
        brain.write(
            "Session: fixed login redirect",
            kind="session",
            tags=["ticket:ABC-12"],
            source_path="session://codex/1",
        )
        brain.write("Session: bumped deps", kind="session", source_path="session://codex/2")
        brain.write("A note mentioning ABC-12", tags=["ticket:ABC-12"])
    with Brain(other, provider=TinyEmbedder(), actor="harvest") as brain:
        brain.write(
            "Session: other repo",
            kind="session",
            tags=["ticket:ABC-12"],
            source_path="session://codex/3",
        )
    env = {**os.environ, "NANO_BRAIN_EMBEDDING__PROVIDER": "none"}
    exe = shutil.which("nano-brain")
    assert exe
    out = subprocess.run(
        [exe, "sessions", "--ticket", "ABC-12", "--json", "--workspace", str(workspace)],
        capture_output=True,
        env=env,
        text=True,
        check=True,
    )
    assert [d["title"] for d in json.loads(out.stdout)] == ["Session: fixed login redirect"]
    everything = subprocess.run(
        [exe, "sessions", "--workspace", str(workspace)],
        capture_output=True,
        env=env,
        text=True,
        check=True,
    )
    assert "bumped deps" in everything.stdout and "ABC-12" in everything.stdout


def _transcript_span(folder: Path) -> tuple[str, str]:
    """First and last timestamp in a Claude Code session's files, to the second."""
    stamps = [
        json.loads(line)["timestamp"]
        for path in folder.glob("*.jsonl")
        for line in path.read_text().splitlines()
        if line.strip() and "timestamp" in json.loads(line)
    ]
    return min(stamps)[:19] + "Z", max(stamps)[:19] + "Z"


def test_sessions_show_when_the_session_happened_not_when_it_was_harvested(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = HarvestLocations.under_home(tmp_path / "home")
    _layout.claude(home, workspace)
    with Brain(workspace, provider=TinyEmbedder(), actor="harvest") as brain:
        (item,) = Harvester(brain, home).run_once().items
    started, ended = _transcript_span(TRANSCRIPTS / "claude-code" / "-tmp-private")
    env = {**os.environ, "NANO_BRAIN_EMBEDDING__PROVIDER": "none"}
    exe = shutil.which("nano-brain")
    assert exe
    listed = subprocess.run(
        [exe, "sessions", "--json", "--workspace", str(workspace)],
        capture_output=True,
        env=env,
        text=True,
        check=True,
    )
    (row,) = json.loads(listed.stdout)
    assert (row["id"], row["started"], row["ended"]) == (item.doc_id, started, ended)
    assert row["harvested_at"] == row["updated_at"] and row["harvested_at"] > ended
    text = subprocess.run(
        [exe, "sessions", "--workspace", str(workspace)],
        capture_output=True,
        env=env,
        text=True,
        check=True,
    )
    day, start = started[:10], started[11:16]
    assert text.stdout.strip() == (
        f"#{item.doc_id}  {day} {start}-{ended[11:16]}Z  create hello.py, md and js"
    )
