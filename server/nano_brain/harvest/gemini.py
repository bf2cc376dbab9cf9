"""Gemini CLI sessions: `~/.gemini/tmp/<sha256 of the project root>/chats/session-*.json`.

One JSON document per session (`sessionId`, `projectHash`, `startTime`, `lastUpdated`,
`messages` of type user / gemini / info / error / warning, tool calls inline with their
`status` and `result`). The file carries no cwd, only the hash of the project root, so
discovery hashes the workspace root (and also accepts folders holding a `.project_root`
file, as newer releases write); the cwd is then known from discovery.
A file that is not valid JSON (caught mid-write), nests too deep, or is larger than
`max_line_bytes` (it is decoded whole) raises `TranscriptError`; a malformed message inside
a valid file is skipped and counted.
Not handled: `thoughts` (dropped on purpose), tool result bodies beyond a short excerpt.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from ._common import (
    TOOL_OUTPUT_LIMIT,
    log,
    make_tool_call,
    parse_time,
    read_outcome,
    short_error,
    span,
    str_or_none,
)
from ._files import (
    DEFAULT_LIMITS,
    SKIP_UNUSABLE,
    ReadLimits,
    decode_json,
    is_regular,
    read_bounded,
    regular_files,
)
from .model import Message, Session, SessionSource, SourceInfo, TranscriptError

DEFAULT_BASE = Path("~/.gemini/tmp")


def project_hash(root: str | Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()


_MARKER_BYTES = 64 * 1024


def _marks(marker: Path, root: str) -> bool:
    """True when a `.project_root` file names `root` (a short regular file, else ignored)."""
    if not is_regular(marker):
        return False
    try:
        raw, _ = read_bounded(marker, _MARKER_BYTES)
    except TranscriptError:
        return False
    return raw.decode("utf-8", "replace").strip() == root


def discover(
    root: str | Path, base: str | Path | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> list[SessionSource]:
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    folders = [base_dir / project_hash(root)]
    try:
        markers = sorted(base_dir.glob("*/.project_root"))
    except OSError:
        markers = []
    folders += [marker.parent for marker in markers if _marks(marker, str(root))]
    found: list[SessionSource] = []
    for folder in dict.fromkeys(folders):
        for path in regular_files(sorted((folder / "chats").glob("session-*.json"))):
            found.append(SessionSource("gemini", (str(path),), cwd=str(root)))
    return found


def _result_text(result: Any) -> str:
    """The text of a tool result (`functionResponse.response.output` or `.error`)."""
    texts: list[str] = []
    for item in result if isinstance(result, list) else [result]:
        if isinstance(item, dict):
            called = item.get("functionResponse")
            response = called.get("response") if isinstance(called, dict) else None
            if isinstance(response, dict):
                value = response.get("output", response.get("error"))
                texts.append(value if isinstance(value, str) else json.dumps(value))
        elif isinstance(item, str):
            texts.append(item)
    return "\n".join(texts)


def _message(item: dict[str, Any], skipped: Counter[str]) -> list[Message]:
    """The messages of one entry of `messages` (an assistant turn brings its tool results)."""
    kind = item["type"]
    time = parse_time(item.get("timestamp"))
    content = item.get("content")
    text = content if isinstance(content, str) else ""
    if kind == "user":
        return [Message(role="user", text=text.strip(), time=time, id=str_or_none(item.get("id")))]
    if kind in ("gemini", "model"):
        out = Message(
            role="assistant", text=text.strip(), time=time, id=str_or_none(item.get("id"))
        )
        tools: list[Message] = []
        calls = item.get("toolCalls")
        for raw_call in calls if isinstance(calls, list) else []:
            if not isinstance(raw_call, dict):
                skipped[SKIP_UNUSABLE] += 1
                continue
            call = make_tool_call(
                str(raw_call.get("name") or "tool"),
                raw_call.get("args"),
                str_or_none(raw_call.get("id")),
            )
            result = _result_text(raw_call.get("result"))
            if raw_call.get("status") in ("error", "cancelled"):
                call.error = short_error(result or raw_call.get("resultDisplay") or "error")
            out.tool_calls.append(call)
            tool = Message(role="tool", text=result[:TOOL_OUTPUT_LIMIT], time=time)
            tool.tool_call_id = call.call_id
            if call.error:
                tool.errors.append(call.error)
            tools.append(tool)
        return [out, *tools]
    if kind in ("info", "warning", "error"):
        out = Message(role="system", text=text.strip(), time=time, kind=kind)
        if kind == "error":
            out.errors.append(short_error(text))
        return [out]
    return []


def parse(
    path: str | Path | SessionSource, cwd: str | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> Session:
    if isinstance(path, SessionSource):
        cwd = cwd or path.cwd
        path = path.paths[0]
    file = Path(path)
    raw, stat = read_bounded(file, limits.max_line_bytes)
    data, problem = decode_json(raw)
    if problem:
        raise TranscriptError(f"cannot read Gemini session {file}: {problem} JSON")
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise TranscriptError(f"{file} is not a Gemini CLI session")
    skipped: Counter[str] = Counter()
    messages: list[Message] = []
    model: str | None = None
    for item in data["messages"]:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            skipped[SKIP_UNUSABLE] += 1
            continue
        try:
            messages.extend(_message(item, skipped))
        except Exception as exc:  # records have any shape: never let one cost the session
            log.debug("Gemini message the parser cannot use: %s", exc.__class__.__name__)
            skipped[SKIP_UNUSABLE] += 1
            continue
        if item["type"] in ("gemini", "model") and isinstance(item.get("model"), str):
            model = item["model"]
    started, ended = span([m.time for m in messages])
    version = hashlib.sha256(str(file).encode() + b"\0" + raw).hexdigest()
    session_id = data.get("sessionId")
    if not isinstance(session_id, str | int) or isinstance(session_id, bool) or not session_id:
        session_id = file.stem
    return Session(
        agent="gemini",
        session_id=str(session_id),
        messages=messages,
        cwd=cwd,
        started=parse_time(data.get("startTime")) or started,
        ended=parse_time(data.get("lastUpdated")) or ended,
        model=model,
        **read_outcome(
            SourceInfo(paths=[str(file)], version=version, size=stat.st_size, mtime=stat.st_mtime),
            skipped,
        ),
    )
