"""Lay real fixture transcripts out under a temporary home, in each agent's own folder layout.

Each copy has the session's recorded working directory rewritten to the test workspace, so
the transcript really "ran" there; the fixtures themselves are only read.
"""

from __future__ import annotations

from pathlib import Path

from nano_brain.harvest import HarvestLocations
from nano_brain.harvest.claude_code import encode_cwd as claude_folder
from nano_brain.harvest.gemini import project_hash
from nano_brain.harvest.pi import encode_cwd as pi_folder

from ._util import TRANSCRIPTS

CLAUDE_DIR = TRANSCRIPTS / "claude-code" / "-tmp-private"
CLAUDE_MAIN = "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
CLAUDE_CWD = "/tmp/private"
CODEX_TUI = (
    TRANSCRIPTS / "codex" / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
)
CODEX_CWD = "/Users/Sample_User/repos/codemie-ai/codemie-code"
PI_LARGE = TRANSCRIPTS / "pi" / "large-session.jsonl"
PI_CWD = "/Users/badlogic/workspaces/pi-mono"
GEMINI = TRANSCRIPTS / "gemini" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
CLAUDE_OTHER = TRANSCRIPTS / "claude-code" / "session-9eda1058.jsonl"
CLAUDE_OTHER_CWD = "/Users/user/repo"
OPENCODE_LEGACY = TRANSCRIPTS / "opencode" / "codemie-synthetic" / "opencode" / "storage"
OPENCODE_CWD = "/test/project"


def _copy(source: Path, target: Path, old_cwd: str | None, new_cwd: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    text = source.read_text(encoding="utf-8")
    if old_cwd:
        text = text.replace(old_cwd, str(new_cwd))
    target.write_text(text, encoding="utf-8")
    return target


def claude(loc: HarvestLocations, ws: Path, *, folder: Path | None = None) -> Path:
    """The -tmp-private session (main file + two sibling sub-agent files); returns main."""
    dest = folder or loc.claude_projects / claude_folder(ws)
    for path in sorted(CLAUDE_DIR.glob("*.jsonl")):
        _copy(path, dest / path.name, CLAUDE_CWD, ws)
    return dest / CLAUDE_MAIN


def claude_other(loc: HarvestLocations, cwd: Path, folder: Path) -> Path:
    """Another Claude Code session (its cwd rewritten to `cwd`) placed in `folder`."""
    return _copy(CLAUDE_OTHER, folder / CLAUDE_OTHER.name, CLAUDE_OTHER_CWD, cwd)


def codex(loc: HarvestLocations, ws: Path, *, source: Path = CODEX_TUI) -> Path:
    return _copy(source, loc.codex_sessions / "2026" / "05" / "11" / source.name, CODEX_CWD, ws)


def pi(loc: HarvestLocations, ws: Path) -> Path:
    return _copy(PI_LARGE, loc.pi_sessions / pi_folder(ws) / PI_LARGE.name, PI_CWD, ws)


def gemini(loc: HarvestLocations, ws: Path) -> Path:
    return _copy(GEMINI, loc.gemini_tmp / project_hash(ws) / "chats" / GEMINI.name, None, ws)


def opencode_legacy(loc: HarvestLocations, ws: Path) -> Path:
    """The legacy JSON storage (session, message and part files); returns the session file."""
    for path in sorted(OPENCODE_LEGACY.rglob("*.json")):
        target = loc.opencode_data / "storage" / path.relative_to(OPENCODE_LEGACY)
        _copy(path, target, OPENCODE_CWD, ws)
    return next((loc.opencode_data / "storage" / "session").rglob("*.json"))


def append_claude_turn(main: Path, ws: Path, request: str, answer: str) -> None:
    """Append one user request and its answer, as Claude Code writes a continued session."""
    import json

    session = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
    common = {"sessionId": session, "cwd": str(ws), "isSidechain": False, "userType": "external"}
    lines = [
        {
            **common,
            "type": "user",
            "uuid": "aaaaaaaa-0000-4000-8000-000000000001",
            "timestamp": "2025-12-10T19:45:00.000Z",
            "message": {"role": "user", "content": request},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "aaaaaaaa-0000-4000-8000-000000000002",
            "timestamp": "2025-12-10T19:45:05.000Z",
            "message": {
                "id": "msg_appended_1",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": answer}],
            },
        },
    ]
    with main.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
