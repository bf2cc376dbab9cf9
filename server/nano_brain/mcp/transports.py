"""Run a workspace's MCP server over stdio, or streamable HTTP on loopback / a unix socket.

HTTP listeners are opened here (not by uvicorn) so a free port is known before serving
starts and a unix socket is 0600 before it accepts its first connection. While an HTTP
server runs, `<state>/workspaces/<id>/mcp-endpoint.json` says where it is, so
`nano-brain mcp-config` can print ready-to-paste client settings.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import stat
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.types import ASGIApp

from ..brain import Brain
from ..errors import InvalidInputError
from .registry import BUILTIN_TOOL_MODULES
from .security import HttpGuard, check_bind
from .server import build_server
from .statefiles import Endpoint, remove_endpoint, token_path, write_endpoint
from .statefiles import read_endpoint as read_endpoint  # `nano-brain mcp-config` imports it here
from .stdio import stdio_streams

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"


def run_stdio(brain: Brain, *, modules: Iterable[str] = BUILTIN_TOOL_MODULES) -> None:
    """Serve one client on stdin/stdout until it closes them (stdout carries protocol only)."""
    server = build_server(brain, modules=modules)

    async def main() -> None:
        async with stdio_streams(max_message_bytes(brain)) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def max_message_bytes(brain: Brain) -> int:
    """The largest request either transport reads: room for a note at the content cap,
    JSON-escaped, so an oversize note is answered by the tool with a clear error instead of
    being cut off by the transport."""
    return max(DEFAULT_MAX_REQUEST_BODY_SIZE, 2 * brain.config.storage.max_content_bytes) + (
        1 << 20
    )


def build_http_app(
    brain: Brain,
    *,
    token: str | None,
    allow_remote: bool = False,
    modules: Iterable[str] = BUILTIN_TOOL_MODULES,
) -> ASGIApp:
    """The streamable-HTTP app at /mcp behind the Host/Origin/token guard."""
    server = build_server(brain, modules=modules)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=True,
        max_request_body_size=max_message_bytes(brain),
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
    endpoint = Endpoint(
        url=listener_url(sock, socket_path),
        socket=str(socket_path.expanduser().absolute()) if socket_path else None,
        auth=token is not None,
        token_file=str(token_path(brain.workspace_id)) if token else None,
        pid=os.getpid(),
        workspace=str(brain.root),
    )
    server = uvicorn_server(
        build_http_app(brain, token=token, allow_remote=allow_remote, modules=modules)
    )

    def started() -> None:
        write_endpoint(brain.workspace_id, endpoint)
        log.info("serving MCP on %s", endpoint.socket or endpoint.url)
        if on_ready is not None:
            on_ready(endpoint)

    previous = _absorb_resent_signals()
    try:
        asyncio.run(serve_announced(server, sock, started))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
        if socket_path is not None and endpoint.socket:
            Path(endpoint.socket).unlink(missing_ok=True)
        remove_endpoint(brain.workspace_id)


def listener_url(sock: socket.socket, socket_path: Path | None) -> str:
    """The URL clients use: `http://localhost/mcp` over a unix socket, else host:port."""
    if socket_path is not None:
        return f"http://localhost{MCP_PATH}"
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MCP_PATH}"


def uvicorn_server(app: ASGIApp) -> uvicorn.Server:
    """uvicorn for our app: no logging config of its own, no access log (URLs stay private)."""
    config = uvicorn.Config(
        app, log_config=None, log_level="warning", access_log=False, lifespan="on"
    )
    return uvicorn.Server(config)


async def serve_announced(
    server: uvicorn.Server, sock: socket.socket, on_started: Callable[[], None]
) -> None:
    """Serve on `sock` until stopped; `on_started` runs once it accepts connections (the
    moment to write the endpoint file), never if startup fails."""
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.005)
    if server.started:
        on_started()
    await task


def _absorb_resent_signals() -> dict[int, Any]:
    """uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown; absorb that re-raise so
    the socket and endpoint files are cleaned up and the process exits 0."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
