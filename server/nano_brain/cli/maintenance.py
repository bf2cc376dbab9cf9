"""Commands that inspect or maintain the store: status, reembed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..embedprogress import SpaceProgress
from ._app import common_options, emit, load_workspace, main, open_brain, progress_bar, warn_config
from ._progress import embedding_detail

if TYPE_CHECKING:
    from ..models import Space


@main.command()
@common_options
def status(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Store size, counts, model and which search legs are available."""
    loaded = load_workspace(workspace, warn=False)  # status reports them itself, once
    with open_brain(workspace, db, loaded=loaded) as brain:
        info = brain.status()

    def human() -> None:
        emb = info["embedding"]
        click.echo(f"workspace  {info['workspace']}  ({info['workspace_id']})")
        team, code = info["team"], info["code_index"]
        if team is None:
            click.echo(
                f"store      {info['store']}  {info['store_bytes'] / 1e6:.1f} MB, "
                f"schema v{info['schema_version']}"
            )
        else:
            click.echo(
                f"team       {team['server']}  workspace {team['workspace']}, "
                f"schema v{team['schema_version']}"
            )
            click.echo(
                f"code index {code['path']}  {code['bytes'] / 1e6:.1f} MB, "
                f"schema v{code['schema_version']}"
            )
        click.echo(
            f"documents  {info['documents']}  "
            + " ".join(f"{k}={v}" for k, v in sorted(info["by_kind"].items()))
        )
        click.echo(
            f"chunks     {info['chunks']}  vectors {info['vectors']}  "
            f"pending {info['pending_embeddings']}"
        )
        click.echo(f"model      {emb['model'] or '-'} (store: {emb['store_model'] or '-'})")
        click.echo(
            f"code model {emb['code_model'] or '-'} (store: {emb['code_store_model'] or '-'})"
        )
        for leg, state in info["legs"].items():
            click.echo(f"{leg:<11} {state}")
        for data in info["embedding_progress"].values():
            if data["embedded"] or data["pending"]:
                click.echo(f"embedding  {SpaceProgress.from_dict(data).describe()}")
        warn_config(info["config_warnings"])

    emit(info, as_json, human)


@main.command()
@click.option("--pending", is_flag=True, help="Only embed chunks that have no vector yet.")
@click.option(
    "--code", "space", flag_value="code", default=None,
    help="Only the code index (embedding.code_model).",
)  # fmt: skip
@click.option(
    "--notes", "space", flag_value="text", help="Only notes and sessions (embedding.model)."
)
@common_options
def reembed(
    pending: bool, space: Space | None, workspace: Path | None, db: Path | None, as_json: bool
) -> None:
    """Embed every chunk again with the configured model (after changing models)."""
    with (
        open_brain(workspace, db) as brain,
        progress_bar(as_json, embedding_detail(brain.embedding_progress)) as update,
    ):
        if pending:
            count = brain.embed_pending(progress=update, space=space)
        else:
            count = brain.reembed(progress=update, space=space)
        models = {
            name: provider.name
            for name, provider in zip(("notes", "code"), brain.providers(), strict=True)
            if provider is not None and (space is None or (space == "code") == (name == "code"))
        }
    info = {"embedded": count, "models": models}
    shown = ", ".join(f"{v} ({k})" for k, v in models.items()) or "no model"
    emit(info, as_json, lambda: click.echo(f"embedded {count} chunk(s) with {shown}"))
