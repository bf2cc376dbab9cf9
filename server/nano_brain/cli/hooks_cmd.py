"""`nano-brain hooks`: nano-brain's hooks in an agent's settings (install, uninstall, status)."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import click

from ..errors import InvalidInputError
from ..hooks import http_handlers
from ..hooks import install as hooks
from ._app import emit, json_option, main, workspace_option

agent_option = click.option(
    "--agent",
    required=True,
    type=click.Choice(hooks.AGENTS),
    help="The agent whose settings file to use.",
)


_SCOPE_HELP = (
    "user: your settings for every project; project: the workspace's shared file (commit it); "
    "local: the workspace's file for you only."
)
scope_option = click.option(
    "--scope", type=click.Choice(hooks.SCOPES), default="user", show_default=True, help=_SCOPE_HELP
)


@main.group(name="hooks")
def hooks_group() -> None:
    """Put nano-brain's hooks into Claude Code's, Codex's or Gemini CLI's settings, or take
    them out."""


@hooks_group.command(name="install")
@agent_option
@scope_option
@click.option(
    "--http",
    "http",
    metavar="URL",
    default=None,
    help="Claude Code only: its hooks but SessionStart post to the `nano-brain serve` at URL "
    "(http on 127.0.0.1, ::1 or localhost) instead of running a process.",
)
@workspace_option
@json_option
def install_cmd(
    agent: str, scope: str, http: str | None, workspace: Path | None, as_json: bool
) -> None:
    """Add nano-brain's hooks to the agent's settings file; other hooks stay as they are."""
    base = hooks.check_http(agent, http) if http is not None else None
    root = _root(scope, workspace)
    outcome = hooks.install(agent, scope, root, http=base)
    command = f"{hooks.runner_word(scope)} {agent} <event>"
    url = http_handlers.event_url(base, agent, "<event>") if base else None
    notes = _install_notes(agent, scope, outcome)
    if base is not None:
        notes = _http_notes(base, root, scope) + notes
    data = _outcome_data(agent, scope, outcome) | {"command": command, "url": url, "notes": notes}

    def human() -> None:
        _echo_outcome(agent, scope, outcome, "already installed")
        if url is None:
            click.echo(f"each runs: {command}")
        else:
            click.echo(f"SessionStart runs: {command.replace('<event>', 'session-start')}")
            click.echo(f"the others post to: {url}")
        for note in notes:
            click.echo(f"note: {note}")

    emit(data, as_json, human)


@hooks_group.command(name="uninstall")
@agent_option
@scope_option
@workspace_option
@json_option
def uninstall_cmd(agent: str, scope: str, workspace: Path | None, as_json: bool) -> None:
    """Remove nano-brain's hooks from the agent's settings file, and nothing else."""
    outcome = hooks.uninstall(agent, scope, _root(scope, workspace))
    emit(
        _outcome_data(agent, scope, outcome),
        as_json,
        lambda: _echo_outcome(agent, scope, outcome, "no nano-brain hooks to remove"),
    )


@hooks_group.command(name="status")
@agent_option
@click.option(
    "--scope",
    type=click.Choice(hooks.SCOPES),
    default=None,
    help="Only this scope (default: every scope). " + _SCOPE_HELP,
)
@workspace_option
@json_option
def status_cmd(agent: str, scope: str | None, workspace: Path | None, as_json: bool) -> None:
    """Which of nano-brain's hooks each settings file holds, and whether they would run."""
    scopes = (scope,) if scope else hooks.SCOPES
    root = _root("user" if scopes == ("user",) else "project", workspace)
    files = hooks.status(agent, root, scopes)

    def human() -> None:
        for file in files:
            where = "" if file.exists else " (no file)"
            click.echo(f"{agent}, {' and '.join(file.scopes)} scope: {file.path}{where}")
            for event in file.events:
                click.echo(f"  {event.event:<17} {_event_state(event)}")
            for other in file.others:
                click.echo(f"  {other.event:<17} stale (an install removes it): {other.target}")

    emit([dataclasses.asdict(file) for file in files], as_json, human)


def _root(scope: str, workspace: Path | None) -> Path:
    from .. import paths

    root = paths.workspace_root(workspace)
    if scope != "user" and not root.is_dir():
        raise InvalidInputError(f"workspace {root} is not a directory")
    return root


def _install_notes(agent: str, scope: str, outcome: hooks.Outcome) -> list[str]:
    row = hooks.agent_hooks(agent)
    notes = []
    if scope == "project":
        notes.append(
            f"this file is shared, so it names the bare program {hooks.PROGRAM}: it must be on "
            "the PATH of everyone who runs the agent here"
        )
    elif not hooks.runs(hooks.program_path()):
        notes.append(f"{hooks.program_path()} is not an executable file yet: reinstall nano-brain")
    if agent == "codex" and outcome.written:
        notes.append(
            "Codex runs new or changed hooks only once you review and trust them: "
            "open /hooks in Codex"
        )
    if agent == "gemini" and scope != "user" and outcome.written:
        notes.append(
            "Gemini CLI fingerprints project hooks: it warns about these new or changed hooks "
            "before it runs them"
        )
    if agent == "gemini":
        notes.append(
            "Gemini CLI cannot add context before a tool runs: decisions anchored to code "
            "reach it at session start and with prompts"
        )
    if scope == "local" and row.shares_project_file:
        notes.append(
            f"{row.label} has one project file, {row.project_file}, and it now names this "
            "machine's path: keep it out of git (or install with --scope project)"
        )
    if agent == "claude-code" and scope == "local" and outcome.written:
        notes.append(
            "Claude Code keeps .claude/settings.local.json out of git only when it creates the "
            "file itself: make sure .gitignore lists it"
        )
    return notes


def _http_notes(base: str, root: Path, scope: str) -> list[str]:
    from .. import paths
    from ..serving.statefiles import token_path

    env = http_handlers.TOKEN_ENV
    token_file = token_path(paths.workspace_id(root))
    notes = [
        f"these hooks need `nano-brain serve --workspace {shlex.quote(str(root))} --port "
        f"{http_handlers.port_of(base)}` running; when it is not, Claude Code reports a "
        "non-blocking hook error and goes on",
        f"export {env} (the token `nano-brain mcp-config` prints) in the environment Claude "
        f'Code starts from: export {env}="$(cat {shlex.quote(str(token_file))})"',
    ]
    if scope == "user":
        notes.append(
            f"at user scope every project's sessions post to this server, which answers with "
            f"{root}'s memory only: --scope local keeps them to this workspace"
        )
    return notes


def _outcome_data(agent: str, scope: str, outcome: hooks.Outcome) -> dict[str, object]:
    return {
        "agent": agent,
        "scope": scope,
        "path": str(outcome.path),
        "written": outcome.written,
        "changes": [{"event": c.event, "action": c.action} for c in outcome.changes],
    }


def _echo_outcome(agent: str, scope: str, outcome: hooks.Outcome, nothing: str) -> None:
    click.echo(f"{agent}, {scope} scope: {outcome.path}")
    for change in outcome.changes:
        click.echo(f"  {change.event:<17} {change.action}")
    if not outcome.written:
        click.echo(f"nothing changed: {nothing}")


def _event_state(event: hooks.EventStatus) -> str:
    if not event.installed:
        return "not installed"
    if event.url is not None:
        current = "current" if event.current else "differs from this install"
        return f"installed ({current}; http): POST {event.url}"
    facts = [
        "current" if event.current else "differs from this install",
        "program ok" if event.program_ok else "program not found or not executable",
    ]
    return f"installed ({'; '.join(facts)}): {event.command}"
