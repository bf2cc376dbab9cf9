"""`nano-brain doctor`: check the install, the workspace's store, config and private files."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._app import common_options, emit, main


@main.command()
@click.option("--repair", is_flag=True, help="Rebuild full-text indexes that drifted.")
@common_options
def doctor(repair: bool, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Check the install, store, config and private files; exit 1 on errors."""
    from .. import doctor as checks

    report = checks.run(workspace, db_path=db, repair=repair)
    emit(report.to_dict(), as_json, lambda: click.echo(checks.render(report)))
    if report.errors:
        sys.exit(1)
