"""The deterministic, no-LLM summary of a session, and its text for chunked search.

Same session in, byte-identical digest out: nothing depends on the clock, the locale,
dict or set iteration order, or the machine. Every text that leaves this module has been
through `redact`, so a caller cannot store an unredacted digest by forgetting a step.

Heuristics (documented because the digest is only as good as them):
- goal: the first user message on the main thread that a person typed: not injected
  context (`meta`), not a slash command or its output, not an interrupt marker.
- decisions: lines that say so explicitly: `DECISION:`, `DECIDED:`, `LESSON:`,
  `LEARNED:` prefixes, or "we/I decided|chose|opted", "decided to", "we went with";
  fenced code is ignored. The final assistant answer is reported beside them.
- files: from tool calls only (reads, edits, writes separately), main thread and
  sub-agents; paths under the session's cwd are shown relative to it.
- errors: failed tool calls and API errors. A failed tool call counts as resolved when a
  later call of the same target succeeds: the same file for file tools, the same program
  and sub-command for commands (`npm test`, `git push`), the same tool otherwise. An API
  error counts as resolved when a later assistant turn completes without one.
- outcome: whether the last request got an answer, and how many errors stayed unresolved.
"""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

from ..fields import MAX_TITLE_CHARS
from ..redact import count_markers, redact
from ..text import clip
from ..timeutil import iso
from ._common import one_line
from .model import Message, Session, ToolCall

_MAX_GOAL = 500
_MAX_FINAL = 1200
_MAX_LIST = 40
_MAX_DECISIONS = 15
_MAX_ERRORS = 20
_DECISION = re.compile(
    r"^\s*(?:[-*>]\s*)?(?:\*\*)?(?:DECISION|DECIDED|LESSON|LEARNED)(?:\*\*)?\s*:"
    r"|\b(?:we|I)(?:\s+have|'ve)?\s+(?:decided|chose|chosen|opted)\b"
    r"|\bdecided to\b|\bwe went with\b",
    re.IGNORECASE,
)
_DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200,}={0,2}")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(slots=True)
class ErrorNote:
    tool: str
    target: str
    message: str
    resolved: bool


@dataclass(slots=True)
class Digest:
    title: str
    goal: str | None
    decisions: list[str]
    final_answer: str | None
    files_read: list[str]
    files_edited: list[str]
    files_written: list[str]
    commands: list[str]
    errors: list[ErrorNote]
    outcome: str
    markdown: str
    conversation: str
    redactions: dict[str, int] = field(default_factory=dict)


def _is_request(message: Message) -> bool:
    return (
        message.role == "user"
        and not message.kind
        and not message.sidechain
        and bool(message.text.strip())
    )


def _command_key(command: str) -> str:
    """Program and sub-command of a command line, for "same command later succeeded"."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    words = [w for w in words if not _ENV_ASSIGN.match(w)]
    if not words:
        return command
    if len(words) > 1 and not words[1].startswith("-"):
        return f"{os.path.basename(words[0])} {words[1]}"
    return os.path.basename(words[0])


def _target(call: ToolCall) -> str:
    if call.command:
        return "cmd:" + _command_key(call.command)
    files = call.files_edited + call.files_written + call.files_read
    if files:
        return "file:" + files[0]
    return "tool:" + call.name


def _display_target(call: ToolCall, cwd: str | None) -> str:
    if call.command:
        return one_line(call.command, 120)
    files = call.files_edited + call.files_written + call.files_read
    return _rel(files[0], cwd) if files else call.name


def _rel(path: str, cwd: str | None) -> str:
    if cwd and os.path.isabs(path):
        norm, base = os.path.normpath(path), os.path.normpath(cwd)
        if norm.startswith(base.rstrip(os.sep) + os.sep):
            return os.path.relpath(norm, base)
    return path


def _errors(session: Session) -> list[ErrorNote]:
    notes: list[ErrorNote] = []
    seen: set[tuple[str, str]] = set()
    calls = session.tool_calls()
    for index, call in enumerate(calls):
        if not call.failed:
            continue
        key = _target(call)
        resolved = any(_target(c) == key and not c.failed for c in calls[index + 1 :])
        display = _display_target(call, session.cwd)
        message = one_line(call.error or "error", 200)
        if (display, message) in seen:
            continue
        seen.add((display, message))
        notes.append(ErrorNote(call.name, display, message, resolved))
    turns = [m for m in session.messages if m.role in ("assistant", "system") and not m.sidechain]
    for index, turn in enumerate(turns):
        for error in turn.errors:
            resolved = any(
                m.role == "assistant" and not m.errors and (m.text or m.tool_calls)
                for m in turns[index + 1 :]
            )
            text = one_line(error, 200)
            if ("api", text) in seen:
                continue
            seen.add(("api", text))
            notes.append(ErrorNote(turn.role, "api", text, resolved))
    return notes


def _decisions(session: Session) -> list[str]:
    found: list[str] = []
    for message in session.messages:
        if message.role not in ("user", "assistant") or message.kind or message.sidechain:
            continue
        fenced = False
        for line in message.text.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced or not _DECISION.search(line):
                continue
            clean = one_line(line.strip().lstrip("-*> ").strip(), 300)
            if clean and clean not in found:
                found.append(clean)
    return found[:_MAX_DECISIONS]


def _files(session: Session) -> tuple[list[str], list[str], list[str]]:
    read: set[str] = set()
    edited: set[str] = set()
    written: set[str] = set()
    for call in session.tool_calls():
        read.update(_rel(p, session.cwd) for p in call.files_read)
        edited.update(_rel(p, session.cwd) for p in call.files_edited)
        written.update(_rel(p, session.cwd) for p in call.files_written)
    return sorted(read), sorted(edited), sorted(written)


def _commands(session: Session) -> list[str]:
    commands: list[str] = []
    for call in session.tool_calls():
        if call.command:
            line = one_line(call.command, 200)
            if line not in commands:
                commands.append(line)
    return commands


def _outcome(session: Session, errors: list[ErrorNote]) -> str:
    main = [m for m in session.messages if m.role in ("user", "assistant") and not m.sidechain]
    requests = sum(1 for m in main if _is_request(m))
    changed = len({p for c in session.tool_calls() for p in c.files_edited + c.files_written})
    calls = len(session.tool_calls())
    stats = f"{requests} request(s), {calls} tool call(s), {changed} file(s) changed"
    last_request = max((i for i, m in enumerate(main) if _is_request(m)), default=-1)
    answered = any(m.role == "assistant" and m.text.strip() for m in main[last_request + 1 :])
    unresolved = sum(1 for e in errors if not e.resolved)
    if not any(m.role == "assistant" for m in main):
        status = "No assistant reply recorded"
    elif not answered:
        status = "Ended without an answer to the last request"
    elif unresolved:
        status = f"Answered; {unresolved} error(s) left unresolved"
    else:
        status = "Answered"
    return f"{status} ({stats})."


def _strip_binary(text: str) -> str:
    return _BASE64.sub("[binary data]", _DATA_URI.sub("[binary data]", text))


def conversation_text(session: Session) -> str:
    """User requests, assistant prose and summaries, for chunked search (unredacted).

    Tool calls, tool output bodies, injected context, thinking and binary blobs are left
    out: they are noise for search and the likeliest place for secrets.
    """
    parts: list[str] = []
    for message in session.messages:
        text = _strip_binary(message.text.strip())
        if not text:
            continue
        if _is_request(message):
            parts.append(f"User: {text}")
        elif message.role == "assistant":
            parts.append(f"{'Sub-agent' if message.sidechain else 'Assistant'}: {text}")
        elif message.role == "system" and message.kind == "summary":
            parts.append(f"Summary: {text}")
    return "\n\n".join(parts)


def _bullets(items: list[str], *, code: bool = False) -> list[str]:
    shown = items[:_MAX_LIST]
    lines = [f"- `{item}`" if code else f"- {item}" for item in shown]
    if len(items) > len(shown):
        lines.append(f"- … and {len(items) - len(shown)} more")
    return lines


def _render(session: Session, d: Digest) -> str:
    lines = [f"# {d.title}", ""]
    lines.append(f"- Agent: {session.agent}")
    lines.append(f"- Session: {session.session_id}")
    if session.cwd:
        lines.append(f"- Workspace: {session.cwd}")
    if session.git_branch:
        lines.append(f"- Branch: {session.git_branch}")
    if session.started or session.ended:
        lines.append(f"- Time: {iso(session.started) or '?'} → {iso(session.ended) or '?'}")
    lines.append("")
    if d.goal:
        lines += ["## Goal", "", d.goal, ""]
    lines += ["## Outcome", "", d.outcome, ""]
    if d.decisions:
        lines += ["## Decisions", "", *_bullets(d.decisions), ""]
    if d.final_answer:
        lines += ["## Final answer", "", d.final_answer, ""]
    if d.files_edited or d.files_written or d.files_read:
        lines += ["## Files", ""]
        for label, files in (
            ("Edited", d.files_edited),
            ("Written", d.files_written),
            ("Read", d.files_read),
        ):
            if files:
                lines += [f"### {label}", "", *_bullets(files, code=True), ""]
    if d.commands:
        lines += ["## Commands", "", *_bullets(d.commands, code=True), ""]
    if d.errors:
        lines += ["## Errors", ""]
        for note in d.errors[:_MAX_ERRORS]:
            state = "resolved" if note.resolved else "unresolved"
            lines.append(f"- [{state}] {note.tool} `{note.target}`: {note.message}")
        if len(d.errors) > _MAX_ERRORS:
            lines.append(f"- … and {len(d.errors) - _MAX_ERRORS} more")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def build_digest(session: Session) -> Digest:
    """The digest of a session: fields, Markdown and search text, all redacted."""
    goal_message = next((m for m in session.messages if _is_request(m)), None)
    goal = one_line(_strip_binary(goal_message.text), _MAX_GOAL) if goal_message else None
    final = next(
        (
            m.text.strip()
            for m in reversed(session.messages)
            if m.role == "assistant" and not m.sidechain and m.text.strip()
        ),
        None,
    )
    final = clip(redact(final).text, _MAX_FINAL) if final else final  # redacted, then cut
    errors = _errors(session)
    read, edited, written = _files(session)
    # one line within the title limit, redacted before the cut (one_line)
    title = one_line(session.title, MAX_TITLE_CHARS) if session.title else None
    title = title or (one_line(goal, 80) if goal else None)
    digest = Digest(
        title=title or f"{session.agent} session {session.session_id[:8]}",
        goal=goal,
        decisions=_decisions(session),
        final_answer=_strip_binary(final) if final else None,
        files_read=read,
        files_edited=edited,
        files_written=written,
        commands=_commands(session),
        errors=errors,
        outcome=_outcome(session, errors),
        markdown="",
        conversation="",
    )
    markdown = redact(_render(session, digest))
    conversation = redact(conversation_text(session))
    # Counted from the markers: parts were redacted earlier, before being cut (one_line).
    counts: Counter[str] = count_markers(markdown.text) + count_markers(conversation.text)

    def clean(text: str) -> str:
        return redact(text).text

    return Digest(
        title=clean(digest.title),
        goal=clean(goal) if goal else None,
        decisions=[clean(x) for x in digest.decisions],
        final_answer=clean(digest.final_answer) if digest.final_answer else None,
        files_read=[clean(x) for x in read],
        files_edited=[clean(x) for x in edited],
        files_written=[clean(x) for x in written],
        commands=[clean(x) for x in digest.commands],
        errors=[ErrorNote(e.tool, clean(e.target), clean(e.message), e.resolved) for e in errors],
        outcome=digest.outcome,
        markdown=markdown.text,
        conversation=conversation.text,
        redactions=dict(sorted(counts.items())),
    )
