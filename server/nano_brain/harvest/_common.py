"""Helpers every parser shares: tolerant JSONL reading, times, text cleanup, tool calls."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict, TypeVar, cast

from ..redact import redact_text
from ..text import one_line as text_one_line
from ._files import (
    DEFAULT_LIMITS,
    SKIP_MALFORMED,
    SKIP_TOO_LONG,
    SKIP_TRUNCATED,
    SKIP_UNREADABLE,
    SKIP_UNUSABLE,
    BoundedLines,
    ReadLimits,
    decode_json,
    open_regular,
)
from .model import SourceInfo, ToolCall, TranscriptError

log = logging.getLogger("nano_brain.harvest")

_MAX_SUMMARY = 160
_MAX_ERROR = 300
#: Characters of a tool's output a tool message keeps, whatever the agent.
TOOL_OUTPUT_LIMIT = 2000


class ReadOutcome(TypedDict):
    """What reading a session's files gave, as `Session` records it (`Session(**outcome)`)."""

    source: SourceInfo
    warnings: int
    skipped: dict[str, int]


def read_outcome(source: SourceInfo, skipped: Mapping[str, int]) -> ReadOutcome:
    """`source` with its skipped lines by reason; the warnings are their sum."""
    return {"source": source, "warnings": sum(skipped.values()), "skipped": dict(skipped)}


@dataclass(slots=True)
class JsonlReader:
    """Streams JSON objects from JSONL files, hashing bytes as it goes.

    A line that is not a JSON object (torn, binary, too deep, too long) is skipped and
    counted by reason in `skipped`; blank lines are ignored. One pass gives both the records
    and the source version, so a big transcript is read once and memory stays flat: lines
    are bounded by `limits`, files too (see `_files`).
    """

    limits: ReadLimits = DEFAULT_LIMITS
    paths: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    size: int = 0
    mtime: float = 0.0
    _hash: Any = field(default_factory=hashlib.sha256)

    @property
    def warnings(self) -> int:
        """Lines and records skipped so far, whatever the reason."""
        return sum(self.skipped.values())

    def read(self, path: str | Path, *, required: bool = True) -> Iterator[dict[str, Any]]:
        """The JSON objects of one file. An unreadable file raises TranscriptError when it
        is `required`, else it is counted as skipped (a sub-agent file that vanished)."""
        path = Path(path)
        try:
            handle, stat = open_regular(path)
        except TranscriptError as exc:
            if required:
                raise
            self.skipped[SKIP_UNREADABLE] += 1
            log.warning("skipping part of a session: %s", exc)
            return
        self.paths.append(str(path))
        self.size += stat.st_size
        self.mtime = max(self.mtime, stat.st_mtime)
        self._hash.update(str(path).encode() + b"\0")
        here: Counter[str] = Counter()
        with handle:
            lines = BoundedLines(handle, self.limits, self._hash.update)
            for raw in lines:
                if raw is None:
                    here[SKIP_TOO_LONG] += 1
                    continue
                if not raw.strip():
                    continue
                record, reason = decode_json(raw)
                if reason is None and not isinstance(record, dict):
                    reason = SKIP_MALFORMED
                if reason is not None:
                    here[reason] += 1
                    continue
                yield record
            if lines.truncated:
                here[SKIP_TRUNCATED] += 1
            if lines.error is not None:
                here[SKIP_UNREADABLE] += 1
        if here:
            self.skipped.update(here)
            log.debug(
                "%s: skipped %s (limits: %d bytes a line, %d a file)",
                path,
                describe_skipped(here),
                self.limits.max_line_bytes,
                self.limits.max_file_bytes,
            )

    def fold(self, add: Callable[..., bool | None], record: dict[str, Any], *args: Any) -> None:
        """`add(record, *args)`; a record it rejects (False) or cannot handle is counted.

        Records come from user files with any shape; one that trips the parser costs that
        record, not the session.
        """
        try:
            ok = add(record, *args)
        except Exception as exc:  # records have any shape: never let one cost the session
            log.debug("record the parser cannot use: %s: %s", exc.__class__.__name__, exc)
            ok = False
        if ok is False:
            self.skipped[SKIP_UNUSABLE] += 1

    def outcome(self) -> ReadOutcome:
        """The files read so far and what was skipped in them, for `Session`."""
        return read_outcome(self.source(), self.skipped)

    def source(self, extra: str = "") -> SourceInfo:
        digest = self._hash.copy()
        digest.update(extra.encode())
        return SourceInfo(
            paths=list(self.paths), version=digest.hexdigest(), size=self.size, mtime=self.mtime
        )


def describe_skipped(skipped: Mapping[str, int]) -> str:
    """`3 lines (2 malformed, 1 too-long)` for a count of skipped lines by reason."""
    total = sum(skipped.values())
    reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items()) if n)
    return f"{total} line{'s' if total != 1 else ''} ({reasons})"


def first_record(
    path: Path, *, max_lines: int = 20, limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[dict[str, Any]]:
    """The first parseable records of a JSONL file, for cheap attribution during discovery.

    Bounded like every read (see `ReadLimits.head`); a file that cannot be read, or is not a
    regular file, has no records.
    """
    try:
        handle, _ = open_regular(path)
    except TranscriptError:
        return
    with handle:
        for _, raw in zip(range(max_lines), BoundedLines(handle, limits.head()), strict=False):
            if raw is None:
                continue
            record, _reason = decode_json(raw)
            if isinstance(record, dict):
                yield record


T = TypeVar("T")
_HEAD_CACHE: dict[tuple[str, str], tuple[int, int, Any]] = {}
_HEAD_CACHE_LIMIT = 200_000


def cached_head(path: Path, what: str, read: Callable[[Path], T]) -> T:
    """`read(path)` (a value from a transcript's first lines), memoized by the file's stat.

    Discovery reads the first lines of every transcript on every harvest tick to learn its
    session id and cwd; a watcher ticks often and most files have not changed, so the
    answer is kept per process while size and mtime stay the same. Only the small derived
    value is kept, never the records.
    """
    try:
        stat = path.stat()
    except OSError:
        return read(path)
    key = (str(path), what)
    hit = _HEAD_CACHE.get(key)
    if hit is not None and hit[0] == stat.st_size and hit[1] == stat.st_mtime_ns:
        return cast(T, hit[2])  # `what` names one reader, so one type
    value = read(path)
    if len(_HEAD_CACHE) >= _HEAD_CACHE_LIMIT:
        _HEAD_CACHE.clear()
    _HEAD_CACHE[key] = (stat.st_size, stat.st_mtime_ns, value)
    return value


_LAST_INSTANT = 253402300799.0  # 9999-12-31T23:59:59Z, the last time `iso` can print


def json_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (a transcript's shape is not
    trusted)."""
    return value if isinstance(value, dict) else {}


def str_or_none(value: Any) -> str | None:
    """`value` when it is a non-empty string (an id, a path), else None."""
    return value if isinstance(value, str) and value else None


def parse_time(value: Any) -> float | None:
    """Epoch seconds from an RFC 3339 string or epoch seconds/milliseconds; None if unknown.

    Only instants from 1970 to 9999 count: anything else (NaN, 1e308, negative) in a
    transcript is noise, and would break the arithmetic and formatting of times later.
    """
    if value is None or isinstance(value, bool):
        return None
    seconds: float | None = None
    if isinstance(value, int | float):
        try:
            seconds = float(value) / 1000.0 if value > 1e11 else float(value)
        except OverflowError:
            return None
    elif isinstance(value, str) and value and len(value) <= 64:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
            seconds = parsed.timestamp()
        except (ValueError, OverflowError, OSError):
            return None
    if seconds is None or not 0.0 <= seconds <= _LAST_INSTANT:  # also rejects NaN
        return None
    return seconds


def span(times: Sequence[float | None]) -> tuple[float | None, float | None]:
    known = [t for t in times if t is not None]
    return (min(known), max(known)) if known else (None, None)


def one_line(text: str, limit: int = _MAX_SUMMARY) -> str:
    # Redacted before the cut: a secret cut in half is no longer recognisable as one.
    return text_one_line(redact_text(str(text)), limit)


def short_error(text: Any) -> str:
    """The first meaningful lines of an error output, bounded."""
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False, sort_keys=True) if text else ""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()][:3]
    lines = redact_text("\n".join(lines)).splitlines()  # a key's body cut after 3 lines, too
    return one_line(" | ".join(lines), _MAX_ERROR) if lines else "error"


def block_text(content: Any, *, types: tuple[str, ...] = ("text",)) -> str:
    """Joined text of a string or a list of content blocks (images become a placeholder)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind in types and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif kind in ("image", "input_image"):
                    parts.append("[image]")
    return "\n".join(p for p in parts if p)


# -- injected context ------------------------------------------------------------------

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<system-reminder>",
    "# AGENTS.md instructions for",
    "<INSTRUCTIONS>",
    "Caveat: The messages below were generated by the user",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<command-name>",
    "<command-message>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<turn_aborted>",
    "<user_shell_command>",
)
_COMMAND_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user_shell_command>",
)
_SLASH_COMMAND = re.compile(r"^/[\w:.-]*(\s+\S.*)?$", re.DOTALL)


def strip_reminders(text: str) -> str:
    return _REMINDER.sub("", text).strip()


def classify_user_text(text: str) -> str:
    """The message kind of user-role text: "" for a real request, else why it is not."""
    stripped = text.lstrip()
    if stripped.startswith(_COMMAND_PREFIXES):
        return "command"
    if stripped.startswith(_INJECTED_PREFIXES):
        return "meta"
    if stripped.startswith("[Request interrupted by user"):
        return "interrupt"
    if _SLASH_COMMAND.match(stripped) and len(stripped.split()) == 1:
        return "command"
    return ""


# -- tool calls ------------------------------------------------------------------------

_READ_TOOLS = {"read", "read_file", "view", "notebookread", "cat", "read_many_files"}
_WRITE_TOOLS = {"write", "write_file", "create_file", "create"}
_EDIT_TOOLS = {
    "edit",
    "multiedit",
    "str_replace",
    "str_replace_editor",
    "str_replace_based_edit_tool",
    "replace",
    "notebookedit",
    "edit_file",
    "patch",
    "apply_patch",
}
_SHELL_TOOLS = {"bash", "shell", "exec_command", "run_shell_command", "local_shell", "terminal"}
_PATH_KEYS = ("file_path", "filePath", "path", "absolute_path", "notebook_path", "filename")
_SUMMARY_KEYS = (
    "command",
    "cmd",
    "pattern",
    "query",
    "url",
    "description",
    "subagent_type",
    "prompt",
    "objective",
)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.M)
_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "fish"}


def command_text(value: Any) -> str | None:
    """A command line from a string or an argv list (`["bash", "-lc", "cmd"]` -> "cmd")."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc", "-l"):
            return value[-1].strip() or None
        return shlex.join(value)
    return None


def patch_files(patch: str) -> tuple[list[str], list[str]]:
    """(written, edited) files named in an apply_patch body."""
    written: list[str] = []
    edited: list[str] = []
    for match in _PATCH_FILE.finditer(patch):
        action, name, moved = match.group(1), match.group(2), match.group(3)
        target = (name or moved or "").strip()
        if not target:
            continue
        (written if action == "Add" else edited).append(target)
    return written, edited


def make_tool_call(name: str, args: Any, call_id: str | None = None) -> ToolCall:
    """Normalize one tool invocation: which files it read or changed, which command it ran."""
    call = ToolCall(name=name or "tool", call_id=str_or_none(call_id))
    lowered = call.name.lower()
    if isinstance(args, str) and lowered in ("apply_patch", "patch"):
        call.files_written, call.files_edited = patch_files(args)
        call.summary = one_line(", ".join(call.files_written + call.files_edited))
        return call
    if not isinstance(args, dict):
        call.summary = one_line(str(args)) if args else ""
        return call
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
    if lowered in _SHELL_TOOLS or (lowered not in _READ_TOOLS and "command" in args):
        call.command = command_text(args.get("command", args.get("cmd")))
    if lowered in _READ_TOOLS and path:
        call.files_read.append(path)
    elif lowered in _WRITE_TOOLS and path:
        call.files_written.append(path)
    elif lowered in _EDIT_TOOLS:
        if path:
            call.files_edited.append(path)
        patch = args.get("input") or args.get("patch") or args.get("patchText")
        if isinstance(patch, str):
            written, edited = patch_files(patch)
            call.files_written.extend(written)
            call.files_edited.extend(e for e in edited if e not in call.files_edited)
        edits = args.get("edits")
        for edit in edits if isinstance(edits, list) else []:
            if isinstance(edit, dict) and isinstance(edit.get("file_path"), str):
                if edit["file_path"] not in call.files_edited:
                    call.files_edited.append(edit["file_path"])
    elif lowered in ("read_many_files",) and isinstance(args.get("paths"), list):
        call.files_read.extend(p for p in args["paths"] if isinstance(p, str))
    if call.command:
        call.summary = one_line(call.command)
    elif path:
        call.summary = path
    else:
        bits = [
            f"{k}={one_line(str(args[k]), 60)}"
            for k in _SUMMARY_KEYS
            if isinstance(args.get(k), str | int | float) and args.get(k) != ""
        ]
        call.summary = one_line(" ".join(bits))
    return call
