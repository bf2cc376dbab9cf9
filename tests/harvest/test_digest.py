from __future__ import annotations

from pathlib import Path

import pytest

from nano_brain.harvest import (
    Message,
    Session,
    ToolCall,
    build_digest,
    claude_code,
    codex,
    gemini,
    opencode,
    pi,
)

from ._util import TRANSCRIPTS

CC = TRANSCRIPTS / "claude-code"
CX = TRANSCRIPTS / "codex"
TUI = CX / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize(
    ("session", "goal"),
    [
        (
            lambda: claude_code.parse(
                CC / "-tmp-private" / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
            ),
            "create hello.py, md and js",
        ),
        (
            lambda: claude_code.parse(CC / "session-196820da.jsonl"),
            "ultrathink there is logic that tracks files in claude folder for sso",
        ),
        (
            lambda: claude_code.parse(CC / "session-3fe1b6bc.jsonl"),
            "analyze existing codex folder for sessions structure",
        ),
        (
            lambda: claude_code.parse(CC / "session-9eda1058.jsonl"),
            "show tools and store response in file",
        ),
        (
            lambda: claude_code.parse(CC / "incremental-subagents" / "turn-2.jsonl"),
            '@"solution-architect (agent)" analyze existing CLI command',
        ),
        (lambda: codex.parse(TUI), "show tools"),
        (
            lambda: codex.parse(CX / "codemie-turn-1.jsonl"),
            "Hello, Codex! Please explain what you do.",
        ),
        (
            lambda: pi.parse(TRANSCRIPTS / "pi" / "large-session.jsonl"),
            "read packages/coding-agent/docs/theme.md in full",
        ),
        (
            lambda: pi.parse(TRANSCRIPTS / "pi" / "before-compaction.jsonl"),
            "alright, read @packages/coding-agent/src/main.ts",
        ),
        (
            lambda: gemini.parse(
                TRANSCRIPTS / "gemini" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
            ),
            "show tools",
        ),
        (
            lambda: opencode.parse(
                opencode.discover(
                    "/test/project", TRANSCRIPTS / "opencode" / "codemie-synthetic" / "opencode"
                )[0]
            ),
            "Create a test file with console.log statements",
        ),
    ],
)
def test_goal_is_first_real_request(session, goal: str) -> None:  # type: ignore[no-untyped-def]
    parsed = session()
    digest = build_digest(parsed)
    assert digest.goal is not None and digest.goal.startswith(goal)
    assert f"## Goal\n\n{digest.goal}" in digest.markdown
    again = build_digest(session())
    assert again.markdown == digest.markdown  # deterministic, byte for byte
    assert again.conversation == digest.conversation


def test_files_commands_and_final_answer_claude() -> None:
    s = claude_code.parse(CC / "-tmp-private" / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
    d = build_digest(s)
    assert d.title == "create hello.py, md and js"
    assert d.files_written == ["hello.js", "hello.md", "hello.py"]  # relative to cwd
    assert d.files_edited == ["hello.py"]
    assert d.files_read == ["hello.py"]
    assert d.commands == ["rm hello.js"]
    assert d.final_answer == "Done! I've deleted hello.js."
    assert d.outcome.startswith("Answered (3 request(s), 6 tool call(s), 3 file(s) changed)")
    assert "### Written\n\n- `hello.js`\n- `hello.md`\n- `hello.py`" in d.markdown
    # tool output bodies stay out of the search text
    assert "File created successfully" not in d.conversation
    assert d.conversation.startswith("User: create hello.py, md and js\n\nAssistant: I'll create")


def test_error_resolution_heuristic_codex() -> None:
    d = build_digest(codex.parse(TUI))
    by_target = {e.target: e for e in d.errors}
    npm = next(e for t, e in by_target.items() if t.startswith("npm test"))
    assert npm.resolved  # the same `npm test` passed later
    hidden = by_target['rg -n "compaction|compact|reserved" node_modules/@codemieai --hidden']
    assert not hidden.resolved  # the last `rg` of the session failed
    assert "src/agents/plugins/codemie-code.plugin.ts" in d.files_edited
    assert d.final_answer and d.final_answer.startswith(
        "Implemented the default context compaction setting"
    )
    assert "- [resolved] exec_command `npm test" in d.markdown


def test_rejected_tool_call_reported() -> None:
    d = build_digest(claude_code.parse(CC / "session-9eda1058.jsonl"))
    write = next(e for e in d.errors if e.tool == "Write")
    assert write.target == "available-tools.md"
    assert "doesn't want to proceed" in write.message


def _session(messages: list[Message]) -> Session:
    return Session(agent="claude-code", session_id="abc12345-0000", cwd="/w", messages=messages)


def test_decisions_and_outcome() -> None:
    s = _session(
        [
            Message(role="user", text="<command-name>/clear</command-name>", kind="command"),
            Message(role="user", text="pick a queue for the jobs"),
            Message(
                role="assistant",
                text="Options:\n- redis\n- sqlite\n\nDECISION: use SQLite for the job queue\n"
                "```\n# we decided nothing in code\n```\nWe chose WAL mode too.",
            ),
            Message(role="user", text="LESSON: measure before tuning"),
            Message(role="user", text="and the retry policy?"),
        ]
    )
    d = build_digest(s)
    assert d.goal == "pick a queue for the jobs"
    assert d.decisions == [
        "DECISION: use SQLite for the job queue",
        "We chose WAL mode too.",
        "LESSON: measure before tuning",
    ]
    assert d.outcome.startswith("Ended without an answer to the last request")
    assert d.final_answer and d.final_answer.startswith("Options:")


def test_secrets_never_leave_the_digest() -> None:
    call = ToolCall(name="Bash", command=f"curl -H 'Authorization: Bearer {OPENAI}' x")
    call.error = f"401 for token {GITHUB}"
    blob = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 5
    s = _session(
        [
            Message(role="user", text=f"deploy with OPENAI_API_KEY={OPENAI} please"),
            Message(
                role="assistant", text=f"Using {GITHUB}. Screenshot: {blob}", tool_calls=[call]
            ),
        ]
    )
    d = build_digest(s)
    for text in (d.markdown, d.conversation, d.goal or "", *d.commands, d.errors[0].message):
        assert OPENAI not in text
        assert GITHUB not in text
    assert blob not in d.conversation and "[binary data]" in d.conversation
    assert d.redactions["openai_key"] >= 2
    assert d.redactions["github_token"] >= 2


def test_unanswered_and_empty_sessions() -> None:
    d = build_digest(_session([Message(role="user", text="hello")]))
    assert d.outcome.startswith("No assistant reply recorded")
    empty = build_digest(_session([]))
    assert empty.goal is None
    assert empty.title == "claude-code session abc12345"
    assert empty.markdown.startswith("# claude-code session abc12345\n")


def test_subagent_work_counts_but_goal_is_main_thread(tmp_path: Path) -> None:
    main = CC / "incremental-subagents" / "turn-2.jsonl"
    sub = CC / "incremental-subagents" / "turn-2" / "subagents" / "agent-a485154.jsonl"
    d = build_digest(claude_code.parse([main, sub]))
    assert d.goal and d.goal.startswith('@"solution-architect (agent)"')
    assert "src/cli/index.ts" in d.files_read  # read by the sub-agent
    assert "SPEC-NEW-CLI-COMMANDS.md" in d.files_written
    assert "Sub-agent: I'll analyze the existing CLI command structure" in d.conversation
