from __future__ import annotations

import sqlite3
from pathlib import Path

import nano_brain.harvest as harvest
from nano_brain.harvest import HarvestLocations, discover_sessions, load_session
from nano_brain.harvest.claude_code import encode_cwd

from ._util import TRANSCRIPTS


def test_public_names() -> None:
    assert set(harvest.__all__) == {
        "AGENTS",
        "Digest",
        "DigestSummarizer",
        "ErrorNote",
        "HarvestConfig",
        "HarvestItem",
        "HarvestLocations",
        "HarvestReport",
        "Harvester",
        "Message",
        "OpenAISummarizer",
        "ReadLimits",
        "Redaction",
        "Session",
        "SessionSource",
        "SourceInfo",
        "Summarizer",
        "Summary",
        "ToolCall",
        "TranscriptError",
        "build_digest",
        "conversation_text",
        "create_summarizer",
        "discover_sessions",
        "fingerprint",
        "load_harvest_config",
        "load_session",
        "redact",
        "redact_text",
    }


def test_discover_all_agents_under_a_home(tmp_path: Path) -> None:
    home = HarvestLocations.under_home(tmp_path)
    root = "/tmp/private"
    home.claude_projects.mkdir(parents=True)
    (home.claude_projects / encode_cwd(root)).symlink_to(
        TRANSCRIPTS / "claude-code" / "-tmp-private"
    )
    home.opencode_data.mkdir(parents=True)
    # a locked/unknown OpenCode database must not stop the other agents
    sqlite3.connect(home.opencode_data / "opencode.db").execute(
        "CREATE TABLE x (y)"
    ).connection.close()
    found = discover_sessions(root, home)
    assert [(s.agent, s.session_id) for s in found] == [
        ("claude-code", "4c2ddfdc-b619-4525-8d03-1950fb1b0257")
    ]
    session = load_session(found[0])
    assert session.cwd == root
    assert len(session.source.paths) == 3
    assert discover_sessions("/nowhere", home) == []
