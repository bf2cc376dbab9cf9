"""nano-brain's entries in an agent's hook settings: put them in, take them out, report them.

The agents (their table is in `agents`) read the same three-level JSON (event -> matcher group
-> handlers) from files the user also edits by hand (Gemini CLI's holds all of its settings),
and other tools add their own hooks there. So a change touches only our handlers, recognised by
their program (`nano-brain-hook`, whatever its path) or, for Claude Code's HTTP handlers, by
their URL (`http_handlers`), and drops a matcher group or an event
only when removing ours left it empty. Everything else keeps its keys, values and order. A run
that changes nothing leaves the file alone, byte for byte. A file that cannot be read safely
(not JSON, an unexpected shape) is an error and stays as it was. The new text replaces the
file atomically.

The merge functions (`install_into`, `uninstall_from`, `installed_in`) are pure; `install`,
`uninstall` and `status` read and write the files.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import shutil
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidInputError
from ..jsonlimits import deeper_than
from .agents import ABOUT, AGENT_HOOKS, AgentHooks, HookSpec
from .http_handlers import base_url, http_handler, split_ours

PROGRAM = "nano-brain-hook"
"""The hook runner's console script; a handler whose command runs it is ours."""

PROGRAM_ENV = "NANO_BRAIN_HOOK_PROGRAM"
"""Overrides the absolute path written for user and local scopes (tests, unusual installs)."""

AGENTS = tuple(AGENT_HOOKS)
HTTP_AGENTS = tuple(name for name, row in AGENT_HOOKS.items() if row.http_events)
SCOPES = ("user", "project", "local")
MAX_SETTINGS_BYTES = 5 * 1024 * 1024
_MAX_DEPTH = 200  # far beyond any settings file, well within the parser's recursion

Action = Literal["added", "replaced", "removed", "unchanged"]


@dataclass(frozen=True)
class Change:
    """What happened to one event's nano-brain handler."""

    event: str
    action: Action


@dataclass(frozen=True)
class Outcome:
    """The file an install or uninstall looked at, and what it did there."""

    path: Path
    changes: tuple[Change, ...]
    written: bool


@dataclass(frozen=True)
class Installed:
    """One of our handlers found in a settings file."""

    event: str
    matcher: str | None
    handler: dict[str, Any]

    @property
    def command(self) -> str:
        value = self.handler.get("command")
        return value if isinstance(value, str) else ""

    @property
    def url(self) -> str | None:
        """The URL an HTTP handler posts to (None: a command handler)."""
        value = self.handler.get("url") if self.handler.get("type") == "http" else None
        return value if isinstance(value, str) else None

    @property
    def target(self) -> str:
        """What the handler runs: its command, or its URL."""
        return self.url or self.command


@dataclass(frozen=True)
class EventStatus:
    """Whether one of our events is installed in a file, and whether it would run."""

    event: str
    installed: bool
    command: str | None
    program: str | None
    program_ok: bool
    """The runner exists and may run (False for an HTTP handler: it runs no program)."""
    current: bool
    url: str | None = None
    """The URL an HTTP handler posts to (then `command` and `program` are None)."""


@dataclass(frozen=True)
class FileStatus:
    """Our events in one settings file (`scopes`: the scopes that write this file)."""

    path: Path
    scopes: tuple[str, ...]
    exists: bool
    events: tuple[EventStatus, ...]
    others: tuple[Installed, ...]
    """Handlers of ours under events we no longer install (an install removes them)."""


# -- the agent table ------------------------------------------------------------------------


def agent_hooks(agent: str) -> AgentHooks:
    """`agent`'s row of the agent table."""
    _check(agent, AGENTS, "agent")
    return AGENT_HOOKS[agent]


def specs(agent: str) -> tuple[HookSpec, ...]:
    """The hooks nano-brain installs for `agent`."""
    return agent_hooks(agent).specs


def settings_path(agent: str, scope: str, root: Path, home: Path | None = None) -> Path:
    """The file `agent` reads hooks of `scope` from; `root` is the workspace (project and
    local scopes), `home` the user's home (default: $HOME)."""
    row = agent_hooks(agent)
    _check(scope, SCOPES, "scope")
    if scope == "user":
        return (home if home is not None else Path.home()) / row.user_file
    return root / (row.project_file if scope == "project" else row.local_file)


def program_path(program: str | Path | None = None) -> str:
    """The runner written for user and local scopes: `program`, else $NANO_BRAIN_HOOK_PROGRAM,
    else the `nano-brain-hook` script beside this Python (the same install as this code)."""
    if program is not None:
        return str(program)
    override = os.environ.get(PROGRAM_ENV)
    if override:
        return override
    name = PROGRAM + (".exe" if os.name == "nt" else "")
    return str(Path(sys.executable).with_name(name))


def runner_word(scope: str, program: str | Path | None = None) -> str:
    """The program as a handler's command names it. A project file is committed and read on
    other machines, so it names the runner bare (found on PATH); the others name this
    install's, quoted for the shell."""
    return PROGRAM if scope == "project" else shlex.quote(program_path(program))


def hook_command(agent: str, spec: HookSpec, scope: str, program: str | Path | None = None) -> str:
    """The shell command a handler for `spec` runs."""
    return f"{runner_word(scope, program)} {agent} {spec.arg}"


def handler_for(
    agent: str,
    spec: HookSpec,
    scope: str,
    program: str | Path | None = None,
    http: str | None = None,
) -> dict[str, Any]:
    """The handler object we write for `spec`: with `http` (a server's base URL from
    `check_http`), an HTTP handler where the agent runs them for `spec`'s event."""
    row = agent_hooks(agent)
    if http is not None and spec.event in row.http_events:
        return http_handler(http, agent, spec.arg, row.timeout(spec))
    handler: dict[str, Any] = {
        "type": "command",
        "command": hook_command(agent, spec, scope, program),
        "timeout": row.timeout(spec),
    }
    if row.named:  # Gemini CLI's /hooks enable|disable take a handler's name
        handler = {"name": f"nano-brain-{spec.arg}", **handler, "description": ABOUT[spec.arg]}
    return handler


def check_http(agent: str, url: str) -> str:
    """`url` as the base URL of `agent`'s HTTP handlers; an error when the agent has none
    or the URL is not http on loopback."""
    agent_hooks(agent)
    if agent not in HTTP_AGENTS:
        raise InvalidInputError(
            f"--http is for {', '.join(HTTP_AGENTS)} only: {agent} runs command hooks"
        )
    return base_url(url)


def is_ours(handler: Any) -> bool:
    """Whether a handler runs nano-brain's hook runner (its command's program is
    `nano-brain-hook`, at any path) or posts to a server's hook route."""
    if split_ours(handler, HTTP_AGENTS) is not None:
        return True
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        words = shlex.split(handler["command"])
    except ValueError:  # unbalanced quotes: not a command we wrote
        return False
    return bool(words) and Path(words[0]).name.removesuffix(".exe") == PROGRAM


# -- pure merges ----------------------------------------------------------------------------


def install_into(
    settings: Mapping[str, Any], wanted: Sequence[tuple[HookSpec, dict[str, Any]]]
) -> tuple[dict[str, Any], list[Change]]:
    """`settings` with exactly our `wanted` handlers (each spec with its handler), and what
    changed per event. Ours under events not wanted are removed; nothing else changes."""
    result = copy.deepcopy(dict(settings))
    hooks = _hooks_of(result, create=True)
    changes: list[Change] = []
    wanted_events = {spec.event for spec, _ in wanted}
    for event in list(hooks):
        if event not in wanted_events and isinstance(hooks[event], list):
            kept, removed = _without_ours(hooks[event])
            if removed:
                _put_back(hooks, event, kept)
                changes.append(Change(event, "removed"))
    for spec, handler in wanted:
        groups = _groups_of(hooks, spec.event)
        kept, action = _install_event(groups, spec.matcher, handler)
        hooks[spec.event] = kept
        changes.append(Change(spec.event, action))
    if not hooks and "hooks" not in settings:
        del result["hooks"]
    return result, changes


def uninstall_from(
    settings: Mapping[str, Any], events: Sequence[str]
) -> tuple[dict[str, Any], list[Change]]:
    """`settings` without any of our handlers, and per event what happened: each of `events`
    is reported, and any other event ours were removed from."""
    result = copy.deepcopy(dict(settings))
    hooks = _hooks_of(result, create=False)
    removed_from: set[str] = set()
    for event in list(hooks):
        if isinstance(hooks[event], list):
            kept, removed = _without_ours(hooks[event])
            if removed:
                _put_back(hooks, event, kept)
                removed_from.add(event)
    if "hooks" in result and not hooks and removed_from:
        del result["hooks"]  # it held only ours
    changes = [Change(e, "removed" if e in removed_from else "unchanged") for e in events]
    changes += [Change(e, "removed") for e in sorted(removed_from - set(events))]
    return result, changes


def installed_in(settings: Mapping[str, Any]) -> list[Installed]:
    """Every handler of ours in `settings`, in file order."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group in groups:
            for handler in _handlers(group):
                if is_ours(handler):
                    found.append(Installed(event, _matcher(group), handler))
    return found


def _hooks_of(settings: dict[str, Any], *, create: bool) -> dict[str, Any]:
    if "hooks" not in settings:
        if not create:
            return {}
        settings["hooks"] = {}
    hooks = settings["hooks"]
    if not isinstance(hooks, dict):
        raise InvalidInputError(f'"hooks" is {_kind(hooks)}, not an object')
    return hooks


def _groups_of(hooks: dict[str, Any], event: str) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise InvalidInputError(f'"hooks.{event}" is {_kind(groups)}, not a list')
    return groups


def _install_event(
    groups: list[Any], matcher: str | None, handler: dict[str, Any]
) -> tuple[list[Any], Action]:
    ours = [
        (gi, hi)
        for gi, group in enumerate(groups)
        for hi, existing in enumerate(_handlers(group))
        if is_ours(existing)
    ]
    # ours under the right matcher keeps its place; anything else of ours goes
    home = next(((gi, hi) for gi, hi in ours if _matcher(groups[gi]) == matcher), None)
    if home is not None and len(ours) == 1 and _handlers(groups[home[0]])[home[1]] == handler:
        return groups, "unchanged"
    kept, _ = _without_ours(groups, keep=home, replacement=handler)
    if home is None:
        kept.append({"matcher": matcher, "hooks": [handler]} if matcher else {"hooks": [handler]})
    return kept, "replaced" if ours else "added"


def _without_ours(
    groups: list[Any],
    keep: tuple[int, int] | None = None,
    replacement: dict[str, Any] | None = None,
) -> tuple[list[Any], bool]:
    """`groups` with our handlers taken out (the one at `keep` becomes `replacement`), a group
    dropped only when that emptied it; and whether any was taken out."""
    kept: list[Any] = []
    removed = False
    for gi, group in enumerate(groups):
        handlers = _handlers(group)
        if not any(is_ours(h) for h in handlers):
            kept.append(group)
            continue
        new: list[Any] = []
        for hi, existing in enumerate(handlers):
            if (gi, hi) == keep:
                new.append(replacement)
            elif is_ours(existing):
                removed = True
            else:
                new.append(existing)
        if new:
            kept.append({**group, "hooks": new})  # same keys, same order
    return kept, removed


def _put_back(hooks: dict[str, Any], event: str, groups: list[Any]) -> None:
    if groups:
        hooks[event] = groups
    else:
        del hooks[event]  # it held only ours


def _handlers(group: Any) -> list[Any]:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        return group["hooks"]  # type: ignore[no-any-return]
    return []


def _matcher(group: Any) -> str | None:
    value = group.get("matcher") if isinstance(group, dict) else None
    return value if isinstance(value, str) and value else None


# -- the files ------------------------------------------------------------------------------


def install(
    agent: str,
    scope: str,
    root: Path,
    *,
    program: str | Path | None = None,
    home: Path | None = None,
    http: str | None = None,
) -> Outcome:
    """Put nano-brain's hooks for `agent` into its `scope` settings file (created if missing);
    with `http` (a server's base URL) the events the agent allows post to that server."""
    base = check_http(agent, http) if http is not None else None
    path = settings_path(agent, scope, root, home)
    raw, settings = _read(path)
    wanted = [(spec, handler_for(agent, spec, scope, program, base)) for spec in specs(agent)]
    try:
        new, changes = install_into(settings, wanted)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{path}: {exc}") from None
    written = _write_if_changed(path, raw, settings, new)
    return Outcome(path, tuple(changes), written)


def uninstall(agent: str, scope: str, root: Path, *, home: Path | None = None) -> Outcome:
    """Take nano-brain's hooks out of `agent`'s `scope` settings file."""
    path = settings_path(agent, scope, root, home)
    raw, settings = _read(path)
    new, changes = uninstall_from(settings, [spec.event for spec in specs(agent)])
    written = _write_if_changed(path, raw, settings, new) if raw is not None else False
    return Outcome(path, tuple(changes), written)


def status(
    agent: str,
    root: Path,
    scopes: Sequence[str] = SCOPES,
    *,
    program: str | Path | None = None,
    home: Path | None = None,
) -> list[FileStatus]:
    """Our events in each of `agent`'s settings files for `scopes` (a file two scopes share,
    as Codex's project file, once)."""
    by_path: dict[Path, list[str]] = {}
    for scope in scopes:
        by_path.setdefault(settings_path(agent, scope, root, home), []).append(scope)
    return [_file_status(agent, path, tuple(s), program) for path, s in by_path.items()]


def _file_status(
    agent: str, path: Path, scopes: tuple[str, ...], program: str | Path | None
) -> FileStatus:
    raw, settings = _read(path)
    found = installed_in(settings)
    events = []
    for spec in specs(agent):
        mine = [item for item in found if item.event == spec.event]
        if not mine:
            events.append(EventStatus(spec.event, False, None, None, False, False))
            continue
        first = mine[0]
        # an HTTP handler is current when it is what an install with its own URL writes
        split = split_ours(first.handler, HTTP_AGENTS)
        http = split[0] if split else None
        current = {
            json.dumps(handler_for(agent, spec, scope, program, http), sort_keys=True)
            for scope in scopes
        }
        is_current = (
            len(mine) == 1
            and first.matcher == spec.matcher
            and json.dumps(first.handler, sort_keys=True) in current
        )
        if first.url is not None:
            events.append(EventStatus(spec.event, True, None, None, False, is_current, first.url))
            continue
        runner = _runner(first.command)
        events.append(
            EventStatus(spec.event, True, first.command, runner, runs(runner), is_current)
        )
    names = {spec.event for spec in specs(agent)}
    others = tuple(item for item in found if item.event not in names)
    return FileStatus(path, scopes, raw is not None, tuple(events), others)


def _runner(command: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words[0] if words else None


def runs(runner: str | None) -> bool:
    """Whether the runner exists and may be executed (a bare name: found on PATH)."""
    if not runner:
        return False
    if os.sep not in runner and not (os.altsep and os.altsep in runner):
        return shutil.which(runner) is not None
    path = Path(runner).expanduser()
    return path.is_file() and os.access(path, os.X_OK)


def _read(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    """The file's bytes (None: no file) and its JSON object; an error for anything we could
    not write back faithfully."""
    try:
        with open(path, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise InvalidInputError(f"{path} is not a regular file")
            raw = file.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return None, {}
    except IsADirectoryError:
        raise InvalidInputError(f"{path} is not a regular file") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise InvalidInputError(f"{path} is larger than {MAX_SETTINGS_BYTES} bytes")
    return raw, _parse(path, raw)


def _parse(path: Path, raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        return {}  # an empty file: as if missing
    if deeper_than(raw, _MAX_DEPTH):
        raise InvalidInputError(f"{path} nests deeper than {_MAX_DEPTH} levels")
    try:
        data = json.loads(
            raw.decode("utf-8-sig"), object_pairs_hook=_no_duplicates, parse_constant=_no_constant
        )
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path} is not UTF-8 text") from None
    except ValueError as exc:  # JSONDecodeError, and ours below
        raise InvalidInputError(f"{path} is not valid JSON: {exc}; fix or move it") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path} holds {_kind(data)}, not a JSON object")
    if "hooks" in data and not isinstance(data["hooks"], dict):
        raise InvalidInputError(f'{path}: "hooks" is {_kind(data["hooks"])}, not an object')
    return data


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # the agent keeps one of two equal keys; writing back would silently lose the other
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _write_if_changed(
    path: Path, raw: bytes | None, before: dict[str, Any], after: dict[str, Any]
) -> bool:
    if raw is not None and before == after:
        return False
    if raw is None and after == {}:
        return False  # nothing to write where nothing was
    text = json.dumps(after, indent=2, ensure_ascii=False) + "\n"
    _replace(path, text.encode("utf-8"), raw)
    return True


def _replace(path: Path, data: bytes, expected: bytes | None) -> None:
    """Replace the file atomically; through a symlink (dotfiles often link settings), the
    target is replaced and the link kept. Refused if the file changed since we read it."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o644
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        pass
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        if _current_bytes(target) != expected:
            raise InvalidInputError(f"{path} changed while it was being edited; run again")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _current_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number" if isinstance(value, int | float) else "an object"


def _check(value: str, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise InvalidInputError(f"unknown {what} {value!r}: expected one of {', '.join(allowed)}")
