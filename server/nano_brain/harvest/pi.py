"""Pi coding-agent sessions: `~/.pi/agent/sessions/--<cwd with / as ->--/*.jsonl`.

Handled: the v1 linear format (the header, then entries in order) and the v2/v3 tree
format, where entries link by `id`/`parentId` and the active branch is the path from the
last entry back to the root; entries on abandoned branches are left out, and what they
did survives through the `branch_summary` entry pi writes when the user leaves a branch.
`compaction` and `branch_summary` entries (and the equivalent message roles) become
system messages of kind "summary"; `session_info` names the session; `model_change` sets
the model; `bashExecution` messages (commands the user ran with `!`) become commands;
`custom` (v3) / `hookMessage` (v2) messages are kept as injected context.
Not handled: labels, extension `custom` state entries, thinking blocks, images.
"""

from __future__ import annotations

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
    make_tool_call,
    parse_time,
    short_error,
    span,
    str_or_none,
)
from ._files import DEFAULT_LIMITS, SKIP_UNUSABLE, ReadLimits, regular_files
from .model import Message, Session, SessionSource, ToolCall, is_within

DEFAULT_BASE = Path("~/.pi/agent/sessions")


def encode_cwd(path: str | Path) -> str:
    """Pi's folder name for a working directory: `--` + path without leading slash + `--`."""
    inner = re.sub(r"^[/\\]", "", str(path))
    return "--" + re.sub(r"[/\\:]", "-", inner) + "--"


def _header_of(path: Path, limits: ReadLimits) -> dict[str, Any]:
    """The id and cwd from a session's header line."""
    header = next(first_record(path, max_lines=1, limits=limits), {})
    return {key: header[key] for key in ("id", "cwd") if key in header}


def discover(
    root: str | Path, base: str | Path | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> list[SessionSource]:
    """Sessions in the folder of `root` and of its sub-folders, confirmed by header cwd."""
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    encoded = encode_cwd(Path(root))
    prefix = encoded[:-2] + "-"
    try:
        folders = sorted(p for p in base_dir.iterdir() if p.is_dir())
    except OSError:
        return []
    found: list[SessionSource] = []
    for folder in folders:
        exact = folder.name == encoded
        if not exact and not folder.name.startswith(prefix):
            continue
        for path in regular_files(sorted(folder.glob("*.jsonl"))):
            header = cached_head(path, "pi:header", lambda p: _header_of(p, limits))
            cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
            if exact or is_within(cwd, root):
                sid = header.get("id") if isinstance(header.get("id"), str) else None
                found.append(SessionSource("pi", (str(path),), session_id=sid, cwd=cwd))
    return found


def _active_path(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries on the path from the last entry to the root, in file order (v2/v3 trees)."""
    by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    if not by_id:
        return entries
    leaf = next((e for e in reversed(entries) if isinstance(e.get("id"), str)), None)
    keep: set[str] = set()
    node = leaf
    while node is not None and node["id"] not in keep:
        keep.add(node["id"])
        parent = node.get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    return [e for e in entries if isinstance(e.get("id"), str) and e["id"] in keep]


class _Builder:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: dict[str, ToolCall] = {}
        self.title: str | None = None
        self.model: str | None = None

    def add(self, entry: dict[str, Any]) -> bool:
        kind = entry.get("type")
        time = parse_time(entry.get("timestamp"))
        if kind == "message":
            message = entry.get("message")
            if not isinstance(message, dict):
                return False
            self._message(message, time)
        elif kind in ("compaction", "branch_summary"):
            if isinstance(entry.get("summary"), str) and entry["summary"].strip():
                self.messages.append(
                    Message(role="system", text=entry["summary"].strip(), time=time, kind="summary")
                )
        elif kind == "session_info":
            if isinstance(entry.get("name"), str) and entry["name"].strip():
                self.title = entry["name"].strip()
        elif kind == "model_change":
            if isinstance(entry.get("modelId"), str):
                self.model = entry["modelId"]
        elif kind == "custom_message":
            text = block_text(entry.get("content"))
            if text:
                self.messages.append(Message(role="user", text=text, time=time, kind="meta"))
        return True

    def _message(self, message: dict[str, Any], time: float | None) -> None:
        role = message.get("role")
        time = time if time is not None else parse_time(message.get("timestamp"))
        content = message.get("content")
        if role == "user":
            text = block_text(content).strip()
            if text:
                kind = classify_user_text(text)
                self.messages.append(Message(role="user", text=text, time=time, kind=kind))
        elif role == "assistant":
            out = Message(role="assistant", text=block_text(content).strip(), time=time)
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    call = make_tool_call(
                        str(block.get("name") or "tool"), block.get("arguments"), block.get("id")
                    )
                    out.tool_calls.append(call)
                    if call.call_id:
                        self.calls[call.call_id] = call
            if message.get("stopReason") == "error" and message.get("errorMessage"):
                out.errors.append(short_error(message["errorMessage"]))
            if isinstance(message.get("model"), str):
                self.model = message["model"]
            self.messages.append(out)
        elif role == "toolResult":
            text = block_text(content)
            out = Message(
                role="tool",
                text=text[:TOOL_OUTPUT_LIMIT],
                time=time,
                tool_call_id=str_or_none(message.get("toolCallId")),
            )
            if message.get("isError"):
                error = short_error(text)
                out.errors.append(error)
                failed = self.calls.get(str(message.get("toolCallId") or ""))
                if failed is not None:
                    failed.error = error
            self.messages.append(out)
        elif role == "bashExecution":
            call = make_tool_call("bash", {"command": message.get("command")})
            code = message.get("exitCode")
            if isinstance(code, int) and code != 0:
                call.error = f"exit {code}: {short_error(message.get('output') or '')}"
            out = Message(
                role="user", text=f"!{message.get('command') or ''}", time=time, kind="command"
            )
            out.tool_calls.append(call)
            self.messages.append(out)
        elif role in ("branchSummary", "compactionSummary"):
            if isinstance(message.get("summary"), str):
                self.messages.append(
                    Message(role="system", text=message["summary"], time=time, kind="summary")
                )
        elif role in ("custom", "hookMessage"):
            text = block_text(content)
            if text:
                self.messages.append(Message(role="user", text=text, time=time, kind="meta"))


def parse(path: str | Path | SessionSource, limits: ReadLimits = DEFAULT_LIMITS) -> Session:
    """One Pi session (v1 linear or v2/v3 tree) from its JSONL file."""
    file = Path(path.paths[0]) if isinstance(path, SessionSource) else Path(path)
    reader = JsonlReader(limits)
    header: dict[str, Any] = {}
    entries: list[dict[str, Any]] = []
    for record in reader.read(file):
        if record.get("type") == "session" and not header:
            header = record
        elif isinstance(record.get("type"), str):
            entries.append(record)
        else:
            reader.skipped[SKIP_UNUSABLE] += 1
    builder = _Builder()
    builder.model = header.get("modelId") if isinstance(header.get("modelId"), str) else None
    for entry in _active_path(entries):
        reader.fold(builder.add, entry)
    started, ended = span([m.time for m in builder.messages])
    header_time = parse_time(header.get("timestamp"))
    session_id = header.get("id") if isinstance(header.get("id"), str) else None
    if session_id is None:
        session_id = file.stem.rsplit("_", 1)[-1]
    return Session(
        agent="pi",
        session_id=session_id,
        messages=builder.messages,
        cwd=header.get("cwd") if isinstance(header.get("cwd"), str) else None,
        title=builder.title,
        started=min(t for t in (header_time, started) if t is not None)
        if header_time or started
        else None,
        ended=ended,
        model=builder.model,
        **reader.outcome(),
    )
