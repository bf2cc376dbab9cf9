"""The click group and the helpers every command module shares."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .. import __version__
from ..brain import Brain
from ..errors import NanoBrainError

log = logging.getLogger("nano_brain")
_err = Console(stderr=True)


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


def open_brain(workspace: Path | None, db: Path | None) -> Brain:
    return Brain(workspace, db_path=db)


def emit(data: Any, as_json: bool, human: Callable[[], None]) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        human()


class _Group(click.Group):
    """Turns nano-brain errors into one line on stderr and a non-zero exit code."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        # Bytes that are not UTF-8 reach Python's argv as lone surrogates, which no store or
        # output can encode: refuse them once, here, before any command sees them.
        for arg in sys.argv[1:] if args is None else args:
            if not _is_text(arg):
                click.echo(f"nano-brain: error: argument {arg!r} is not UTF-8 text", err=True)
                sys.exit(2)
        return super().main(args, *rest, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NanoBrainError as exc:
            click.echo(f"nano-brain: error: {exc}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="nano-brain")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-v info, -vv debug).")
def main(verbose: int) -> None:
    """nano-brain: a memory for your coding workspace."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def _is_text(arg: str) -> bool:
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class progress_bar:
    """A rich progress bar on stderr (silent with --json or when stderr is no terminal)."""

    def __init__(self, quiet: bool) -> None:
        self._bar = (
            None
            if quiet
            else Progress(
                TextColumn("embedding"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=_err,
                transient=True,
            )
        )
        self._task: Any = None

    def __enter__(self) -> Callable[[int, int], None]:
        if self._bar is not None:
            self._bar.start()

        def update(done: int, total: int) -> None:
            if self._bar is None:
                return
            if self._task is None:
                self._task = self._bar.add_task("", total=total)
            self._bar.update(self._task, completed=done, total=total)

        return update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
