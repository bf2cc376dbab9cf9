"""Commands for the team store: set it up on a server, copy a local store into it and back."""

from __future__ import annotations

from pathlib import Path

import click

from ..storeadmin import copy_memory_between, init_team_store
from ._app import emit, json_option, load_workspace, main, workspace_option


@main.group(name="store")
def store_group() -> None:
    """Set up a team store on PostgreSQL; copy memory between stores."""


@store_group.command(name="init")
@click.argument("url")
@click.option("--app-role", default=None, help="Role nano-brain connects as (granted access).")
@click.option(
    "--vector-index",
    type=click.Choice(["ivfflat", "hnsw", "exact"]),
    default="ivfflat",
    help="Build this k-NN index (ivfflat learns from the vectors present: run again after "
    "a large import).",
)
@click.option("--dims", default="384", help="Embedding dimensions to index (comma-separated).")
@json_option
def init(url: str, app_role: str | None, vector_index: str, dims: str, as_json: bool) -> None:
    """Create or upgrade the team store's schema at URL (run as the database's owner)."""
    info = init_team_store(url, app_role, vector_index, dims)
    version = info["schema_version"]
    emit(info, as_json, lambda: click.echo(f"store {info['store']} at schema v{version}"))


@store_group.command(name="migrate")
@click.option("--to", "target", required=True, help="postgresql://... URL or a store file.")
@click.option("--from", "source", default=None, help="Copy from here (default: this store).")
@workspace_option
@json_option
def migrate_cmd(target: str, source: str | None, workspace: Path | None, as_json: bool) -> None:
    """Copy this workspace's memory into another store (a team store, or a file and back)."""
    root, loaded = load_workspace(workspace)
    info = copy_memory_between(loaded.config, root, source, target)

    def human() -> None:
        click.echo(f"copied {info['from']} -> {info['to']}")
        for key in ("documents", "skipped_documents", "chunks", "vectors", "status_changes",
                    "tombstones", "audit_rows", "anchors", "proposals"):  # fmt: skip
            click.echo(f"  {key:<18} {info[key]}")

    emit(info, as_json, human)
