"""`nano-brain sessions --ticket ID`: harvested sessions of this workspace, by ticket."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from nano_brain import Brain

from ..conftest import TinyEmbedder


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
