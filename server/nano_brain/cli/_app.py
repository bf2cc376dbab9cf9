"""The click group and the helpers every command module shares.

Start-up is part of the interface: agents and scripts call the CLI in loops. The group knows
its commands from the table below and imports a command's module only when that command runs
(`--help` lists the table), and nothing here imports the store, the embedding runtime or rich
at module level.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .. import __version__
from ..errors import InvalidInputError, NanoBrainError
from ..text import json_visible, visible
from ._output import show_controls_visibly, streams_restored
from ._progress import progress_bar

if TYPE_CHECKING:
    from ..brain import Brain
    from ..config import LoadedConfig
    from ..workspace import Workspace

__all__ = [
    "common_options",
    "echo_lines",
    "emit",
    "load_workspace",
    "main",
    "open_brain",
    "open_workspace",
    "progress_bar",
    "warn_config",
]

log = logging.getLogger("nano_brain")

#: Each module's commands and the line `nano-brain --help` shows for each. A test checks every
#: line against the command's docstring, and that every registered command is listed here.
_MODULES: dict[str, dict[str, str]] = {
    "code_cmd": {
        "callees": "Calls made directly inside SYMBOL (unresolved ones are shown with a ?).",
        "callers": "Call sites confidently resolved to SYMBOL.",
        "impact": "Who is affected by changing SYMBOL: transitive callers and anchored notes.",
        "index": "Index the workspace's code (incremental: unchanged files cost a stat).",
        "symbols": "Find symbols by qualified name, Class.method, bare name or name fragment.",
    },
    "consolidate_cmd": {
        "consolidate": "Propose superseding or merging near-duplicate and contradicting notes; "
        "never deletes.",
    },
    "config_cmd": {
        "config": "Show or check the effective configuration.",
    },
    "doctor_cmd": {
        "doctor": "Check the install, store, config and private files; exit 1 on errors.",
    },
    "documents": {
        "delete": "Delete a document and everything derived from it.",
        "get": "Show a document by #id or source path.",
        "list": "List documents, most recently updated first.",
        "tags": "List tags with how many documents carry each.",
        "write": "Save a note (CONTENT, --file, or stdin).",
    },
    "harvest_cmd": {
        "harvest": "Summarise this workspace's agent sessions into memory (new and grown ones).",
        "sessions": "List this workspace's harvested sessions, most recent first.",
        "watch": "Harvest now, then whenever an agent's transcripts change (Ctrl-C stops).",
    },
    "hooks_cmd": {
        "hooks": "Put nano-brain's hooks into Claude Code's, Codex's or Gemini CLI's settings, "
        "or take them out.",
    },
    "lsp_cmd": {
        "lsp": "Run the language server the editor starts; logs go to the editor, never stdout.",
    },
    "maintenance": {
        "reembed": "Embed every chunk again with the configured model (after changing models).",
        "status": "Store size, counts, model and which search legs are available.",
    },
    "mcp_cmd": {
        "mcp": "Serve this workspace's memory to one agent over stdio (the agent starts this).",
        "mcp-config": "Print the HTTP endpoint, the bearer token and snippets for agent clients.",
        "serve": "Serve this workspace's memory over streamable HTTP (loopback or a unix socket).",
    },
    "memory": {
        "confirm": "Confirm an unreviewed (or retracted) document: it becomes active.",
        "evict": "Apply `storage.max_size` now: evict documents until the store fits.",
        "forget": "Delete a document and keep it deleted: its source is never derived again.",
        "history": "Every version of a document and what happened to it.",
        "log": "The audit log: every mutation, who made it, when, and the previous status.",
        "pin": "Pin a document so the storage limit never evicts it.",
        "retract": "Mark a document as wrong: kept for the record, hidden from every default read.",
        "review": "List documents waiting for review (confirm them with `nano-brain confirm`).",
        "supersede": "Mark OLD as superseded by NEW (both #id or source path).",
        "tombstones": "Sources that stay deleted (undo with `nano-brain forget --undo SOURCE`).",
        "wake-up": "What to read at session start: decisions, most used, recent, sessions.",
    },
    "routes_cmd": {
        "routes": "HTTP routes of the code and their handlers (PATTERN: a glob or part of paths).",
    },
    "search": {
        "query": "Hybrid search: lexical and vector legs fused.",
        "search": "Lexical (full-text) search only.",
        "vsearch": "Vector (semantic) search only.",
    },
    "store_cmd": {
        "store": "Set up a team store on PostgreSQL; copy memory between stores.",
    },
    "trust_cmd": {
        "trust": "Trust this workspace's .nano-brain.yml as it is now (endpoints, keys, outside "
        "paths).",
    },
    "ui_cmd": {
        "ui": "Serve the memory page on 127.0.0.1 and open it in the browser.",
    },
    "why_cmd": {
        "anchor": "Anchor NOTE (#id) to SYMBOL: shown on hover there, flagged when code changes.",
        "unanchor": "Detach NOTE (#id) from SYMBOL (the note is kept).",
        "why": "Why SYMBOL is like this: anchored notes, the commits that changed it, sessions.",
    },
}
#: command name -> (module, short help)
COMMANDS: dict[str, tuple[str, str]] = {
    name: (module, text) for module, names in _MODULES.items() for name, text in names.items()
}

# click >= 8.2 raises this for a group called without a command (8.1 printed the help itself).
_NoArgsIsHelp: type[click.UsageError] = getattr(
    click.exceptions, "NoArgsIsHelpError", type("_Never", (click.UsageError,), {})
)

#: Exit codes besides the error tree's (README "Using the CLI").
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


workspace_option = click.option(
    "--workspace",
    "-w",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Workspace root (default: current directory).",
)
db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Store file (default: under the XDG data dir, one per workspace).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def common_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--workspace, --db and --json on every command."""
    return workspace_option(db_option(json_option(func)))


def load_workspace(workspace: Path | None, *, warn: bool = True) -> tuple[Path, LoadedConfig]:
    """The workspace root (which must be a folder) and its effective config, each of its
    warnings printed on stderr (`warn=False`: the command reports them itself)."""
    from .. import paths
    from ..config import load_config

    root = paths.workspace_root(workspace)
    if not root.is_dir():
        raise InvalidInputError(f"workspace {root} is not a directory")
    loaded = load_config(root)
    if warn:
        warn_config(loaded.warnings)
    return root, loaded


def warn_config(warnings: Iterable[str]) -> None:
    """The one way the CLI shows a config warning: one line on stderr, like an error's."""
    for warning in warnings:
        click.echo(f"nano-brain: warning: config: {visible(warning)}", err=True)


def open_workspace(
    workspace: Path | None,
    db: Path | None,
    *,
    create: bool = False,
    actor: str = "cli",
    loaded: tuple[Path, LoadedConfig] | None = None,
    exclude: Sequence[str] = (),
    workers: int | None = None,
) -> Workspace:
    """The workspace, opened for one command. Only commands that write new content pass
    `create`: every other command on a store that does not exist says so and creates no file
    or folder. `exclude` and `workers` tune its code index."""
    from ..workspace import Workspace

    root, config = loaded or load_workspace(workspace)
    return Workspace.open(
        root, config=config, db=db, actor=actor, create=create, exclude=exclude, workers=workers
    )


def open_brain(
    workspace: Path | None,
    db: Path | None,
    *,
    create: bool = False,
    actor: str = "cli",
    loaded: tuple[Path, LoadedConfig] | None = None,
) -> Brain:
    """The workspace's Brain, for the commands that need only its memory (see
    :func:`open_workspace`; closing the Brain closes the workspace)."""
    return open_workspace(workspace, db, create=create, actor=actor, loaded=loaded).brain


def emit(data: Any, as_json: bool, human: Callable[[], None]) -> None:
    """`data` as JSON (every control character escaped), or what `human` prints."""
    if as_json:
        click.echo(json_visible(json.dumps(data, indent=2, ensure_ascii=False, default=str)))
    else:
        human()


def echo_lines(lines: Iterable[str], empty: str) -> None:
    """Print each line, or `empty` when there is none."""
    printed = False
    for line in lines:
        click.echo(line)
        printed = True
    if not printed:
        click.echo(empty)


def fail(message: str, code: int) -> None:
    """The one way the CLI reports an error: one line on stderr, then exit `code`."""
    line = visible(re.sub(r"\s+", " ", message).strip())
    click.echo(f"nano-brain: error: {line}", err=True)
    sys.exit(code)


class _Group(click.Group):
    """Loads command modules on demand; every error becomes one line and an exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            # The module's decorators register its commands on this group.
            importlib.import_module(f"{__package__}.{COMMANDS[cmd_name][0]}")
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in COMMANDS:
                text = click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit)
            else:  # registered by a plugin module already imported
                text = self.commands[name].get_short_help_str(limit)
            rows.append((name, text))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with streams_restored():
            return self._main(*args, **kwargs)

    def _main(self, *args: Any, **kwargs: Any) -> Any:
        # numpy's OpenBLAS starts a thread per core when it loads (~45 ms of a `query`); the
        # vector leg multiplies a few hundred rows at most, and onnxruntime has its own threads.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        argv = args[0] if args else kwargs.get("args")
        # Bytes that are not UTF-8 reach Python's argv as lone surrogates, which no store or
        # output can encode: refuse them once, here, before any command sees them.
        for arg in sys.argv[1:] if argv is None else argv:
            if not _is_text(arg):
                fail(f"argument {arg!r} is not UTF-8 text", EXIT_USAGE)
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except _NoArgsIsHelp as exc:  # bare `nano-brain` or `nano-brain config`: the help
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(0)
        except click.UsageError as exc:
            command = exc.ctx.command_path if exc.ctx else "nano-brain"
            message = exc.format_message().rstrip(". ")
            message = message[:1].lower() + message[1:]
            fail(f"{message} (see {command} --help)", EXIT_USAGE)
        except click.ClickException as exc:  # BadParameter outside parsing, FileError
            fail(exc.format_message(), EXIT_USAGE)
        except NanoBrainError as exc:
            fail(str(exc), exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            fail("interrupted", EXIT_INTERRUPTED)
        except BrokenPipeError:
            # `nano-brain list | head`: the reader left; nothing to report, nothing to flush.
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            sys.exit(0)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            fail(f"{exc.strerror or exc}{where}", 1)
        except Exception as exc:  # a bug: one line, the traceback with -vv
            log.debug("unexpected error", exc_info=True)
            fail(f"internal error: {type(exc).__name__}: {exc} (-vv shows the traceback)", 1)
        code = code if isinstance(code, int) else 0
        if argv is None:  # the command line, not a test or a program calling main(args)
            _exit_now(code)
        sys.exit(code)


def _is_text(arg: str) -> bool:
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _exit_now(code: int) -> None:
    """Exit without the interpreter's teardown when nothing else runs.

    Tearing down the modules a command imported (pydantic models above all) costs ~35 ms of
    CPU, a sixth of a `get`. The command has closed its store and written its output; with no
    other thread alive there is nothing left for atexit handlers or finalizers to finish, so
    flush and leave. Servers and watchers (threads still running) exit the normal way.
    """
    if threading.active_count() > 1:
        sys.exit(code)
    logging.shutdown()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass  # the reader left (`nano-brain list | head`)
    sys.stderr.flush()
    os._exit(code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="nano-brain")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-v info, -vv debug).")
@click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="A team store (postgresql://user@host/db; the password from PGPASSWORD or "
    "~/.pgpass) instead of storage.url.",
)
def main(verbose: int, store_url: str | None) -> None:
    """nano-brain: a memory for your coding workspace."""
    ctx = click.get_current_context()
    # before logging is set up, so that log lines go through the filter too
    show_controls_visibly(ctx.invoked_subcommand)
    # click.echo would silently drop some escape sequences (not all) when stdout is not a
    # terminal; with every control character made visible there is nothing left to strip,
    # and the reader sees what the text holds
    ctx.color = True
    if store_url is not None:
        from ..dburl import check_url

        # the config's own channel: every command (and a server it starts) reads it from there
        os.environ["NANO_BRAIN_STORAGE__URL"] = check_url(store_url)
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
