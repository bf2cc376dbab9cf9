"""`nano-brain ui`: serve the memory page on loopback and hand the browser a one-time link.

While it runs, `<state>/workspaces/<id>/ui-endpoint.json` (0600) says where, so a second
`nano-brain ui` for the workspace asks the running server for a fresh one-time code (with the
workspace token) and opens that instead of starting another server.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInputError
from ..serving.http import (
    listener_url,
    open_listener,
    serve_until_stopped,
    uvicorn_server,
)
from ..serving.security import check_bind
from ..serving.statefiles import (
    is_running,
    read_private,
    remove_own,
    workspace_state_dir,
    write_private,
)
from ..workspace import Workspace
from .app import build_app
from .session import PageSessions

log = logging.getLogger(__name__)

ENDPOINT_FILE = "ui-endpoint.json"


@dataclass(frozen=True, slots=True)
class UiEndpoint:
    """Where a running memory page is; `open_url` carries a one-time code (works once)."""

    url: str
    open_url: str
    pid: int
    workspace: str


def endpoint_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / ENDPOINT_FILE


def read_running(workspace_id: str) -> tuple[str, int] | None:
    """(url, pid) of this workspace's running page server, if its process is alive."""
    try:
        data = json.loads(read_private(endpoint_path(workspace_id)))
    except (OSError, ValueError, InvalidInputError):
        return None
    if not isinstance(data, dict):
        return None
    url, pid = data.get("url"), data.get("pid")
    if not isinstance(url, str) or type(pid) is not int or not 0 < pid < 2**31:
        return None
    if not url.startswith("http://127.0.0.1:") and not url.startswith("http://[::1]:"):
        return None  # only ever a loopback address of our own making
    return (url, pid) if is_running(pid) else None


def fresh_link(url: str, token: str) -> str | None:
    """A one-time link from a running page server, or None when it does not answer."""
    import httpx

    try:
        response = httpx.post(
            f"{url}api/code", headers={"Authorization": f"Bearer {token}"}, timeout=5
        )
        code = response.json().get("code") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return f"{url}#code={code}" if isinstance(code, str) and code else None


def serve_ui(
    workspace: Workspace,
    *,
    token: str,
    host: str = "127.0.0.1",
    port: int = 0,
    on_ready: Callable[[UiEndpoint], None] | None = None,
) -> None:
    """Serve the page until SIGINT/SIGTERM; loopback only. `token` (the workspace's) only
    mints one-time codes; each code buys a page token of this server's own."""
    check_bind(host, auth=True, allow_remote=False)
    sessions = PageSessions()
    sock = open_listener(host, port, None)
    url = listener_url(sock, None, "/")
    endpoint = UiEndpoint(url, f"{url}#code={sessions.mint()}", os.getpid(), str(workspace.root))
    server = uvicorn_server(build_app(workspace, token=token, sessions=sessions))
    path = endpoint_path(workspace.brain.workspace_id)

    def started() -> None:
        write_private(path, json.dumps({"url": url, "pid": endpoint.pid,
                                        "workspace": endpoint.workspace}))  # fmt: skip
        log.info("serving the memory page on %s", url)
        if on_ready is not None:
            on_ready(endpoint)

    try:
        serve_until_stopped(server, sock, started)
    finally:
        remove_own(path)
