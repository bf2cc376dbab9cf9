"""Agents' hook inputs parsed, and answers shaped as each agent documents them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nano_brain.brief.briefs import Budgets
from nano_brain.brief.edits import EditTarget
from nano_brain.brief.hookio import MAX_INPUT_BYTES, HookRequest, answer, parse
from nano_brain.brief.render import BriefItem
from tests.hooks._events import event


def test_each_documented_event_parses() -> None:
    ws = "/work/ws"
    start = parse(
        "claude-code",
        "session-start",
        json.dumps(event("claude-code", "session-start", WORKSPACE=ws)),
    )
    assert start == HookRequest("claude-code", "session-start", ws, "abc123", start.transcript_path)
    prompt = parse(
        "claude-code",
        "prompt",
        json.dumps(event("claude-code", "prompt", WORKSPACE=ws, PROMPT="why cents?")),
    )
    assert prompt is not None and prompt.prompt == "why cents?"
    edit = parse(
        "claude-code",
        "pre-edit",
        json.dumps(event("claude-code", "pre-edit-edit", WORKSPACE=ws, OLD="x = 1")),
    )
    assert edit is not None and edit.edits == (EditTarget(f"{ws}/billing.py", ("x = 1",)),)
    codex = parse(
        "codex",
        "pre-edit",
        json.dumps(event("codex", "pre-edit", WORKSPACE=ws, PATCH_OLD="-    x = 1")),
    )
    assert codex is not None and codex.edits == (EditTarget("billing.py", ("    x = 1",)),)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'"text"',
        b"{" * 100_000,
        b'{"cwd": ' + b'"x' * (MAX_INPUT_BYTES // 2) + b'"}',
    ],
)
def test_malformed_or_oversized_input_is_no_request(raw: bytes) -> None:
    assert parse("claude-code", "prompt", raw) is None


def test_unknown_agent_or_event_is_no_request() -> None:
    assert parse("cursor", "prompt", b"{}") is None
    assert parse("claude-code", "PreToolUse", b"{}") is None


def test_fields_of_the_wrong_type_are_ignored() -> None:
    request = parse(
        "claude-code", "pre-edit", b'{"cwd": 5, "tool_name": "Edit", "tool_input": [1]}'
    )
    assert request == HookRequest("claude-code", "pre-edit", "")


class _Briefs:
    """Briefs with fixed answers: the shaping is under test here, not the store."""

    budgets = Budgets()

    def __init__(self, items: list[BriefItem]) -> None:
        self.items = items

    def session_start(self) -> str:
        return "wake-up"

    def prompt(self, text: str) -> str:
        return f"memory for {text}"

    def before_edit(self, targets: object) -> tuple[str, list[BriefItem]]:
        return ("anchored" if self.items else "", self.items)


def _pinned(pinned: bool) -> BriefItem:
    return BriefItem(
        "abc", "Cents", "decision by a person", "active", "", 0.0, pinned=pinned, decision=True
    )


def test_outputs_follow_each_agents_format() -> None:
    briefs = _Briefs([_pinned(False)])
    start = answer(HookRequest("claude-code", "session-start", "/w"), briefs)  # type: ignore[arg-type]
    assert start == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "wake-up"}
    }
    prompt = answer(HookRequest("codex", "prompt", "/w", prompt="why"), briefs)  # type: ignore[arg-type]
    assert prompt == {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "memory for why",
        }
    }
    edit = answer(HookRequest("claude-code", "pre-edit", "/w"), briefs)  # type: ignore[arg-type]
    assert edit == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "anchored"}
    }
    assert answer(HookRequest("claude-code", "pre-edit", "/w"), _Briefs([])) is None  # type: ignore[arg-type]
    assert answer(HookRequest("claude-code", "prompt", "/w", prompt="  "), briefs) is None  # type: ignore[arg-type]


def test_a_pinned_decision_asks_only_when_configured_and_only_claude_code() -> None:
    briefs = _Briefs([_pinned(True)])
    informed = answer(HookRequest("claude-code", "pre-edit", "/w"), briefs)  # type: ignore[arg-type]
    assert informed is not None and "permissionDecision" not in informed["hookSpecificOutput"]
    asked = answer(HookRequest("claude-code", "pre-edit", "/w"), briefs, pinned_decisions="ask")  # type: ignore[arg-type]
    assert asked is not None and asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert "#abc Cents" in asked["hookSpecificOutput"]["permissionDecisionReason"]
    codex = answer(HookRequest("codex", "pre-edit", "/w"), briefs, pinned_decisions="ask")  # type: ignore[arg-type]
    assert codex is not None and "permissionDecision" not in codex["hookSpecificOutput"]


def test_stop_and_session_end_harvest_and_add_nothing() -> None:
    harvested: list[str] = []
    for name in ("stop", "session-end"):
        out = answer(
            HookRequest("claude-code", name, "/w"),
            _Briefs([]),
            harvest=lambda r: harvested.append(r.event),
        )  # type: ignore[arg-type]
        assert out is None
    assert harvested == ["stop", "session-end"]


def test_rendered_items_carry_no_control_characters(tmp_path: Path) -> None:
    item = BriefItem("x", "Title\x1b[31m red", "note by an agent", "active", "a\x07b\nc", 0.0)
    assert "\x1b" not in item.line() and "\x07" not in item.line() and "\n" not in item.line()
