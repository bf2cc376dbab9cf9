"""`nano-brain config show|check`: the effective configuration and every warning."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import yaml

from .. import paths
from ..config import LoadedConfig, load_config
from ._app import echo_lines, emit, main


@main.group()
def config() -> None:
    """Show or check the effective configuration."""


def _load(workspace: Path | None) -> LoadedConfig:
    return load_config(paths.workspace_root(workspace))


@config.command()
@click.option("--workspace", "-w", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def show(workspace: Path | None, as_json: bool) -> None:
    """Print the effective config (defaults, files and environment merged)."""
    loaded = _load(workspace)
    data = loaded.config.model_dump(mode="json")

    def human() -> None:
        click.echo(f"# sources: {', '.join(loaded.sources) or 'defaults only'}")
        click.echo(yaml.safe_dump(data, sort_keys=False).rstrip())
        for warning in loaded.warnings:
            click.echo(f"# warning: {warning}", err=True)

    emit({"config": data, "sources": loaded.sources, "warnings": loaded.warnings}, as_json, human)


@config.command()
@click.option("--workspace", "-w", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def check(workspace: Path | None, as_json: bool) -> None:
    """List every warning; exit 1 when there is any."""
    loaded = _load(workspace)
    emit(
        {"warnings": loaded.warnings, "sources": loaded.sources},
        as_json,
        lambda: echo_lines((f"warning: {w}" for w in loaded.warnings), "config ok"),
    )
    if loaded.warnings:
        sys.exit(1)
