"""MCP front ends: `nano-brain mcp` (stdio), `serve` (HTTP / unix socket), `mcp-config`."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import paths
from ..errors import InvalidInputError
from ..mcp import client_config
from ..mcp.registry import BUILTIN_TOOL_MODULES
from ..serving.security import is_loopback, load_or_create_token
from ..serving.statefiles import read_endpoint, token_path
from ._app import db_option, main, open_workspace, workspace_option

if TYPE_CHECKING:
    from ..serving.statefiles import Endpoint
    from ..workspace import Workspace

_extra_tools = click.option(
    "--extra-tools",
    multiple=True,
    hidden=True,
    help="Import MODULE and call its register(registry) too (test fixtures, plugins).",
)


def _open(workspace: Path | None, db: Path | None) -> Workspace:
    ws = open_workspace(workspace, db, create=True, actor="mcp")
    # a server lives long: writes are acknowledged at once and embedded in the background,
    # and whatever an earlier process left pending is caught up now
    ws.brain.embedder.start()
    return ws


@main.command("mcp")
@workspace_option
@db_option
@_extra_tools
def mcp_stdio(workspace: Path | None, db: Path | None, extra_tools: tuple[str, ...]) -> None:
    """Serve this workspace's memory to one agent over stdio (the agent starts this)."""
    with _open(workspace, db) as ws:
        from ..mcp.transports import run_stdio  # the MCP SDK: only when serving

        run_stdio(ws, modules=(*BUILTIN_TOOL_MODULES, *extra_tools))


@main.command()
@workspace_option
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port (default: free).")
@click.option(
    "--socket",
    "socket_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Listen on this unix socket (mode 0600) instead of TCP.",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow binding a non-loopback address and non-loopback Host headers (token required).",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Serve without a bearer token: loopback or unix socket only, never with "
    "--allow-remote (for local test suites such as the MCP conformance suite).",
)
@_extra_tools
@click.option("--json", "as_json", is_flag=True, help="Print the endpoint as JSON when ready.")
def serve(
    workspace: Path | None,
    db: Path | None,
    host: str,
    port: int,
    socket_path: Path | None,
    allow_remote: bool,
    no_auth: bool,
    extra_tools: tuple[str, ...],
    as_json: bool,
) -> None:
    """Serve this workspace's memory over streamable HTTP (loopback or a unix socket)."""
    if no_auth and (allow_remote or (socket_path is None and not is_loopback(host))):
        raise InvalidInputError("--no-auth is only allowed on loopback or a unix socket")
    from ..mcp.transports import serve_http

    with _open(workspace, db) as ws:
        token = None if no_auth else load_or_create_token(ws.brain.workspace_id)

        def ready(endpoint: Endpoint) -> None:
            if as_json:
                click.echo(json.dumps(endpoint._asdict()))
            else:
                where = f"unix socket {endpoint.socket}" if endpoint.socket else endpoint.url
                auth = "bearer token (see `nano-brain mcp-config`)" if endpoint.auth else "NO AUTH"
                click.echo(f"nano-brain MCP for {endpoint.workspace} on {where}; {auth}")
            sys.stdout.flush()

        serve_http(
            ws,
            host=host,
            port=port,
            socket_path=socket_path,
            token=token,
            allow_remote=allow_remote,
            modules=(*BUILTIN_TOOL_MODULES, *extra_tools),
            on_ready=ready,
        )


def _own_command() -> str:
    """This installation's `nano-brain`, by absolute path: an agent starts the command with
    its own PATH, which need not hold a venv's or pipx's bin folder. The script that is
    running (a pipx link keeps its name, surviving upgrades), else the one installed beside
    this interpreter, else the one on PATH; the bare name when none is found."""
    running = Path(sys.argv[0])
    if running.name == client_config.COMMAND and running.is_file():
        return os.path.abspath(running)
    beside = Path(sys.executable).with_name(client_config.COMMAND)
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(client_config.COMMAND) or client_config.COMMAND


@main.command("mcp-config")
@workspace_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def mcp_config(workspace: Path | None, as_json: bool) -> None:
    """Print the HTTP endpoint, the bearer token and snippets for agent clients."""
    root = paths.workspace_root(workspace)
    if not root.is_dir():
        raise InvalidInputError(f"workspace {root} is not a directory")
    wid = paths.workspace_id(root)
    token = load_or_create_token(wid)
    endpoint = read_endpoint(wid)
    url = (
        endpoint.url
        if endpoint and not endpoint.socket
        else (f"http://127.0.0.1:{client_config.SUGGESTED_PORT}/mcp")
    )
    command = _own_command()
    items = client_config.snippets(str(root), url, command)
    data = {
        "workspace": str(root),
        "command": command,
        "workspace_id": wid,
        "running": endpoint._asdict() if endpoint else None,
        "url": url,
        "token": token,
        "token_file": str(token_path(wid)),
        "token_env": client_config.TOKEN_ENV,
        "snippets": [asdict(s) for s in items],
    }
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"workspace   {root}")
    click.echo(f"command     {command}")
    if endpoint:
        click.echo(f"running     {endpoint.socket or endpoint.url} (pid {endpoint.pid})")
    else:
        click.echo(
            f"running     no HTTP server; start one with: nano-brain serve --workspace {root} "
            f"--port {client_config.SUGGESTED_PORT}"
        )
    click.echo(f"url         {url}")
    click.echo(f"token       {token}")
    click.echo(f"token file  {token_path(wid)} (mode 0600)")
    click.echo(
        f"\nHTTP clients read the token from ${client_config.TOKEN_ENV}:\n"
        f'  export {client_config.TOKEN_ENV}="$(cat {token_path(wid)})"'
    )
    for s in items:
        click.echo(f"\n# {s.client} ({s.transport}) - {s.where}\n{s.text}")
