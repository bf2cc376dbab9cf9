"""The normalized session every transcript parser produces, whatever agent wrote it.

Parsers differ in what they can see (some formats carry no cwd, some no tool results), so
every field but `agent`, `session_id` and `messages` is optional. Times are epoch seconds.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..config import AGENTS as AGENTS  # defined with the config, which validates them
from ..config import AgentName
from ..errors import NanoBrainError
from ..redact import redact_text

Role = Literal["user", "assistant", "system", "tool"]


class TranscriptError(NanoBrainError):
    """A transcript cannot be read at all (missing, unreadable, database busy or unknown).

    Malformed lines inside a readable transcript never raise: they are skipped and counted
    in `Session.warnings`, because one torn line must not cost the whole session.
    """


@dataclass(slots=True)
class ToolCall:
    """One tool invocation, reduced to what a summary needs (never the full output)."""

    name: str
    call_id: str | None = None
    summary: str = ""
    command: str | None = None
    files_read: list[str] = field(default_factory=list)
    files_written: list[str] = field(default_factory=list)
    files_edited: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(slots=True)
class Message:
    """One turn. `kind` marks text that is not the person or the model speaking.

    Kinds in use: "" (ordinary), "meta" (injected context: instructions, environment,
    reminders, skill bodies), "command" (slash commands and their local output),
    "interrupt", "summary" (compaction or branch summaries), and for system messages the
    agent's own subtype.
    """

    role: Role
    text: str = ""
    time: float | None = None
    kind: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    errors: list[str] = field(default_factory=list)
    sidechain: bool = False
    agent_id: str | None = None
    id: str | None = None


@dataclass(slots=True)
class SourceInfo:
    """Where a session came from and which version of it was read.

    `version` changes whenever any byte of any source changes (or, for a database, when the
    session's rows change), so a harvester can tell "grew" from "unchanged" without
    re-parsing. `size` and `mtime` let it skip even the hash when nothing was touched.
    """

    paths: list[str]
    version: str
    size: int = 0
    mtime: float = 0.0


@dataclass(slots=True)
class Session:
    agent: AgentName
    session_id: str
    messages: list[Message] = field(default_factory=list)
    cwd: str | None = None
    title: str | None = None
    started: float | None = None
    ended: float | None = None
    git_branch: str | None = None
    model: str | None = None
    source: SourceInfo = field(default_factory=lambda: SourceInfo(paths=[], version=""))
    warnings: int = 0
    """Lines and records skipped (malformed, too long, ...): the sum of `skipped`."""
    skipped: dict[str, int] = field(default_factory=dict)
    """What was skipped while reading, by reason (see `harvest._files`)."""

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call in message order, sub-agents included."""
        return [call for message in self.messages for call in message.tool_calls]


@dataclass(frozen=True, slots=True)
class SessionSource:
    """A session found by discovery, before it is parsed.

    `paths` are the files to read (for Claude Code: the main file, then sub-agent files;
    for OpenCode's database: the database file). `updated` is a cheap change stamp when
    the source has one (a database row's update time); file sources rely on stat/hash.
    """

    agent: AgentName
    paths: tuple[str, ...]
    session_id: str | None = None
    cwd: str | None = None
    updated: float | None = None

    @property
    def key(self) -> str:
        """Stable identity of the source, for recording what was derived from it: the
        summary's source path, so redacted as the store keeps it."""
        return _stored_key(
            f"{self.agent}:{self.paths[0] if self.paths else ''}:{self.session_id or ''}"
        )


# A watcher asks every tick for the keys of every session: each is redacted once.
_stored_key = functools.lru_cache(maxsize=16_384)(redact_text)


def is_within(path: str | None, root: str | Path) -> bool:
    """True when `path` is `root` or lies below it (string-wise, no symlink resolution)."""
    if not path:
        return False
    norm_root = os.path.normpath(str(root))
    norm = os.path.normpath(path)
    return norm == norm_root or norm.startswith(norm_root.rstrip(os.sep) + os.sep)
