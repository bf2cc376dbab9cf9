from __future__ import annotations

import json
from pathlib import Path

from nano_brain.harvest import claude_code, fingerprint

from ._util import TRANSCRIPTS, with_garbage

CC = TRANSCRIPTS / "claude-code"
PRIVATE = CC / "-tmp-private"
MAIN = PRIVATE / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
TURN2 = CC / "incremental-subagents" / "turn-2.jsonl"
TURN2_SUB = CC / "incremental-subagents" / "turn-2" / "subagents" / "agent-a485154.jsonl"


def test_main_session_identity_and_requests() -> None:
    s = claude_code.parse(MAIN)
    assert s.agent == "claude-code"
    assert s.session_id == "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
    assert s.cwd == "/tmp/private"
    assert s.git_branch == "analytics-v2"
    assert s.model == "claude-sonnet-4-5-20250929"
    requests = [m.text for m in s.messages if m.role == "user" and not m.kind]
    assert requests == [
        "create hello.py, md and js",
        "update py with one liner comment",
        "delete js",
    ]
    assert s.warnings == 0


def test_lines_of_one_api_message_are_merged() -> None:
    s = claude_code.parse(MAIN)
    assistants = [m for m in s.messages if m.role == "assistant"]
    # 10 assistant lines, 7 distinct message.id values
    assert len(assistants) == 7
    first = assistants[0]
    assert first.id == "msg_bdrk_013SYvCzWGkVVXBeihWmL3gF"
    assert first.text.startswith("I'll create three simple files")
    assert [c.files_written for c in first.tool_calls] == [
        ["/tmp/private/hello.py"],
        ["/tmp/private/hello.md"],
        ["/tmp/private/hello.js"],
    ]


def test_tool_calls_reads_edits_commands() -> None:
    calls = claude_code.parse(MAIN).tool_calls()
    assert [c.name for c in calls] == ["Write", "Write", "Write", "Read", "Edit", "Bash"]
    assert calls[3].files_read == ["/tmp/private/hello.py"]
    assert calls[4].files_edited == ["/tmp/private/hello.py"]
    assert calls[5].command == "rm hello.js"
    assert not any(c.failed for c in calls)


def test_discover_groups_sibling_agent_files() -> None:
    sources = claude_code.discover("/tmp/private", base=CC)
    assert len(sources) == 1
    assert sources[0].session_id == "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
    assert sources[0].paths[0] == str(MAIN)
    assert {Path(p).name for p in sources[0].paths[1:]} == {
        "agent-36541525.jsonl",
        "agent-50243ee8.jsonl",
    }
    s = claude_code.parse(sources[0])
    side = [m for m in s.messages if m.sidechain]
    assert any(m.text == "Warmup" for m in side)
    assert {m.agent_id for m in side} == {"36541525", "50243ee8"}
    # the main thread's first request is still first among non-sidechain requests
    assert next(m for m in s.messages if m.role == "user" and not m.sidechain).text == (
        "create hello.py, md and js"
    )


def test_discover_nested_subagents_layout(tmp_path: Path) -> None:
    cwd = "/Users/User/repo/codemie-ai/codemie-code"
    (tmp_path / claude_code.encode_cwd(cwd)).symlink_to(CC / "incremental-subagents")
    sources = claude_code.discover(cwd, base=tmp_path)
    assert len(sources) == 1
    assert [Path(p).name for p in sources[0].paths] == ["turn-2.jsonl", "agent-a485154.jsonl"]
    s = claude_code.parse(sources[0])
    assert s.session_id == "e9fb405b-169f-40eb-9396-7e75076f045d"
    assert s.cwd == cwd
    assert s.git_branch == "hooks"
    sub_reads = {p for m in s.messages if m.sidechain for c in m.tool_calls for p in c.files_read}
    assert f"{cwd}/src/cli/index.ts" in sub_reads
    written = {p for c in s.tool_calls() for p in c.files_written}
    assert f"{cwd}/SPEC-NEW-CLI-COMMANDS.md" in written
    main_final = [m for m in s.messages if m.role == "assistant" and not m.sidechain][-1]
    assert main_final.text.startswith("## Summary")


def test_encode_cwd_matches_fixture_folder_names() -> None:
    assert claude_code.encode_cwd("/tmp/private") == "-tmp-private"
    # README: /Users/Nikita_Levyankov/... lives in -Users-Nikita-Levyankov-...
    assert claude_code.encode_cwd(
        "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"
    ) == ("-Users-Nikita-Levyankov-repos-EPMCDME-codemie-ai-codemie-code")


def test_discover_ignores_other_workspaces() -> None:
    assert claude_code.discover("/tmp/privateer", base=CC) == []
    assert claude_code.discover("/elsewhere", base=CC) == []


def test_meta_and_command_lines_are_not_requests() -> None:
    s = claude_code.parse(CC / "session-196820da.jsonl")
    kinds = {m.kind for m in s.messages if m.role == "user"}
    assert {"meta", "command"} <= kinds
    first = next(m for m in s.messages if m.role == "user" and not m.kind)
    assert first.text.startswith("ultrathink there is logic that tracks files in claude folder")
    assert len(s.tool_calls()) == 65  # README: 65 tool calls
    assert len(claude_code.parse(CC / "session-3fe1b6bc.jsonl").tool_calls()) == 76


def test_tool_errors_and_interrupts() -> None:
    s = claude_code.parse(CC / "session-9eda1058.jsonl")
    write = next(c for c in s.tool_calls() if c.name == "Write")
    assert write.files_written == ["/Users/user/repo/available-tools.md"]
    assert write.error and "doesn't want to proceed" in write.error
    assert any(m.kind == "interrupt" for m in s.messages)
    assert len(s.tool_calls()) == 3  # README: 3 tool calls


def test_summary_titles_only_when_leaf_is_in_this_session(tmp_path: Path) -> None:
    # 16 summary lines, none pointing into the file: they describe other sessions
    assert claude_code.parse(CC / "session-9eda1058.jsonl").title is None
    first_uuid = json.loads(MAIN.read_text().splitlines()[1])["uuid"]
    summary = json.dumps({"type": "summary", "summary": "Hello files", "leafUuid": first_uuid})
    target = tmp_path / "s.jsonl"
    target.write_text(summary + "\n" + MAIN.read_text())
    assert claude_code.parse(target).title == "Hello files"


def test_system_lines_with_content_are_kept(tmp_path: Path) -> None:
    line = {
        "type": "system",
        "subtype": "api_error",
        "content": "API Error: 529 overloaded",
        "level": "error",
        "timestamp": "2025-12-10T19:38:40.000Z",
        "sessionId": "4c2ddfdc-b619-4525-8d03-1950fb1b0257",
    }
    target = tmp_path / "s.jsonl"
    target.write_text(MAIN.read_text() + json.dumps(line) + "\n")
    system = [m for m in claude_code.parse(target).messages if m.role == "system"]
    assert [(m.kind, m.errors) for m in system] == [("api_error", ["API Error: 529 overloaded"])]


def test_malformed_line_is_skipped_and_counted(tmp_path: Path) -> None:
    clean = claude_code.parse(MAIN)
    torn = claude_code.parse(with_garbage(MAIN, tmp_path / "torn.jsonl", after_line=3))
    assert torn.warnings == 1
    assert [m.text for m in torn.messages] == [m.text for m in clean.messages]


def test_source_version_tracks_content(tmp_path: Path) -> None:
    target = tmp_path / "grow.jsonl"
    target.write_bytes(MAIN.read_bytes())
    before = claude_code.parse(target).source
    assert before.version == fingerprint([target]).version
    assert before.size == MAIN.stat().st_size
    assert claude_code.parse(target).source.version == before.version
    with target.open("a") as handle:
        handle.write(MAIN.read_text().splitlines()[1] + "\n")
    assert claude_code.parse(target).source.version != before.version
