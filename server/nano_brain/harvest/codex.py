"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.

Handled: `session_meta` (id, cwd, git branch), `turn_context` (model, cwd), `response_item`
messages, function calls (`exec_command`, `shell`, `apply_patch`, `update_plan`, ...) and
their outputs, `custom_tool_call` patches, web searches; `event_msg` user/agent messages
(deduplicated against the response items that repeat them), `exec_command_end` exit codes
and read paths, failed `patch_apply_end`, `error` events. Developer messages and injected
user blocks (AGENTS.md instructions, `<environment_context>`, `<user_instructions>`) are
dropped. `write_stdin` polls are not listed as tool calls, but the exit code they report
is charged to the command that started the process. The pre-2025 unwrapped line format
(records without `payload`) is read as response items.
Not handled: reasoning (encrypted or summaries; dropped), images.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ._common import (
    TOOL_OUTPUT_LIMIT,
    JsonlReader,
    block_text,
    cached_head,
    classify_user_text,
    first_record,
    json_object,
    make_tool_call,
    parse_time,
    short_error,
    span,
    str_or_none,
)
from ._files import DEFAULT_LIMITS, ReadLimits, decode_json, is_regular
from .model import Message, Role, Session, SessionSource, ToolCall, is_within

DEFAULT_BASE = Path("~/.codex/sessions")
_RESPONSE_TYPES = {
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "reasoning",
}
_EXIT = re.compile(r"(?:Process exited with code|Exit code:?)\s*(-?\d+)")
_RUNNING = re.compile(r"Process running with session ID (\d+)")
_REQUEST = re.compile(r"^\s*## My request for Codex:\s*$", re.M)
_MENTIONED = re.compile(r"^## (.+?): (.+)$", re.M)


def _meta_of(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    for record in first_record(path, max_lines=3, limits=limits):
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, dict):
            return payload
        if "payload" not in record and "id" in record and "timestamp" in record:
            return record  # the older unwrapped header line
    return {}


def _rollouts(base: Path) -> list[Path]:
    """Every `rollout-*.jsonl` below `base`, sorted, found without recursion.

    Codex files them as YYYY/MM/DD, but the folder tree is the user's: a loop of
    symlinks or a tree thousands deep must neither hang nor overflow the stack, so the
    walk keeps its own stack and does not follow symlinked folders.
    """
    found: list[Path] = []
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(Path(entry.path))
                    elif entry.name.startswith("rollout-") and entry.name.endswith(".jsonl"):
                        found.append(Path(entry.path))
        except OSError:
            continue  # gone or unreadable: the rest is still walked
    return sorted(found)


def _identity_of(path: Path, limits: ReadLimits) -> dict[str, Any]:
    """The id and cwd of a rollout (its `session_meta` also carries long instructions)."""
    meta = _meta_of(path, limits)
    return {key: meta[key] for key in ("id", "cwd") if key in meta}


def discover(
    root: str | Path, base: str | Path | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> list[SessionSource]:
    """Rollouts whose `session_meta` cwd is `root` or below it (only first lines are read)."""
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    found: list[SessionSource] = []
    for path in _rollouts(base_dir):
        if not is_regular(path):
            continue
        meta = cached_head(path, "codex:meta", lambda p: _identity_of(p, limits))
        cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else None
        if is_within(cwd, root):
            sid = meta.get("id") if isinstance(meta.get("id"), str) else None
            found.append(SessionSource("codex", (str(path),), session_id=sid, cwd=cwd))
    return found


def _clean_user_text(text: str) -> str:
    """Codex Desktop wraps a request with the files it mentions; keep request, then files."""
    parts = _REQUEST.split(text, maxsplit=1)
    if len(parts) != 2 or "# Files mentioned by the user" not in parts[0]:
        return text.strip()
    files = [m.group(2).strip() for m in _MENTIONED.finditer(parts[0])]
    request = parts[1].strip()
    return request + ("\n\nFiles mentioned: " + ", ".join(files) if files else "")


class _Builder:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: dict[str, ToolCall] = {}
        self.stdin_target: dict[str, str] = {}  # write_stdin call id -> exec call id
        self.process_call: dict[str, str] = {}  # process session id -> exec call id
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.branch: str | None = None
        self.model: str | None = None
        self.started: float | None = None

    def _say(self, role: Role, text: str, time: float | None) -> None:
        """Append a user/assistant message unless it repeats the one just added."""
        text = text.strip()
        if not text:
            return
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == role and last.text == text:
            return
        kind = classify_user_text(text) if role == "user" else ""
        if kind == "meta":
            return
        self.messages.append(Message(role=role, text=text, time=time, kind=kind))

    def _holder(self, time: float | None) -> Message:
        """The assistant message a tool call belongs to (a new one after any user turn)."""
        for message in reversed(self.messages):
            if message.role == "assistant":
                return message
            if message.role == "user":
                break
        message = Message(role="assistant", time=time)
        self.messages.append(message)
        return message

    def _call(self, call: ToolCall, time: float | None) -> None:
        self._holder(time).tool_calls.append(call)
        if call.call_id:
            self.calls[call.call_id] = call

    def add(self, record: dict[str, Any]) -> bool:
        kind = record.get("type") if isinstance(record.get("type"), str) else None
        payload = record.get("payload")
        if payload is None and kind in _RESPONSE_TYPES:
            kind, payload = "response_item", record
        elif payload is None and "id" in record and "timestamp" in record and kind is None:
            kind, payload = "session_meta", record
        if not isinstance(payload, dict):
            return kind is not None and payload is None  # unknown bare records are fine
        time = parse_time(record.get("timestamp"))
        if kind == "session_meta":
            self.session_id = self.session_id or str_or_none(payload.get("id"))
            self.cwd = self.cwd or str_or_none(payload.get("cwd"))
            git = json_object(payload.get("git"))
            self.branch = self.branch or str_or_none(git.get("branch"))
            self.started = self.started or parse_time(payload.get("timestamp"))
        elif kind == "turn_context":
            self.cwd = self.cwd or str_or_none(payload.get("cwd"))
            if isinstance(payload.get("model"), str):
                self.model = payload["model"]
        elif kind == "response_item":
            self._response(payload, time)
        elif kind == "event_msg":
            self._event(payload, time)
        return True

    def _response(self, payload: dict[str, Any], time: float | None) -> None:
        kind = payload.get("type")
        if kind == "message":
            role = payload.get("role")
            text = block_text(payload.get("content"), types=("input_text", "output_text", "text"))
            if role == "user":
                self._say("user", _clean_user_text(text), time)
            elif role == "assistant":
                self._say("assistant", text, time)
        elif kind == "function_call":
            name = str(payload.get("name") or "tool")
            raw = payload.get("arguments")
            args = raw
            if isinstance(raw, str):
                decoded, problem = decode_json(raw)
                args = raw if problem else decoded
            call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
            if name == "write_stdin":
                session = str(args.get("session_id")) if isinstance(args, dict) else ""
                if call_id and session in self.process_call:
                    self.stdin_target[call_id] = self.process_call[session]
                return
            self._call(make_tool_call(name, args, call_id), time)
        elif kind == "custom_tool_call":
            name = str(payload.get("name") or "tool")
            self._call(make_tool_call(name, payload.get("input"), payload.get("call_id")), time)
        elif kind == "local_shell_call":
            action = json_object(payload.get("action"))
            call = make_tool_call("shell", {"command": action.get("command")})
            call.call_id = str_or_none(payload.get("call_id"))
            self._call(call, time)
        elif kind == "web_search_call":
            action = json_object(payload.get("action"))
            self._call(make_tool_call("web_search", {"query": action.get("query")}), time)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(payload, time)

    def _output(self, payload: dict[str, Any], time: float | None) -> None:
        call_id = str(payload.get("call_id") or "")
        output = payload.get("output")
        exit_code: int | None = None
        if isinstance(output, dict):
            output = output.get("content") or json.dumps(output, sort_keys=True)
        text = output if isinstance(output, str) else ""
        if text.startswith("{"):
            decoded, _problem = decode_json(text)
            if isinstance(decoded, dict):
                meta = json_object(decoded.get("metadata"))
                if isinstance(meta.get("exit_code"), int):
                    exit_code = meta["exit_code"]
                text = str(decoded.get("output", text))
        target = self.stdin_target.get(call_id, call_id)
        running = _RUNNING.search(text)
        if running and target:
            self.process_call[running.group(1)] = target
        found = _EXIT.search(text)
        if found:
            exit_code = int(found.group(1))
        body = text.split("\nOutput:\n", 1)[-1]
        message = Message(
            role="tool", text=body[:TOOL_OUTPUT_LIMIT], time=time, tool_call_id=target
        )
        call = self.calls.get(target)
        if exit_code not in (None, 0):
            error = (
                f"exit {exit_code}: {short_error(body)}" if body.strip() else f"exit {exit_code}"
            )
            message.errors.append(error)
            if call is not None:
                call.error = error
        self.messages.append(message)

    def _event(self, payload: dict[str, Any], time: float | None) -> None:
        kind = payload.get("type")
        if kind == "user_message" and isinstance(payload.get("message"), str):
            self._say("user", _clean_user_text(payload["message"]), time)
        elif kind == "agent_message" and isinstance(payload.get("message"), str):
            self._say("assistant", payload["message"], time)
        elif kind == "exec_command_end":
            call = self.calls.get(str(payload.get("call_id") or ""))
            if call is None:
                return
            parsed_cmd = payload.get("parsed_cmd")
            for parsed in parsed_cmd if isinstance(parsed_cmd, list) else []:
                if isinstance(parsed, dict) and parsed.get("type") == "read":
                    path = parsed.get("path")
                    if isinstance(path, str) and path not in call.files_read:
                        call.files_read.append(path)
            code = payload.get("exit_code")
            if isinstance(code, int) and code != 0:
                detail = payload.get("stderr") or payload.get("aggregated_output") or ""
                call.error = f"exit {code}: {short_error(detail)}" if detail else f"exit {code}"
        elif kind == "patch_apply_end":
            call = self.calls.get(str(payload.get("call_id") or ""))
            if call is not None and payload.get("success") is False:
                call.error = short_error(payload.get("stderr") or "patch failed")
        elif kind in ("error", "stream_error") and payload.get("message"):
            message = Message(role="system", text=str(payload["message"]), time=time, kind="error")
            message.errors.append(short_error(payload["message"]))
            self.messages.append(message)


def parse(path: str | Path | SessionSource, limits: ReadLimits = DEFAULT_LIMITS) -> Session:
    """One Codex session from its rollout file."""
    file = Path(path.paths[0]) if isinstance(path, SessionSource) else Path(path)
    reader = JsonlReader(limits)
    builder = _Builder()
    for record in reader.read(file):
        reader.fold(builder.add, record)
    started, ended = span([m.time for m in builder.messages])
    session_id = builder.session_id or file.stem.removeprefix("rollout-")
    return Session(
        agent="codex",
        session_id=str(session_id),
        messages=builder.messages,
        cwd=builder.cwd,
        started=builder.started or started,
        ended=ended,
        git_branch=builder.branch,
        model=builder.model,
        **reader.outcome(),
    )
