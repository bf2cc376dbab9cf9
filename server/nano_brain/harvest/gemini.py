"""Gemini CLI sessions: `~/.gemini/tmp/<sha256 of the project root>/chats/session-*.json`.

One JSON document per session (`sessionId`, `projectHash`, `startTime`, `lastUpdated`,
`messages` of type user / gemini / info / error / warning, tool calls inline with their
`status` and `result`). The file carries no cwd, only the hash of the project root, so
discovery hashes the workspace root (and also accepts folders holding a `.project_root`
file, as newer releases write); the cwd is then known from discovery.
A file that is not valid JSON (caught mid-write) raises `TranscriptError`; a malformed
message inside a valid file is skipped and counted.
Not handled: `thoughts` (dropped on purpose), tool result bodies beyond a short excerpt.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ._common import make_tool_call, parse_time, short_error, span
from .model import Message, Session, SessionSource, SourceInfo, TranscriptError

DEFAULT_BASE = Path("~/.gemini/tmp")
_TOOL_OUTPUT_LIMIT = 2000


def project_hash(root: str | Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()


def discover(root: str | Path, base: str | Path | None = None) -> list[SessionSource]:
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    folders = [base_dir / project_hash(root)]
    try:
        for marker in sorted(base_dir.glob("*/.project_root")):
            if marker.read_text(encoding="utf-8").strip() == str(root):
                folders.append(marker.parent)
    except OSError:
        pass
    found: list[SessionSource] = []
    for folder in dict.fromkeys(folders):
        for path in sorted((folder / "chats").glob("session-*.json")):
            found.append(SessionSource("gemini", (str(path),), cwd=str(root)))
    return found


def _result_text(result: Any) -> str:
    """The text of a tool result (`functionResponse.response.output` or `.error`)."""
    texts: list[str] = []
    for item in result if isinstance(result, list) else [result]:
        if isinstance(item, dict):
            response = (item.get("functionResponse") or {}).get("response")
            if isinstance(response, dict):
                value = response.get("output", response.get("error"))
                texts.append(value if isinstance(value, str) else json.dumps(value))
        elif isinstance(item, str):
            texts.append(item)
    return "\n".join(texts)


def parse(path: str | Path | SessionSource, cwd: str | None = None) -> Session:
    if isinstance(path, SessionSource):
        cwd = cwd or path.cwd
        path = path.paths[0]
    file = Path(path)
    try:
        raw = file.read_bytes()
        stat = file.stat()
        data = json.loads(raw)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"cannot read Gemini session {file}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise TranscriptError(f"{file} is not a Gemini CLI session")
    warnings = 0
    messages: list[Message] = []
    model: str | None = None
    for item in data["messages"]:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            warnings += 1
            continue
        kind = item["type"]
        time = parse_time(item.get("timestamp"))
        content = item.get("content")
        text = content if isinstance(content, str) else ""
        if kind == "user":
            messages.append(Message(role="user", text=text.strip(), time=time, id=item.get("id")))
        elif kind in ("gemini", "model"):
            out = Message(role="assistant", text=text.strip(), time=time, id=item.get("id"))
            model = item.get("model") if isinstance(item.get("model"), str) else model
            tools: list[Message] = []
            for raw_call in item.get("toolCalls") or []:
                if not isinstance(raw_call, dict):
                    warnings += 1
                    continue
                call = make_tool_call(
                    str(raw_call.get("name") or "tool"), raw_call.get("args"), raw_call.get("id")
                )
                result = _result_text(raw_call.get("result"))
                if raw_call.get("status") in ("error", "cancelled"):
                    call.error = short_error(result or raw_call.get("resultDisplay") or "error")
                out.tool_calls.append(call)
                tool = Message(role="tool", text=result[:_TOOL_OUTPUT_LIMIT], time=time)
                tool.tool_call_id = call.call_id
                if call.error:
                    tool.errors.append(call.error)
                tools.append(tool)
            messages.append(out)
            messages.extend(tools)
        elif kind in ("info", "warning", "error"):
            out = Message(role="system", text=text.strip(), time=time, kind=kind)
            if kind == "error":
                out.errors.append(short_error(text))
            messages.append(out)
    started, ended = span([m.time for m in messages])
    version = hashlib.sha256(str(file).encode() + b"\0" + raw).hexdigest()
    return Session(
        agent="gemini",
        session_id=str(data.get("sessionId") or file.stem),
        messages=messages,
        cwd=cwd,
        started=parse_time(data.get("startTime")) or started,
        ended=parse_time(data.get("lastUpdated")) or ended,
        model=model,
        source=SourceInfo(
            paths=[str(file)], version=version, size=stat.st_size, mtime=stat.st_mtime
        ),
        warnings=warnings,
    )
