"""MCP for agents, served by the editor sidecar while it runs (same store, same rules).

Reuses the MCP package's pieces (listener, guarded streamable-HTTP app, token, endpoint
file format) but runs uvicorn on a background thread that the language server can stop on
``shutdown``, and removes the endpoint file it wrote. Agents find it via
``nano-brain mcp-config``, which reads the same 0600 endpoint file.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from dataclasses import asdict
from pathlib import Path

import uvicorn

from ..brain import Brain
from ..mcp.security import load_or_create_token, token_path, workspace_state_dir
from ..mcp.transports import MCP_PATH, Endpoint, build_http_app, endpoint_path, open_listener

log = logging.getLogger(__name__)

_MAX_UNIX_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS


class McpSidecar:
    """One workspace's MCP HTTP server on a thread; ``start`` returns once it listens."""

    def __init__(self, brain: Brain, *, transport: str = "unix", port: int = 0) -> None:
        self.brain = brain
        self.transport = transport
        self.port = port
        self.endpoint: Endpoint | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._marker = endpoint_path(brain.workspace_id)

    def start(self, timeout: float = 10.0) -> Endpoint:
        token = load_or_create_token(self.brain.workspace_id)
        socket_path: Path | None = None
        if self.transport == "unix":
            socket_path = workspace_state_dir(self.brain.workspace_id) / "mcp.sock"
            if len(str(socket_path)) > _MAX_UNIX_PATH:
                log.info("state dir path too long for a unix socket; using a loopback port")
                socket_path = None
        sock = open_listener("127.0.0.1", self.port, socket_path)
        if socket_path is not None:
            url = f"http://localhost{MCP_PATH}"
        else:
            host, port = sock.getsockname()[:2]
            url = f"http://{host}:{port}{MCP_PATH}"
        self.endpoint = Endpoint(
            url=url,
            socket=str(socket_path) if socket_path else None,
            auth=True,
            token_file=str(token_path(self.brain.workspace_id)),
            pid=os.getpid(),
            workspace=str(self.brain.root),
        )
        app = build_http_app(self.brain, token=token)
        config = uvicorn.Config(
            app, log_config=None, log_level="warning", access_log=False, lifespan="on"
        )
        server = self._server = uvicorn.Server(config)
        ready = threading.Event()

        async def run() -> None:
            task = asyncio.create_task(server.serve(sockets=[sock]))
            while not server.started and not task.done():
                await asyncio.sleep(0.005)
            ready.set()
            await task

        def main() -> None:
            try:
                asyncio.run(run())
            except Exception:
                log.exception("MCP sidecar for %s stopped", self.brain.root)
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
        self._write_marker()
        return self.endpoint

    def stop(self, timeout: float = 5.0) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self._remove_marker()

    def _write_marker(self) -> None:
        assert self.endpoint is not None
        tmp = self._marker.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(asdict(self.endpoint)))
        os.chmod(tmp, 0o600)
        tmp.replace(self._marker)

    def _remove_marker(self) -> None:
        try:
            data = json.loads(self._marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if data.get("pid") == os.getpid():
            self._marker.unlink(missing_ok=True)
