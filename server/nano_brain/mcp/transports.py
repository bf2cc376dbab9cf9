"""Run a workspace's MCP server over stdio, or streamable HTTP on loopback / a unix socket.

HTTP listeners are opened here (not by uvicorn) so a free port is known before serving
starts and a unix socket is 0600 before it accepts its first connection. While an HTTP
server runs, `<state>/workspaces/<id>/mcp-endpoint.json` says where it is, so
`nano-brain mcp-config` can print ready-to-paste client settings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import stat
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.types import ASGIApp

from ..brain import Brain
from ..errors import InvalidInputError
from .registry import BUILTIN_TOOL_MODULES
from .security import HttpGuard, check_bind, token_path, workspace_state_dir
from .server import build_server

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a running HTTP server listens; also the content of the endpoint file."""

    url: str
    socket: str | None
    auth: bool
    token_file: str | None
    pid: int
    workspace: str


def endpoint_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / "mcp-endpoint.json"


def read_endpoint(workspace_id: str) -> Endpoint | None:
    """The endpoint of this workspace's running server, if its process is still alive."""
    path = endpoint_path(workspace_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        endpoint = Endpoint(**data)
        os.kill(endpoint.pid, 0)
    except (OSError, ValueError, TypeError):
        return None
    return endpoint


def run_stdio(brain: Brain, *, modules: Iterable[str] = BUILTIN_TOOL_MODULES) -> None:
    """Serve one client on stdin/stdout until it closes them (stdout carries protocol only)."""
    server = build_server(brain, modules=modules)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def build_http_app(
    brain: Brain,
    *,
    token: str | None,
    allow_remote: bool = False,
    modules: Iterable[str] = BUILTIN_TOOL_MODULES,
) -> ASGIApp:
    """The streamable-HTTP app at /mcp behind the Host/Origin/token guard."""
    server = build_server(brain, modules=modules)
    # Room for a note at the content cap (JSON-escaped), so an oversize note is answered
    # by the tool with a clear error instead of a bare HTTP 413.
    body_limit = max(DEFAULT_MAX_REQUEST_BODY_SIZE, 2 * brain.config.storage.max_content_bytes)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=True,
        max_request_body_size=body_limit + (1 << 20),
        # Host/Origin are checked by HttpGuard, before the token, for every route.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return HttpGuard(app, token=token, allow_remote=allow_remote)


def open_listener(host: str, port: int, socket_path: Path | None) -> socket.socket:
    """A listening socket: TCP on host:port (0 = a free port) or a 0600 unix socket."""
    if socket_path is not None:
        return _unix_listener(socket_path)
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InvalidInputError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(128)
    return sock


def _unix_listener(path: Path) -> socket.socket:
    path = path.expanduser().absolute()
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise InvalidInputError(f"{path} exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # a stale socket left by a server that died
        else:
            raise InvalidInputError(f"another server is already listening on {path}")
        finally:
            probe.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)  # the socket is born 0600: no window where others may connect
    try:
        sock.bind(str(path))
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    sock.listen(128)
    return sock


def serve_http(
    brain: Brain,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    socket_path: Path | None = None,
    token: str | None,
    allow_remote: bool = False,
    modules: Iterable[str] = BUILTIN_TOOL_MODULES,
    on_ready: Callable[[Endpoint], None] | None = None,
) -> None:
    """Serve until SIGINT/SIGTERM. `token=None` (no auth) is allowed on loopback only."""
    if socket_path is None:
        check_bind(host, auth=token is not None, allow_remote=allow_remote)
    sock = open_listener(host, port, socket_path)
    if socket_path is not None:
        url = f"http://localhost{MCP_PATH}"
    else:
        bound = sock.getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        url = f"http://{shown}:{bound[1]}{MCP_PATH}"
    endpoint = Endpoint(
        url=url,
        socket=str(socket_path.expanduser().absolute()) if socket_path else None,
        auth=token is not None,
        token_file=str(token_path(brain.workspace_id)) if token else None,
        pid=os.getpid(),
        workspace=str(brain.root),
    )
    app = build_http_app(brain, token=token, allow_remote=allow_remote, modules=modules)
    config = uvicorn.Config(
        app, log_config=None, log_level="warning", access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    marker = endpoint_path(brain.workspace_id)
    previous = _absorb_resent_signals()
    try:
        asyncio.run(_serve(server, sock, endpoint, marker, on_ready))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
        if socket_path is not None and endpoint.socket:
            Path(endpoint.socket).unlink(missing_ok=True)
        _remove_marker(marker)


async def _serve(
    server: uvicorn.Server,
    sock: socket.socket,
    endpoint: Endpoint,
    marker: Path,
    on_ready: Callable[[Endpoint], None] | None,
) -> None:
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.005)
    if server.started:
        _write_marker(marker, endpoint)
        log.info("serving MCP on %s", endpoint.socket or endpoint.url)
        if on_ready is not None:
            on_ready(endpoint)
    await task


def _absorb_resent_signals() -> dict[int, Any]:
    """uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown; absorb that re-raise so
    the socket and endpoint files are cleaned up and the process exits 0."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}


def _write_marker(marker: Path, endpoint: Endpoint) -> None:
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(endpoint)), encoding="utf-8")
    os.chmod(tmp, 0o600)
    tmp.replace(marker)


def _remove_marker(marker: Path) -> None:
    try:
        data: dict[str, Any] = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if data.get("pid") == os.getpid():
        marker.unlink(missing_ok=True)
