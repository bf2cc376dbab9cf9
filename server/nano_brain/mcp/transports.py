"""Run a workspace's MCP server over stdio, or streamable HTTP on loopback / a unix socket.

The listener, uvicorn and the endpoint files come from `nano_brain.serving`. While an HTTP
server runs, `<state>/workspaces/<id>/mcp-endpoint.json` says where it is, so
`nano-brain mcp-config` can print ready-to-paste client settings.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import anyio
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from ..brief.hookio import MAX_INPUT_BYTES
from ..brief.sidecar import SidecarBriefs
from ..serving.http import (
    listener_url,
    open_listener,
    serve_until_stopped,
    uvicorn_server,
)
from ..serving.security import HttpGuard, check_bind
from ..serving.statefiles import Endpoint, remove_endpoint, token_path, write_endpoint
from ..workspace import Workspace
from .registry import BUILTIN_TOOL_MODULES
from .server import build_server
from .stdio import stdio_streams

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"


def run_stdio(workspace: Workspace, *, modules: Iterable[str] = BUILTIN_TOOL_MODULES) -> None:
    """Serve one client on stdin/stdout until it closes them (stdout carries protocol only)."""
    server = build_server(workspace, modules=modules)

    async def main() -> None:
        async with stdio_streams(max_message_bytes(workspace)) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def max_message_bytes(workspace: Workspace) -> int:
    """The largest request either transport reads: room for a note at the content cap,
    JSON-escaped, so an oversize note is answered by the tool with a clear error instead of
    being cut off by the transport."""
    return max(DEFAULT_MAX_REQUEST_BODY_SIZE, 2 * workspace.config.storage.max_content_bytes) + (
        1 << 20
    )


def build_http_app(
    workspace: Workspace,
    *,
    token: str | None,
    allow_remote: bool = False,
    modules: Iterable[str] = BUILTIN_TOOL_MODULES,
) -> ASGIApp:
    """The streamable-HTTP app at /mcp behind the Host/Origin/token guard."""
    server = build_server(workspace, modules=modules)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=True,
        max_request_body_size=max_message_bytes(workspace),
        # Host/Origin are checked by HttpGuard, before the token, for every route.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app.router.routes.append(hooks_route(workspace))
    return HttpGuard(app, token=token, allow_remote=allow_remote)


def hooks_route(workspace: Workspace) -> Route:
    """``POST /hooks/<agent>/<event>``: agent hooks answered by this server (`brief.sidecar`);
    200 with the agent's JSON output, or 204 when there is nothing to add."""
    briefs = SidecarBriefs(workspace)

    async def hook(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_INPUT_BYTES:
            return Response(status_code=204)
        agent, event = request.path_params["agent"], request.path_params["event"]
        output = await anyio.to_thread.run_sync(briefs.handle, agent, event, body)
        return Response(status_code=204) if output is None else JSONResponse(output)

    return Route("/hooks/{agent}/{event}", hook, methods=["POST"])


def serve_http(
    workspace: Workspace,
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
        url=listener_url(sock, socket_path, MCP_PATH),
        socket=str(socket_path.expanduser().absolute()) if socket_path else None,
        auth=token is not None,
        token_file=str(token_path(workspace.brain.workspace_id)) if token else None,
        pid=os.getpid(),
        workspace=str(workspace.root),
    )
    server = uvicorn_server(
        build_http_app(workspace, token=token, allow_remote=allow_remote, modules=modules)
    )

    def started() -> None:
        write_endpoint(workspace.brain.workspace_id, endpoint)
        log.info("serving MCP on %s", endpoint.socket or endpoint.url)
        if on_ready is not None:
            on_ready(endpoint)

    try:
        serve_until_stopped(server, sock, started)
    finally:
        if socket_path is not None and endpoint.socket:
            Path(endpoint.socket).unlink(missing_ok=True)
        remove_endpoint(workspace.brain.workspace_id)
