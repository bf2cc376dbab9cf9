"""`nano-brain ui`: the memory page (search, timeline, documents, review, code map)."""

from __future__ import annotations

import json
import sys
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._app import db_option, main, open_workspace, workspace_option

if TYPE_CHECKING:
    from ..ui.server import UiEndpoint


@main.command()
@workspace_option
@db_option
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port (default: free).")
@click.option("--no-open", is_flag=True, help="Print the link instead of opening a browser.")
@click.option("--json", "as_json", is_flag=True, help="Print the endpoint as JSON when ready.")
def ui(workspace: Path | None, db: Path | None, port: int, no_open: bool, as_json: bool) -> None:
    """Serve the memory page on 127.0.0.1 and open it in the browser.

    The link carries a one-time code (it works once, for five minutes); the page trades it
    for a token of its own, good for this page server only. Run `nano-brain ui` again for a
    fresh link: a page server that is already running for the workspace is reused.
    """
    from ..serving.security import load_or_create_token
    from ..ui.server import fresh_link, read_running, serve_ui

    with open_workspace(workspace, db, create=True, actor="ui") as ws:
        brain = ws.brain
        token = load_or_create_token(brain.workspace_id)
        running = read_running(brain.workspace_id) if port == 0 else None
        link = fresh_link(running[0], token) if running else None
        if running and link:
            _announce(running[0], link, running[1], str(brain.root), no_open, as_json, True)
            return

        def ready(ep: UiEndpoint) -> None:
            _announce(ep.url, ep.open_url, ep.pid, ep.workspace, no_open, as_json, False)

        serve_ui(ws, token=token, port=port, on_ready=ready)


def _announce(
    url: str, link: str, pid: int, root: str, no_open: bool, as_json: bool, reused: bool
) -> None:
    opened = False
    if not no_open:
        opened = webbrowser.open(link)
    if as_json:
        click.echo(json.dumps({"url": url, "open_url": link, "pid": pid, "workspace": root,
                               "reused": reused, "opened": opened}))  # fmt: skip
    else:
        where = "already running" if reused else "serving"
        click.echo(f"nano-brain memory page for {root}: {where} on {url}")
        if opened:
            click.echo("opened in your browser")
        else:
            click.echo(f"open (works once): {link}")
        if not reused:
            click.echo("Ctrl-C stops it.")
    sys.stdout.flush()
