from __future__ import annotations

import json
from pathlib import Path

from nano_brain.harvest import codex

from ._util import TRANSCRIPTS, with_garbage

CX = TRANSCRIPTS / "codex"
TUI = CX / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
DESKTOP = CX / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
REPO = "/Users/Sample_User/repos/codemie-ai/codemie-code"


def _requests(path: Path) -> list[str]:
    return [m.text for m in codex.parse(path).messages if m.role == "user" and not m.kind]


def test_session_meta() -> None:
    s = codex.parse(TUI)
    assert s.agent == "codex"
    assert s.session_id == "019e1625-789d-76c0-80ab-3724b5ddb799"
    assert s.cwd == REPO
    assert s.warnings == 0


def test_injected_blocks_dropped_and_event_echoes_deduplicated() -> None:
    s = codex.parse(TUI)
    users = [m for m in s.messages if m.role == "user"]
    # two real requests, each present as a response_item AND an event_msg in the file
    assert [m.text for m in users] == [
        "show tools",
        "let's update the defailt context compart to 90 in env var",
    ]
    assert not any("AGENTS.md instructions" in m.text for m in s.messages)
    assert not any("<permissions instructions>" in m.text for m in s.messages)
    turn = codex.parse(CX / "codemie-turn-2.jsonl")
    assert [(m.role, m.text) for m in turn.messages] == [
        ("user", "Hello, Codex! Please explain what you do."),
        ("assistant", "I am Codex, an AI coding assistant by OpenAI."),
        ("user", "What languages can you work with?"),
        (
            "assistant",
            "I can work with many programming languages including Python, JavaScript, "
            "TypeScript, Go, and Rust.",
        ),
    ]
    assert turn.model == "o4-mini"
    assert turn.cwd == "/home/user/project"


def test_desktop_request_wrapper_is_unwrapped() -> None:
    requests = _requests(DESKTOP)
    assert len(requests) == 3
    assert requests[0].startswith(
        "analyze trascript and summarzie action items related to codemie and demo preapration"
    )
    assert requests[0].endswith(
        "Files mentioned: /Users/Sample_User/Downloads/Sample Project Demo Prep.vtt"
    )
    assert codex.parse(DESKTOP).cwd == "/Users/Sample_User/naya"


def test_tool_calls_patches_and_commands() -> None:
    calls = codex.parse(TUI).tool_calls()
    names = {c.name for c in calls}
    assert "write_stdin" not in names  # polls are not tool calls
    assert {"exec_command", "apply_patch", "update_plan", "web_search"} <= names
    edited = {p for c in calls for p in c.files_edited}
    assert edited == {
        "src/agents/plugins/__tests__/codemie-code-reasoning.test.ts",
        "src/agents/plugins/codemie-code.plugin.ts",
        "src/agents/plugins/opencode/opencode.plugin.ts",
    }
    commands = [c.command for c in calls if c.command]
    assert "git status --short" in commands
    assert "npm run build" in commands
    read = {p for c in calls for p in c.files_read}
    assert "src/utils/config.ts" in read  # from exec_command_end parsed_cmd


def test_exit_codes_charged_to_the_command() -> None:
    calls = codex.parse(TUI).tool_calls()
    npm = [c for c in calls if c.command and c.command.startswith("npm test")]
    # the focused test first failed (RED), then passed twice
    assert npm[0].error and npm[0].error.startswith("exit 1")
    assert [c.failed for c in npm[1:]] == [False, False]
    rg = next(c for c in calls if c.command and "node_modules/opencode-ai" in c.command)
    assert rg.error and "No such file or directory" in rg.error


def test_discover_by_session_meta_cwd(tmp_path: Path) -> None:
    day = tmp_path / "2026" / "05" / "11"
    day.mkdir(parents=True)
    for path in (TUI, DESKTOP):
        (day / path.name).symlink_to(path)
    found = codex.discover(REPO, base=tmp_path)
    assert [s.session_id for s in found] == ["019e1625-789d-76c0-80ab-3724b5ddb799"]
    assert len(codex.discover("/Users/Sample_User", base=tmp_path)) == 2  # sessions below root
    assert codex.discover("/Users/Sample_User/repos/codemie", base=tmp_path) == []


def test_malformed_line_is_skipped_and_counted(tmp_path: Path) -> None:
    clean = codex.parse(TUI)
    torn = codex.parse(with_garbage(TUI, tmp_path / "rollout-x.jsonl", after_line=5))
    assert torn.warnings == 1
    assert [m.text for m in torn.messages] == [m.text for m in clean.messages]


def test_non_object_line_counts_as_malformed(tmp_path: Path) -> None:
    target = tmp_path / "rollout-y.jsonl"
    target.write_text("[1, 2]\n" + (CX / "codemie-turn-1.jsonl").read_text())
    assert codex.parse(target).warnings == 1


def test_legacy_unwrapped_lines(tmp_path: Path) -> None:
    lines = [
        {"id": "old-1", "timestamp": "2025-04-01T10:00:00Z", "instructions": ""},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]}),
            "call_id": "c1",
        },
        {"type": "function_call_output", "call_id": "c1", "output": "Exit code: 1\nboom"},
    ]
    target = tmp_path / "rollout-old.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    s = codex.parse(target)
    assert s.session_id == "old-1"
    assert [m.text for m in s.messages if m.role == "user"] == ["fix it"]
    call = s.tool_calls()[0]
    assert call.command == "pytest -q"
    assert call.error and call.error.startswith("exit 1")
