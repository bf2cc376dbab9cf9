from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from nano_brain.harvest import TranscriptError, opencode

from ._util import TRANSCRIPTS

LEGACY = TRANSCRIPTS / "opencode" / "codemie-synthetic" / "opencode"


def test_legacy_layout() -> None:
    found = opencode.discover("/test/project", base=LEGACY)
    assert [s.session_id for s in found] == ["test-session-1"]
    s = opencode.parse(found[0])
    assert s.cwd == "/test/project"
    assert s.started == 1737979200.0
    texts = [(m.role, m.text) for m in s.messages if m.role != "tool"]
    assert texts == [
        ("user", "Create a test file with console.log statements"),
        (
            "assistant",
            "Created src/test.ts with three console.log statements and read src/existing.ts.",
        ),
    ]
    calls = s.tool_calls()
    assert [(c.name, c.files_written, c.files_read) for c in calls] == [
        ("Write", ["src/test.ts"], []),
        ("Read", [], ["src/existing.ts"]),
    ]
    assert opencode.discover("/other", base=LEGACY) == []


def test_legacy_malformed_part_is_counted(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "opencode"
    shutil.copytree(LEGACY, copy)
    bad = copy / "storage" / "part" / "msg-assistant-1" / "part-tool-read.json"
    bad.chmod(0o644)
    bad.parent.chmod(0o755)
    bad.write_text("{not json")
    s = opencode.parse(opencode.discover_legacy("/test/project", copy)[0])
    assert s.warnings == 1
    assert [c.name for c in s.tool_calls()] == ["Write"]


def _db(path: Path, *, directory_column: bool = True) -> Path:
    conn = sqlite3.connect(path)
    dcol = "directory TEXT NOT NULL," if directory_column else ""
    conn.executescript(
        f"""
        CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL);
        CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, {dcol}
            title TEXT NOT NULL, version TEXT, time_created INTEGER, time_updated INTEGER,
            time_archived INTEGER, data TEXT);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
            time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL,
            session_id TEXT NOT NULL, time_created INTEGER, time_updated INTEGER,
            data TEXT NOT NULL);
        CREATE TABLE todo (session_id TEXT, content TEXT);
        """
    )
    conn.execute("INSERT INTO project VALUES ('p1', '/work/app')")
    cols = "id, project_id, directory, title, time_created, time_updated"
    if directory_column:
        conn.execute(
            f"INSERT INTO session ({cols}) VALUES (?, ?, ?, ?, ?, ?)",
            ("ses_1", "p1", "/work/app", "Fix login", 1760000000000, 1760000060000),
        )
        conn.execute(
            f"INSERT INTO session ({cols}) VALUES (?, ?, ?, ?, ?, ?)",
            ("ses_2", "p1", "/elsewhere", "Other", 1760000000000, 1760000000000),
        )
    else:
        conn.execute(
            "INSERT INTO session (id, project_id, title, time_created, time_updated) "
            "VALUES ('ses_1', 'p1', 'Fix login', 1760000000000, 1760000060000)"
        )
    messages = [
        ("msg_1", 1760000001000, {"role": "user", "time": {"created": 1760000001000}}),
        (
            "msg_2",
            1760000002000,
            {
                "role": "assistant",
                "modelID": "gpt-5",
                "time": {"created": 1760000002000},
                "path": {"cwd": "/work/app", "root": "/work/app"},
            },
        ),
    ]
    for mid, created, data in messages:
        conn.execute(
            "INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)",
            (mid, created, created, json.dumps(data)),
        )
    parts = [
        ("prt_1", "msg_1", {"type": "text", "text": "the login form rejects valid users"}),
        ("prt_2", "msg_1", {"type": "text", "text": "<file contents>", "synthetic": True}),
        ("prt_3", "msg_2", {"type": "text", "text": "I decided to trim the email first."}),
        (
            "prt_4",
            "msg_2",
            {
                "type": "tool",
                "tool": "edit",
                "callID": "call_1",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/work/app/login.py"},
                    "output": "ok",
                },
            },
        ),
        (
            "prt_5",
            "msg_2",
            {
                "type": "tool",
                "tool": "bash",
                "callID": "call_2",
                "state": {
                    "status": "error",
                    "input": {"command": "pytest -q"},
                    "error": "1 failed",
                },
            },
        ),
        ("prt_6", "msg_2", {"type": "step-finish", "tokens": {}}),
    ]
    for pid, mid, data in parts:
        conn.execute(
            "INSERT INTO part VALUES (?, ?, 'ses_1', 0, 0, ?)", (pid, mid, json.dumps(data))
        )
    conn.commit()
    conn.close()
    return path


def test_database_sessions(tmp_path: Path) -> None:
    db = _db(tmp_path / "opencode.db")
    before = db.read_bytes()
    found = opencode.discover("/work/app", base=tmp_path)
    assert [(s.session_id, s.cwd) for s in found] == [("ses_1", "/work/app")]
    assert found[0].updated == 1760000060.0
    s = opencode.parse(found[0])
    assert s.title == "Fix login"
    assert s.model == "gpt-5"
    assert [(m.role, m.kind, m.text) for m in s.messages if m.role != "tool"] == [
        ("user", "meta", "<file contents>"),
        ("user", "", "the login form rejects valid users"),
        ("assistant", "", "I decided to trim the email first."),
    ]
    calls = s.tool_calls()
    assert calls[0].files_edited == ["/work/app/login.py"]
    assert calls[1].command == "pytest -q" and calls[1].error == "1 failed"
    assert db.read_bytes() == before  # opened read-only
    assert opencode.parse(found[0]).source.version == s.source.version


def test_newer_schema_without_directory_column(tmp_path: Path) -> None:
    _db(tmp_path / "opencode.db", directory_column=False)
    found = opencode.discover_db("/work/app", tmp_path)
    assert [s.session_id for s in found] == ["ses_1"]  # directory from project.worktree
    assert opencode.parse(found[0]).title == "Fix login"


def test_locked_database_raises_transcript_error(tmp_path: Path) -> None:
    db = _db(tmp_path / "opencode.db")
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(TranscriptError):
            opencode.parse_db(db, "ses_1", timeout=0.05)
    finally:
        holder.rollback()
        holder.close()
    assert opencode.parse_db(db, "ses_1").session_id == "ses_1"


def test_unrecognised_database(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    sqlite3.connect(db).execute("CREATE TABLE other (x)").connection.close()
    with pytest.raises(TranscriptError):
        opencode.discover_db("/work/app", tmp_path)


def test_malformed_part_row_counted(tmp_path: Path) -> None:
    db = _db(tmp_path / "opencode.db")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE part SET data = '{torn' WHERE id = 'prt_5'")
    conn.commit()
    conn.close()
    s = opencode.parse_db(db, "ses_1")
    assert s.warnings == 1
    assert [c.name for c in s.tool_calls()] == ["edit"]
