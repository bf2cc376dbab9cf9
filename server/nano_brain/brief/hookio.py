"""Agents' hook events in, their documented answers out: one request shape for every agent.

Claude Code and Codex send a JSON object on stdin (or, for Claude Code's HTTP hooks, as the
body of a POST) and read a JSON object back (docs/hooks.md has the fields and their sources).
`parse` turns the input into a `HookRequest`; `answer` asks a `Briefs` for the event's brief
and shapes it as the agent's output: ``hookSpecificOutput.additionalContext``, and before the
edit of code a pinned decision is anchored to, optionally ``permissionDecision: "ask"`` (Claude
Code only: Codex does not support it yet). No brief: no output, and the agent goes on.

Nothing here raises on bad input: a hook must never break the agent's loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from .edits import EditTarget, edit_targets

if TYPE_CHECKING:
    from .briefs import Briefs

Agent = Literal["claude-code", "codex", "gemini"]
Event = Literal["session-start", "prompt", "pre-edit", "stop", "session-end"]
AGENTS: tuple[Agent, ...] = ("claude-code", "codex", "gemini")
EVENTS: tuple[Event, ...] = ("session-start", "prompt", "pre-edit", "stop", "session-end")
MAX_INPUT_BYTES = 1024 * 1024
"""A hook input larger than this is not read (Claude Code's own inputs are far smaller; a
Write of a large file is the biggest)."""

#: Each event's name in the agents' own output (`hookSpecificOutput.hookEventName`).
_EVENT_NAMES: dict[Event, str] = {
    "session-start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "pre-edit": "PreToolUse",
    "stop": "Stop",
    "session-end": "SessionEnd",
}
#: Where an agent names an event otherwise (Gemini CLI: `BeforeAgent` on a prompt).
_AGENT_EVENT_NAMES: dict[tuple[Agent, Event], str] = {
    ("gemini", "prompt"): "BeforeAgent",
    ("gemini", "stop"): "AfterAgent",
}
#: Agents that want a JSON object on stdout even when a hook adds nothing (Gemini CLI turns
#: any other output into a message to the user).
EMPTY_ANSWER: dict[str, dict[str, Any]] = {"gemini": {}}


class HookRequest(NamedTuple):
    """One hook event, whatever the agent."""

    agent: Agent
    event: Event
    cwd: str
    session_id: str = ""
    transcript_path: str = ""
    prompt: str = ""
    edits: tuple[EditTarget, ...] = ()


def parse(agent: str, event: str, raw: bytes | str | Mapping[str, Any]) -> HookRequest | None:
    """The request in an agent's hook input; None for input that is not what the agent
    documents (not JSON, not an object, too large, an unknown agent or event)."""
    if agent not in AGENTS or event not in EVENTS:
        return None
    data: Any = raw
    if isinstance(raw, (bytes, str)):
        if len(raw) > MAX_INPUT_BYTES:
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
    if not isinstance(data, Mapping):
        return None
    cwd = _text(data.get("cwd"))
    edits: tuple[EditTarget, ...] = ()
    if event == "pre-edit":
        tool_input = data.get("tool_input")
        tool_name = _text(data.get("tool_name"))
        if isinstance(tool_input, Mapping):
            edits = tuple(edit_targets(tool_name, tool_input))
    return HookRequest(
        agent=agent,  # narrowed by the `in AGENTS` / `in EVENTS` check above
        event=event,
        cwd=cwd,
        session_id=_text(data.get("session_id")),
        transcript_path=_text(data.get("transcript_path")),
        prompt=_text(data.get("prompt")),
        edits=edits,
    )


def answer(
    request: HookRequest,
    briefs: Briefs,
    *,
    pinned_decisions: str = "inform",
    harvest: Callable[[HookRequest], None] | None = None,
) -> dict[str, Any] | None:
    """The agent's output for the request, or None to add nothing. `harvest` is called for
    the stop and session-end events (it must return at once: the work runs elsewhere)."""
    if request.event in ("stop", "session-end"):
        if harvest is not None:
            harvest(request)
        return None  # context from a stop hook would make the agent go on: none
    decision: dict[str, Any] = {}
    if request.event == "session-start":
        text = briefs.session_start()
    elif request.event == "prompt":
        text = briefs.prompt(request.prompt) if request.prompt.strip() else ""
    else:
        text, items = briefs.before_edit(request.edits)
        pinned = [i for i in items if i.pinned and i.decision]
        if pinned and pinned_decisions == "ask" and request.agent == "claude-code":
            decision = {
                "permissionDecision": "ask",
                "permissionDecisionReason": "This edit changes code that pinned decisions are "
                "anchored to: " + "; ".join(f"#{i.id} {i.title}" for i in pinned)[:500],
            }
    if not text:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": _AGENT_EVENT_NAMES.get(
                (request.agent, request.event), _EVENT_NAMES[request.event]
            ),
            "additionalContext": text,
            **decision,
        }
    }


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
