"""The agents nano-brain installs hooks for: each one's settings files, timeout unit and hooks.

Claude Code, Codex and Gemini CLI read the same three-level JSON (event -> matcher group ->
handlers); they differ in where the files are, in the events, matchers and timeout unit, and
in whether a handler carries a name (Gemini CLI's `/hooks enable|disable` take one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class HookSpec:
    """One hook we install: the agent's event, its matcher (None: no matcher key), the
    runner's event argument and the timeout in seconds."""

    event: str
    matcher: str | None
    arg: str
    timeout: int


@dataclass(frozen=True)
class AgentHooks:
    """What installing into one agent's settings takes. Paths are relative: `user_file` to
    the home folder, the others to the workspace; an agent with one project file has it as
    its `local_file` too."""

    label: str
    user_file: str
    project_file: str
    local_file: str
    timeout_unit: Literal["s", "ms"]
    named: bool
    """Handlers carry `name` ("nano-brain-<arg>") and `description` (from `ABOUT`)."""
    specs: tuple[HookSpec, ...]
    http_events: tuple[str, ...] = ()
    """The events whose handler may POST to a running server instead (`install --http`)."""

    @property
    def shares_project_file(self) -> bool:
        """Whether the local scope writes the (shared) project file."""
        return self.local_file == self.project_file

    def timeout(self, spec: HookSpec) -> int:
        """`spec`'s timeout in this agent's unit."""
        return spec.timeout * 1000 if self.timeout_unit == "ms" else spec.timeout


ABOUT = {
    "session-start": "nano-brain: adds the project's decisions and recent work at session start",
    "prompt": "nano-brain: adds the decisions and notes relevant to each prompt",
    "pre-edit": "nano-brain: adds the decisions anchored to the code about to change",
    "stop": "nano-brain: adds the finished turn to the project's memory",
    "session-end": "nano-brain: adds the ended session to the project's memory",
}
"""What each runner event adds, for agents that show a handler's description."""

AGENT_HOOKS: dict[str, AgentHooks] = {
    "claude-code": AgentHooks(
        label="Claude Code",
        user_file=".claude/settings.json",
        project_file=".claude/settings.json",
        local_file=".claude/settings.local.json",
        timeout_unit="s",
        named=False,
        specs=(
            HookSpec("SessionStart", "startup|resume|clear|compact", "session-start", 10),
            HookSpec("UserPromptSubmit", None, "prompt", 10),
            HookSpec("PreToolUse", "Edit|MultiEdit|Write|NotebookEdit", "pre-edit", 10),
            HookSpec("Stop", None, "stop", 10),
            # SessionEnd hooks share a 1.5 s budget unless a hook's own timeout raises it
            HookSpec("SessionEnd", None, "session-end", 5),
        ),
        # SessionStart runs only command (and mcp_tool) handlers
        http_events=("UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"),
    ),
    # Codex has no SessionEnd; its PreToolUse sees file edits as apply_patch (Edit and Write
    # are aliases of it)
    "codex": AgentHooks(
        label="Codex",
        user_file=".codex/hooks.json",
        project_file=".codex/hooks.json",
        local_file=".codex/hooks.json",
        timeout_unit="s",
        named=False,
        specs=(
            HookSpec("SessionStart", "startup|resume", "session-start", 10),
            HookSpec("UserPromptSubmit", None, "prompt", 10),
            HookSpec("PreToolUse", "apply_patch|Edit|Write", "pre-edit", 10),
            HookSpec("Stop", None, "stop", 10),
        ),
    ),
    # Gemini CLI's BeforeTool cannot add context (only override the tool's arguments), so
    # there is no before-edit hook; its settings.json is the whole of its settings
    "gemini": AgentHooks(
        label="Gemini CLI",
        user_file=".gemini/settings.json",
        project_file=".gemini/settings.json",
        local_file=".gemini/settings.json",
        timeout_unit="ms",
        named=True,
        specs=(
            HookSpec("SessionStart", "*", "session-start", 10),
            HookSpec("BeforeAgent", "*", "prompt", 10),
            HookSpec("AfterAgent", "*", "stop", 10),
            HookSpec("SessionEnd", "*", "session-end", 5),
        ),
    ),
}
