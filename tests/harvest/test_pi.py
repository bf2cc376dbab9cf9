from __future__ import annotations

import json
from pathlib import Path

from nano_brain.harvest import pi

from ._util import TRANSCRIPTS, with_garbage

LARGE = TRANSCRIPTS / "pi" / "large-session.jsonl"
COMPACTED = TRANSCRIPTS / "pi" / "before-compaction.jsonl"
CWD = "/Users/badlogic/workspaces/pi-mono"


def test_v1_header_and_requests() -> None:
    s = pi.parse(LARGE)
    assert s.agent == "pi"
    assert s.session_id == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    assert s.cwd == CWD
    users = [m for m in s.messages if m.role == "user"]
    assert len(users) == 88
    assert users[0].text == "/mode" and users[0].kind == "command"
    first = next(m for m in users if not m.kind)
    assert first.text.startswith("read packages/coding-agent/docs/theme.md in full, then theme.ts")
    assert s.warnings == 0


def test_v1_tool_calls_and_errors() -> None:
    calls = pi.parse(LARGE).tool_calls()
    counts = {name: sum(1 for c in calls if c.name == name) for name in ("bash", "edit", "read")}
    assert counts == {"bash": 192, "edit": 146, "read": 50}
    assert calls[0].files_read == ["packages/coding-agent/docs/theme.md"]
    failed = [c for c in calls if c.failed]
    assert any("Command exited with code 1" in (c.error or "") for c in failed)


def test_compaction_and_bash_execution() -> None:
    s = pi.parse(COMPACTED)
    assert s.session_id == "ffae836b-9420-4060-ac13-7745215f90ff"
    summaries = [m for m in s.messages if m.kind == "summary"]
    assert len(summaries) == 2
    assert summaries[0].text.startswith("# Context Checkpoint: Coding Agent Refactoring")
    bash = [c for m in s.messages if m.kind == "command" for c in m.tool_calls]
    assert [c.command for c in bash] == ["ls", "ls", "find ."]


def test_encode_cwd_matches_pi_folder_name() -> None:
    # the fixture's branchedFrom path names the folder pi uses for this cwd
    header = json.loads(COMPACTED.read_text().splitlines()[0])
    assert f"/sessions/{pi.encode_cwd(CWD)}/" in header["branchedFrom"]


def test_discover(tmp_path: Path) -> None:
    (tmp_path / pi.encode_cwd(CWD)).symlink_to(TRANSCRIPTS / "pi")
    found = pi.discover(CWD, base=tmp_path)
    assert {s.session_id for s in found} == {
        "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
        "ffae836b-9420-4060-ac13-7745215f90ff",
    }
    assert pi.discover("/Users/badlogic/workspaces/other", base=tmp_path) == []


def _v3(tmp_path: Path) -> Path:
    """A v3 tree: the user abandons branch A for branch B; pi records a branch summary."""
    ts = "2026-01-05T10:00:0{}Z"
    entries = [
        {"type": "session", "version": 3, "id": "sess-v3", "timestamp": ts.format(0), "cwd": "/w"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": ts.format(1),
            "message": {"role": "user", "content": "make the parser faster"},
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1",
            "timestamp": ts.format(2),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Two options."}]},
        },
        {
            "type": "message",
            "id": "u2",
            "parentId": "a1",
            "timestamp": ts.format(3),
            "message": {"role": "user", "content": "try option A"},
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "u2",
            "timestamp": ts.format(4),
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": "t1",
                        "name": "edit",
                        "arguments": {"path": "/w/a.py", "oldText": "x", "newText": "y"},
                    }
                ],
            },
        },
        {
            "type": "branch_summary",
            "id": "b1",
            "parentId": "a1",
            "timestamp": ts.format(5),
            "fromId": "a2",
            "summary": "Option A was slower; abandoned.",
        },
        {
            "type": "message",
            "id": "u3",
            "parentId": "b1",
            "timestamp": ts.format(6),
            "message": {"role": "user", "content": [{"type": "text", "text": "try option B"}]},
        },
        {
            "type": "message",
            "id": "a3",
            "parentId": "u3",
            "timestamp": ts.format(7),
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "We chose option B."},
                    {
                        "type": "toolCall",
                        "id": "t2",
                        "name": "write",
                        "arguments": {"path": "/w/b.py", "content": "fast"},
                    },
                ],
            },
        },
        {
            "type": "message",
            "id": "r3",
            "parentId": "a3",
            "timestamp": ts.format(8),
            "message": {
                "role": "toolResult",
                "toolCallId": "t2",
                "toolName": "write",
                "content": [{"type": "text", "text": "denied"}],
                "isError": True,
            },
        },
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "r3",
            "timestamp": ts.format(9),
            "summary": "Goal: faster parser.",
            "firstKeptEntryId": "u3",
            "tokensBefore": 900,
        },
        {
            "type": "session_info",
            "id": "i1",
            "parentId": "c1",
            "timestamp": ts.format(9),
            "name": "Faster parser",
        },
    ]
    path = tmp_path / "2026-01-05T10-00-00-000Z_sess-v3.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def test_v3_tree_follows_the_active_branch(tmp_path: Path) -> None:
    s = pi.parse(_v3(tmp_path))
    assert s.session_id == "sess-v3"
    assert s.title == "Faster parser"
    texts = [m.text for m in s.messages]
    assert "try option B" in texts
    assert "try option A" not in texts  # abandoned branch
    assert [m.text for m in s.messages if m.kind == "summary"] == [
        "Option A was slower; abandoned.",
        "Goal: faster parser.",
    ]
    calls = s.tool_calls()
    assert [c.files_written for c in calls] == [["/w/b.py"]]
    assert calls[0].error == "denied"


def test_malformed_line_is_skipped_and_counted(tmp_path: Path) -> None:
    clean = pi.parse(LARGE)
    torn = pi.parse(with_garbage(LARGE, tmp_path / "torn.jsonl", after_line=10))
    assert torn.warnings == 1
    assert len(torn.messages) == len(clean.messages)
    assert torn.session_id == clean.session_id
