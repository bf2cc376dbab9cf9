"""Synthetic transcripts in each agent's own layout, for hostile-input tests.

Record shapes follow the formats the parsers read (see each parser's docstring and the real
fixtures in ../shared); tests fill their fields with values of any type. Every session gets
a *request*: one well-formed user message whose text the parsed session must still hold,
whatever else the transcript contains.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nano_brain.harvest import HarvestLocations
from nano_brain.harvest.claude_code import encode_cwd as claude_folder
from nano_brain.harvest.gemini import project_hash
from nano_brain.harvest.pi import encode_cwd as pi_folder

T0 = "2025-03-01T10:00:00.000Z"
T1 = "2025-03-01T10:05:00.000Z"
MS0 = 1_740_823_200_000

Line = bytes | dict[str, Any]
"""One line of a JSONL transcript: a record (serialised here) or raw bytes (sent as is)."""


def _line(line: Line) -> bytes:
    raw = line if isinstance(line, bytes) else json.dumps(line).encode()
    return raw if raw.endswith(b"\n") else raw + b"\n"


@dataclass(frozen=True)
class JsonlAgent:
    """How one JSONL agent lays out a session: where the file goes, its first lines, and
    what a user request looks like."""

    name: str
    place: Callable[[HarvestLocations, Path, str], Path]
    header: Callable[[Path, str], list[dict[str, Any]]]
    request: Callable[[Path, str, str], dict[str, Any]]
    templates: list[dict[str, Any]]

    def write(
        self, loc: HarvestLocations, ws: Path, sid: str, body: Sequence[Line], request: str
    ) -> Path:
        path = self.place(loc, ws, sid)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            for line in [*self.header(ws, sid), *body, self.request(ws, sid, request)]:
                handle.write(_line(line))
        return path


# -- Claude Code -------------------------------------------------------------------------

CLAUDE = JsonlAgent(
    name="claude-code",
    place=lambda loc, ws, sid: loc.claude_projects / claude_folder(ws) / f"{sid}.jsonl",
    header=lambda ws, sid: [
        {"type": "summary", "summary": "earlier work", "leafUuid": "nowhere"},
        {
            "type": "user",
            "sessionId": sid,
            "cwd": str(ws),
            "uuid": "head-1",
            "timestamp": T0,
            "gitBranch": "main",
            "message": {"role": "user", "content": "look at the parser"},
        },
    ],
    request=lambda ws, sid, text: {
        "type": "user",
        "sessionId": sid,
        "cwd": str(ws),
        "uuid": "request-1",
        "timestamp": T1,
        "message": {"role": "user", "content": text},
    },
    templates=[
        {
            "type": "assistant",
            "uuid": "a1",
            "timestamp": T0,
            "isSidechain": False,
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-x",
                "content": [
                    {"type": "text", "text": "reading"},
                    {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"file_path": "a"}},
                    {"type": "tool_use", "id": "tu2", "name": "Bash", "input": {"command": "ls"}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "timestamp": T0,
            "isMeta": False,
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "tu1", "content": "x", "is_error": True}
                ],
            },
        },
        {"type": "system", "subtype": "api_error", "content": "boom", "level": "error"},
        {"type": "summary", "summary": "a title", "leafUuid": "a1"},
        {"type": "progress", "data": {"x": 1}},
        {"type": "assistant", "isApiErrorMessage": True, "error": "rate", "message": {}},
    ],
)

# -- Codex ---------------------------------------------------------------------------------

CODEX = JsonlAgent(
    name="codex",
    place=lambda loc, ws, sid: (
        loc.codex_sessions / "2025" / "03" / "01" / f"rollout-2025-03-01T10-00-00-{sid}.jsonl"
    ),
    header=lambda ws, sid: [
        {
            "timestamp": T0,
            "type": "session_meta",
            "payload": {"id": sid, "cwd": str(ws), "timestamp": T0, "git": {"branch": "main"}},
        }
    ],
    request=lambda ws, sid, text: {
        "timestamp": T1,
        "type": "event_msg",
        "payload": {"type": "user_message", "message": text},
    },
    templates=[
        {"timestamp": T0, "type": "turn_context", "payload": {"cwd": "/x", "model": "gpt"}},
        {
            "timestamp": T0,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "hi"}],
            },
        },
        {
            "timestamp": T0,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd": "ls", "session_id": 3}',
                "call_id": "c1",
            },
        },
        {
            "timestamp": T0,
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "Process exited with code 2\nOutput:\nno",
            },
        },
        {
            "timestamp": T0,
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Add File: a",
            },
        },
        {
            "timestamp": T0,
            "type": "response_item",
            "payload": {"type": "local_shell_call", "action": {"command": ["bash", "-lc", "ls"]}},
        },
        {
            "timestamp": T0,
            "type": "event_msg",
            "payload": {
                "type": "exec_command_end",
                "call_id": "c1",
                "exit_code": 1,
                "parsed_cmd": [{"type": "read", "path": "a"}],
            },
        },
        {"timestamp": T0, "type": "event_msg", "payload": {"type": "error", "message": "x"}},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old"}]},
    ],
)

# -- Pi ------------------------------------------------------------------------------------

PI = JsonlAgent(
    name="pi",
    place=lambda loc, ws, sid: loc.pi_sessions / pi_folder(ws) / f"2025-03-01T10-00-00_{sid}.jsonl",
    header=lambda ws, sid: [
        {"type": "session", "version": 3, "id": sid, "timestamp": T0, "cwd": str(ws)}
    ],
    request=lambda ws, sid, text: {
        "type": "message",
        "id": "request-1",
        "parentId": None,
        "timestamp": T1,
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    },
    templates=[
        {
            "type": "message",
            "id": "e1",
            "parentId": None,
            "timestamp": T0,
            "message": {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}],
                "stopReason": "error",
                "errorMessage": "bad",
                "model": "m",
            },
        },
        {
            "type": "message",
            "id": "e2",
            "parentId": "e1",
            "message": {"role": "toolResult", "toolCallId": "t1", "content": [], "isError": True},
        },
        {"type": "message", "message": {"role": "bashExecution", "command": "ls", "exitCode": 1}},
        {"type": "compaction", "id": "e3", "parentId": "e2", "summary": "so far"},
        {"type": "session_info", "name": "named"},
        {"type": "model_change", "modelId": "m2"},
        {"type": "custom_message", "content": [{"type": "text", "text": "hook"}]},
    ],
)

JSONL_AGENTS = {agent.name: agent for agent in (CLAUDE, CODEX, PI)}

# -- Gemini --------------------------------------------------------------------------------

GEMINI_TEMPLATES: list[dict[str, Any]] = [
    {"type": "user", "content": "hello", "timestamp": T0, "id": "m1"},
    {
        "type": "gemini",
        "content": "ok",
        "model": "gemini-x",
        "timestamp": T0,
        "toolCalls": [
            {
                "id": "c1",
                "name": "read_file",
                "args": {"absolute_path": "/a"},
                "status": "error",
                "result": [{"functionResponse": {"response": {"error": "nope"}}}],
            }
        ],
    },
    {"type": "error", "content": "quota", "timestamp": T0},
    {"type": "info", "content": "note"},
]


def gemini_path(loc: HarvestLocations, ws: Path, sid: str) -> Path:
    return loc.gemini_tmp / project_hash(ws) / "chats" / f"session-2025-03-01T10-00-{sid}.json"


def gemini_document(sid: str, messages: list[Any], request: str) -> dict[str, Any]:
    return {
        "sessionId": sid,
        "projectHash": "x",
        "startTime": T0,
        "lastUpdated": T1,
        "messages": [*messages, {"type": "user", "content": request, "timestamp": T1}],
    }


def write_gemini(loc: HarvestLocations, ws: Path, sid: str, raw: bytes) -> Path:
    path = gemini_path(loc, ws, sid)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return path


# -- OpenCode ------------------------------------------------------------------------------

OPENCODE_MESSAGE: dict[str, Any] = {
    "role": "assistant",
    "time": {"created": MS0},
    "modelID": "m",
    "path": {"cwd": "/x"},
    "error": {"name": "E", "data": {"message": "bad"}},
}
OPENCODE_PARTS: list[dict[str, Any]] = [
    {"type": "text", "text": "answer", "synthetic": False},
    {
        "type": "tool",
        "tool": "bash",
        "callID": "c1",
        "state": {"status": "error", "input": {"command": "ls"}, "output": {"a": 1}, "error": "x"},
    },
]

OpenCodeFile = bytes | dict[str, Any]
"""A JSON file of the legacy storage, or the `data` of a database row: a record, or raw
bytes (written as is, or decoded leniently into the TEXT column)."""


def _raw(value: OpenCodeFile) -> bytes:
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def _request_message(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return {"role": "user", "time": {"created": MS0 + 60_000}}, [{"type": "text", "text": text}]


def write_opencode_legacy(
    loc: HarvestLocations,
    ws: Path,
    sid: str,
    messages: Sequence[tuple[OpenCodeFile, Sequence[OpenCodeFile]]],
    request: str,
    *,
    session: OpenCodeFile | None = None,
) -> Path:
    """The legacy storage: a session file, a file per message, a file per part."""
    storage = loc.opencode_data / "storage"
    info = session or {"id": sid, "directory": str(ws), "title": "t", "time": {"created": MS0}}
    session_file = storage / "session" / "proj" / f"{sid}.json"
    session_file.parent.mkdir(parents=True, exist_ok=True)
    session_file.write_bytes(_raw(info))
    for index, (message, parts) in enumerate([*messages, _request_message(request)]):
        mid = f"msg-{index:04d}"
        (storage / "message" / sid).mkdir(parents=True, exist_ok=True)
        (storage / "message" / sid / f"{mid}.json").write_bytes(_raw(message))
        (storage / "part" / mid).mkdir(parents=True, exist_ok=True)
        for number, part in enumerate(parts):
            (storage / "part" / mid / f"prt-{number:04d}.json").write_bytes(_raw(part))
    return session_file


OPENCODE_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, directory TEXT NOT NULL,
    title TEXT NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER,
    data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
    data TEXT NOT NULL);
"""


def write_opencode_db(
    loc: HarvestLocations,
    ws: Path,
    sid: str,
    messages: Sequence[tuple[OpenCodeFile, Sequence[OpenCodeFile]]],
    request: str,
) -> Path:
    """OpenCode's SQLite database with one session of this workspace."""
    db = loc.opencode_data / "opencode.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA synchronous = OFF")  # a throwaway file: no fsync per example
        conn.executescript(OPENCODE_SCHEMA)
        conn.execute("INSERT INTO project VALUES ('p1', ?)", (str(ws),))
        conn.execute(
            "INSERT INTO session VALUES (?, 'p1', ?, 'title', ?, ?, NULL)",
            (sid, str(ws), MS0, MS0 + 60_000),
        )
        for index, (message, parts) in enumerate([*messages, _request_message(request)]):
            mid = f"msg-{index:04d}"
            conn.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?)",
                (mid, sid, MS0 + index, _raw(message).decode("utf-8", "replace")),
            )
            for number, part in enumerate(parts):
                conn.execute(
                    "INSERT INTO part VALUES (?, ?, ?, ?)",
                    (f"{mid}-{number:04d}", mid, sid, _raw(part).decode("utf-8", "replace")),
                )
        conn.commit()
    finally:
        conn.close()
    return db
