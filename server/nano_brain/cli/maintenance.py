"""Commands that inspect or maintain the store: status, reembed."""

from __future__ import annotations

from pathlib import Path

import click

from ._app import common_options, emit, main, open_brain, progress_bar


@main.command()
@common_options
def status(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Store size, counts, model and which search legs are available."""
    with open_brain(workspace, db) as brain:
        info = brain.status()

    def human() -> None:
        emb = info["embedding"]
        click.echo(f"workspace  {info['workspace']}  ({info['workspace_id']})")
        click.echo(
            f"store      {info['store']}  {info['store_bytes'] / 1e6:.1f} MB, "
            f"schema v{info['schema_version']}"
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
        for leg, state in info["legs"].items():
            click.echo(f"{leg:<10} {state}")
        for warning in info["config_warnings"]:
            click.echo(f"warning    {warning}")

    emit(info, as_json, human)


@main.command()
@click.option("--pending", is_flag=True, help="Only embed chunks that have no vector yet.")
@common_options
def reembed(pending: bool, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Embed every chunk again with the configured model (after changing models)."""
    with open_brain(workspace, db) as brain, progress_bar(as_json) as update:
        count = brain.embed_pending(progress=update) if pending else brain.reembed(progress=update)
        model = brain.provider()[0]
    info = {"embedded": count, "model": model.name if model else None}
    emit(info, as_json, lambda: click.echo(f"embedded {count} chunk(s) with {info['model']}"))
