"""MCP for agents, served by the editor sidecar while it runs (same store, same rules).

Reuses the pieces `nano-brain serve` runs on (listener, guarded streamable-HTTP app, token,
endpoint file) but runs uvicorn on a background thread that the language server can stop on
``shutdown``, and removes the endpoint file it wrote. Agents find it via
``nano-brain mcp-config``, which reads the same 0600 endpoint file. `nano-brain lsp` hands
this class to `lsp.build_server` as the factory of its sidecars (the language server does
not import the MCP package).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path

import uvicorn

from ..serving.http import listener_url, open_listener, serve_announced, uvicorn_server
from ..serving.security import load_or_create_token
from ..serving.statefiles import (
    Endpoint,
    remove_endpoint,
    token_path,
    workspace_state_dir,
    write_endpoint,
)
from ..workspace import Workspace
from .transports import MCP_PATH, build_http_app

log = logging.getLogger(__name__)

_MAX_UNIX_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS


class McpSidecar:
    """One workspace's MCP HTTP server on a thread; ``start`` returns once it listens."""

    def __init__(self, workspace: Workspace, *, transport: str = "unix", port: int = 0) -> None:
        self.workspace = workspace
        self.transport = transport
        self.port = port
        self.endpoint: Endpoint | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 10.0) -> Endpoint:
        """Listen, serve on a thread, and return where once it accepts connections."""
        wid = self.workspace.brain.workspace_id
        token = load_or_create_token(wid)
        socket_path: Path | None = None
        if self.transport == "unix":
            socket_path = workspace_state_dir(wid) / "mcp.sock"
            if len(str(socket_path)) > _MAX_UNIX_PATH:
                log.info("state dir path too long for a unix socket; using a loopback port")
                socket_path = None
        sock = open_listener("127.0.0.1", self.port, socket_path)
        endpoint = self.endpoint = Endpoint(
            url=listener_url(sock, socket_path, MCP_PATH),
            socket=str(socket_path) if socket_path else None,
            auth=True,
            token_file=str(token_path(wid)),
            pid=os.getpid(),
            workspace=str(self.workspace.root),
        )
        server = self._server = uvicorn_server(build_http_app(self.workspace, token=token))
        ready = threading.Event()

        def started() -> None:
            write_endpoint(wid, endpoint)
            ready.set()

        def main() -> None:
            try:
                asyncio.run(serve_announced(server, sock, started))
            except Exception:
                log.exception("MCP sidecar for %s stopped", self.workspace.root)
            finally:
                ready.set()
                sock.close()
                if socket_path is not None:
                    socket_path.unlink(missing_ok=True)

        self._thread = threading.Thread(target=main, name="nano-brain-mcp", daemon=True)
        self._thread.start()
        ready.wait(timeout)
        if not server.started:
            raise RuntimeError("the MCP server did not start")
        return endpoint

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and remove the endpoint file (if this process still owns it)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        remove_endpoint(self.workspace.brain.workspace_id)
