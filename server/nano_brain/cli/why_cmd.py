"""`why`, `anchor`, `unanchor`: the "why is this code like this" view, and notes on code."""

from __future__ import annotations

from pathlib import Path

import click

from ._app import common_options, emit, main, open_brain, open_workspace


@main.command("why")
@click.argument("symbol")
@click.option("--commits", "-n", type=click.IntRange(0, 1000), default=20, show_default=True,
              help="Newest commits to list.")  # fmt: skip
@click.option("--sessions", type=click.IntRange(0, 1000), default=10, show_default=True)
@click.option("--related", type=click.IntRange(0, 100), default=5, show_default=True,
              help="Related notes and sessions to search for (0: no search).")  # fmt: skip
@common_options
def why_cmd(
    symbol: str,
    commits: int,
    sessions: int,
    related: int,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Why SYMBOL is like this: anchored notes, the commits that changed it, sessions."""
    with open_workspace(workspace, db) as ws:
        view = ws.why(symbol, commits=commits, sessions=sessions, related=related)
    emit(view.model_dump(), as_json, lambda: click.echo(view.text))


@main.command("anchor")
@click.argument("note")
@click.argument("symbol")
@common_options
def anchor_cmd(note: str, symbol: str, workspace: Path | None, db: Path | None,
               as_json: bool) -> None:  # fmt: skip
    """Anchor NOTE (#id) to SYMBOL: shown on hover there, flagged when code changes."""
    from ..anchoring import anchor

    with open_brain(workspace, db) as brain:
        done = anchor(brain, note, symbol)
    emit(done.model_dump(), as_json, lambda: click.echo(f"#{done.note_id} -> {done.symbol}"))


@main.command("unanchor")
@click.argument("note")
@click.argument("symbol")
@common_options
def unanchor_cmd(note: str, symbol: str, workspace: Path | None, db: Path | None,
                 as_json: bool) -> None:  # fmt: skip
    """Detach NOTE (#id) from SYMBOL (the note is kept)."""
    from ..anchoring import unanchor

    with open_brain(workspace, db) as brain:
        removed = unanchor(brain, note, symbol)
    emit(
        {"note": note, "symbol": symbol, "removed": removed},
        as_json,
        lambda: click.echo("detached" if removed else f"{note} was not anchored to {symbol}"),
    )
