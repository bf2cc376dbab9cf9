from __future__ import annotations

import json
from pathlib import Path

import pytest

from nano_brain.harvest import TranscriptError, gemini

from ._util import TRANSCRIPTS

FILE = TRANSCRIPTS / "gemini" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
ROOT = "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"


def test_session() -> None:
    s = gemini.parse(FILE)
    assert s.agent == "gemini"
    assert s.session_id == "37b7abef-713d-4522-85f0-8ff15a4e6d17"
    assert s.model == "gemini-3-pro"
    requests = [m.text for m in s.messages if m.role == "user"]
    assert requests == [
        "show tools",
        "expore repository and figure out issues. focus on adaptability and security",
        "create hello.md file",
        "add 5 lines of random text",
        "remove 2 and 3 line",
    ]
    calls = s.tool_calls()
    assert {p for c in calls for p in c.files_written} == {"hello.md"}
    assert {"SECURITY.md", "src/env/manager.ts"} <= {p for c in calls for p in c.files_read}
    assert s.warnings == 0


def test_project_hash_is_sha256_of_root() -> None:
    data = json.loads(FILE.read_text())
    assert gemini.project_hash(ROOT) == data["projectHash"]


def test_discover_by_hash_and_marker(tmp_path: Path) -> None:
    chats = tmp_path / gemini.project_hash(ROOT) / "chats"
    chats.mkdir(parents=True)
    (chats / FILE.name).symlink_to(FILE)
    found = gemini.discover(ROOT, base=tmp_path)
    assert len(found) == 1
    assert gemini.parse(found[0]).cwd == ROOT
    named = tmp_path / "codemie-code"
    (named / "chats").mkdir(parents=True)
    (named / ".project_root").write_text("/other/root\n")
    (named / "chats" / FILE.name).symlink_to(FILE)
    assert len(gemini.discover("/other/root", base=tmp_path)) == 1


def test_malformed_message_skipped_and_torn_file_raises(tmp_path: Path) -> None:
    data = json.loads(FILE.read_text())
    data["messages"].insert(1, "garbage")
    target = tmp_path / "session-x.json"
    target.write_text(json.dumps(data))
    assert gemini.parse(target).warnings == 1
    target.write_text(FILE.read_text()[:500])
    with pytest.raises(TranscriptError):
        gemini.parse(target)
