"""Claude Code transcripts: `~/.claude/projects/<encoded cwd>/<session>.jsonl`.

Handled: the lines of one API message (same `message.id`) merged into one assistant turn;
tool results matched to their calls by id; `isMeta` and slash-command lines marked as
such; `system` lines with content kept as system messages; `summary` lines used as the
title only when their `leafUuid` points into this transcript (others describe earlier
sessions); `progress`, `file-history-snapshot` and `queue-operation` lines skipped;
sidechain lines and both sub-agent layouts (sibling `agent-*.jsonl` with the same
`sessionId`, and `<session>/subagents/*.jsonl`) merged in time order, flagged `sidechain`.
Not handled: thinking blocks (dropped on purpose), image payloads (placeholder only).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
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
    strip_reminders,
)
from ._files import DEFAULT_LIMITS, ReadLimits, regular_files
from .model import Message, Session, SessionSource, ToolCall, is_within

DEFAULT_BASE = Path("~/.claude/projects")


def encode_cwd(path: str | Path) -> str:
    """Claude Code's folder name for a working directory: every non-alphanumeric -> '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def _session_id_of(path: Path, limits: ReadLimits) -> str | None:
    return cached_head(path, "claude-code:session", lambda p: _first(p, "sessionId", 20, limits))


def _cwd_of(path: Path, limits: ReadLimits) -> str | None:
    return cached_head(path, "claude-code:cwd", lambda p: _first(p, "cwd", 50, limits))


def _first(path: Path, key: str, max_lines: int, limits: ReadLimits) -> str | None:
    """The first string value of `key` in the first lines of a transcript."""
    for record in first_record(path, max_lines=max_lines, limits=limits):
        value = record.get(key)
        if isinstance(value, str):
            return value
    return None


def discover(
    root: str | Path, base: str | Path | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> list[SessionSource]:
    """Sessions whose cwd is `root` or below it, each with its sub-agent files.

    The folder name is a lossy encoding of the cwd, so folders that only share the
    prefix (sub-folders, or `/a/b-c` for `/a/b`) are confirmed by the cwd recorded inside.
    """
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    encoded = encode_cwd(Path(root))
    try:
        folders = sorted(p for p in base_dir.iterdir() if p.is_dir())
    except OSError:
        return []
    found: list[SessionSource] = []
    for folder in folders:
        exact = folder.name == encoded
        if not exact and not folder.name.startswith(encoded + "-"):
            continue
        files = regular_files(sorted(folder.glob("*.jsonl")))
        siblings: dict[str, list[Path]] = {}
        for path in files:
            if path.name.startswith("agent-"):
                sid = _session_id_of(path, limits)
                if sid:
                    siblings.setdefault(sid, []).append(path)
        for main in files:
            if main.name.startswith("agent-"):
                continue
            cwd = _cwd_of(main, limits)
            if not exact and not is_within(cwd, root):
                continue
            sid = _session_id_of(main, limits) or main.stem
            subs = regular_files(sorted((folder / main.stem / "subagents").glob("*.jsonl")))
            paths = [main, *subs, *siblings.get(sid, [])]
            found.append(
                SessionSource(
                    agent="claude-code",
                    paths=tuple(str(p) for p in paths),
                    session_id=sid,
                    cwd=cwd,
                )
            )
    return found


class _Builder:
    """Accumulates one session across its main and sub-agent files."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.by_api_id: dict[str, Message] = {}
        self.calls: dict[str, ToolCall] = {}
        self.summaries: list[tuple[str, str]] = []
        self.uuids: set[str] = set()
        self.session_ids: Counter[str] = Counter()
        self.cwd: str | None = None
        self.branch: str | None = None
        self.model: str | None = None

    def add(self, record: dict[str, Any], subagent: bool) -> bool:
        """Fold one record in; False when it is structurally malformed."""
        kind = record.get("type")
        if kind == "summary":
            if isinstance(record.get("summary"), str):
                self.summaries.append((str(record.get("leafUuid") or ""), record["summary"]))
            return True
        if kind not in ("user", "assistant", "system"):
            return True  # progress, file-history-snapshot, queue-operation, future types
        if isinstance(record.get("uuid"), str):
            self.uuids.add(record["uuid"])
        if not subagent and isinstance(record.get("sessionId"), str):
            self.session_ids[record["sessionId"]] += 1
        if self.cwd is None and isinstance(record.get("cwd"), str):
            self.cwd = record["cwd"]
        if self.branch is None:
            self.branch = str_or_none(record.get("gitBranch"))
        sidechain = subagent or bool(record.get("isSidechain"))
        agent_id = record.get("agentId") if isinstance(record.get("agentId"), str) else None
        time = parse_time(record.get("timestamp"))
        if kind == "system":
            text = record.get("content")
            if isinstance(text, str) and text.strip():
                message = Message(
                    role="system",
                    text=text.strip(),
                    time=time,
                    kind=str(record.get("subtype") or "system"),
                    sidechain=sidechain,
                    agent_id=agent_id,
                    id=str_or_none(record.get("uuid")),
                )
                if record.get("level") == "error" or record.get("subtype") == "api_error":
                    message.errors.append(short_error(text))
                self.messages.append(message)
            return True
        payload = record.get("message")
        if not isinstance(payload, dict):
            return False
        if kind == "assistant":
            self._assistant(record, payload, time, sidechain, agent_id)
        else:
            self._user(record, payload, time, sidechain, agent_id)
        return True

    def _assistant(
        self,
        record: dict[str, Any],
        payload: dict[str, Any],
        time: float | None,
        sidechain: bool,
        agent_id: str | None,
    ) -> None:
        api_id = payload.get("id") if isinstance(payload.get("id"), str) else None
        message = self.by_api_id.get(api_id) if api_id else None
        if message is None:
            message = Message(
                role="assistant", time=time, sidechain=sidechain, agent_id=agent_id, id=api_id
            )
            self.messages.append(message)
            if api_id:
                self.by_api_id[api_id] = message
        model = payload.get("model")
        if isinstance(model, str) and not model.startswith("<") and not sidechain:
            self.model = model
        content = payload.get("content")
        texts: list[str] = [message.text] if message.text else []
        if isinstance(content, str):
            texts.append(content)
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_use":
                call = make_tool_call(str(block.get("name") or "tool"), block.get("input"))
                call.call_id = block.get("id") if isinstance(block.get("id"), str) else None
                message.tool_calls.append(call)
                if call.call_id:
                    self.calls[call.call_id] = call
        message.text = "\n\n".join(t for t in texts if t.strip())
        if record.get("isApiErrorMessage") or record.get("error"):
            message.errors.append(short_error(message.text or record.get("error")))

    def _user(
        self,
        record: dict[str, Any],
        payload: dict[str, Any],
        time: float | None,
        sidechain: bool,
        agent_id: str | None,
    ) -> None:
        content = payload.get("content")
        blocks = content if isinstance(content, list) else [content]
        texts: list[str] = []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                self._tool_result(block, time, sidechain, agent_id)
            elif isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict):
                texts.append(block_text([block]))
        text = strip_reminders("\n".join(t for t in texts if t))
        if not text:
            return
        kind = "meta" if record.get("isMeta") else classify_user_text(text)
        self.messages.append(
            Message(
                role="user",
                text=text,
                time=time,
                kind=kind,
                sidechain=sidechain,
                agent_id=agent_id,
                id=str_or_none(record.get("uuid")),
            )
        )

    def _tool_result(
        self, block: dict[str, Any], time: float | None, sidechain: bool, agent_id: str | None
    ) -> None:
        call_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None
        output = strip_reminders(block_text(block.get("content")))
        message = Message(
            role="tool",
            text=output[:TOOL_OUTPUT_LIMIT],
            time=time,
            tool_call_id=call_id,
            sidechain=sidechain,
            agent_id=agent_id,
        )
        if block.get("is_error"):
            error = short_error(output)
            message.errors.append(error)
            call = self.calls.get(call_id or "")
            if call is not None:
                call.error = error
        self.messages.append(message)


def _ordered(messages: list[Message]) -> list[Message]:
    """Stable time order; a message without a time keeps its place after its predecessor."""
    keyed: list[tuple[float, int, Message]] = []
    last = float("-inf")
    for index, message in enumerate(messages):
        if message.time is not None:
            last = message.time
        keyed.append((last, index, message))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [message for _, _, message in keyed]


def parse(
    paths: str | Path | Sequence[str | Path] | SessionSource,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> Session:
    """One session from its main transcript followed by any sub-agent transcripts.

    The main transcript must be readable (else TranscriptError); a sub-agent file that is
    gone or unreadable is counted as skipped.
    """
    if isinstance(paths, SessionSource):
        files = [Path(p) for p in paths.paths]
    elif isinstance(paths, str | Path):
        files = [Path(paths)]
    else:
        files = [Path(p) for p in paths]
    reader = JsonlReader(limits)
    builder = _Builder()
    for index, path in enumerate(files):
        for record in reader.read(path, required=index == 0):
            reader.fold(builder.add, record, index > 0)
    messages = _ordered(builder.messages)
    started, ended = span([m.time for m in messages])
    titles = [text for leaf, text in builder.summaries if leaf in builder.uuids]
    session_id = builder.session_ids.most_common(1)[0][0] if builder.session_ids else files[0].stem
    return Session(
        agent="claude-code",
        session_id=session_id,
        messages=messages,
        cwd=builder.cwd,
        title=titles[-1] if titles else None,
        started=started,
        ended=ended,
        git_branch=builder.branch,
        model=builder.model,
        **reader.outcome(),
    )
