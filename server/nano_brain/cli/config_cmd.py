"""`nano-brain config show|check`: the effective configuration and every warning."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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
        if loaded.trust is not None:
            click.echo(f"# {_trust_line(loaded)}")
        click.echo(yaml.safe_dump(data, sort_keys=False).rstrip())
        for warning in loaded.warnings:
            click.echo(f"# warning: {warning}", err=True)

    emit(
        {"config": data, "sources": loaded.sources, "warnings": loaded.warnings,
         "trust": _trust(loaded)},
        as_json,
        human,
    )  # fmt: skip


@config.command()
@click.option("--workspace", "-w", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def check(workspace: Path | None, as_json: bool) -> None:
    """List every warning; exit 1 when there is any."""
    loaded = _load(workspace)

    def human() -> None:
        echo_lines((f"warning: {w}" for w in loaded.warnings), "config ok")
        if loaded.trust is not None and loaded.trust.trusted:
            click.echo(_trust_line(loaded))

    emit(
        {"warnings": loaded.warnings, "sources": loaded.sources, "trust": _trust(loaded)},
        as_json,
        human,
    )
    if loaded.warnings:
        sys.exit(1)


def _trust(loaded: LoadedConfig) -> dict[str, Any] | None:
    return None if loaded.trust is None else loaded.trust.model_dump()


def _trust_line(loaded: LoadedConfig) -> str:
    """Whether the workspace file's sensitive settings count, and why."""
    trust = loaded.trust
    assert trust is not None
    if trust.trusted:
        return f"trust: {trust.path} is trusted (by {trust.by}): {', '.join(trust.sensitive)} apply"
    return f"trust: {trust.path} is not trusted: {', '.join(trust.ignored)} ignored"
