"""The MCP servers the editor sidecar hosts for agents, one per open workspace folder.

The language server does not build them: `nano-brain lsp` passes a factory to
`build_server` (`mcp.sidecar.McpSidecar`), typed here by `SidecarFactory`, so lsp/ imports
nothing of the MCP package. Without a factory no folder gets one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from lsprotocol import types as lsp

from ..serving.statefiles import Endpoint
from ..workspace import Workspace
from .options import McpOptions
from .workspaces import Folder

log = logging.getLogger(__name__)


class Sidecar(Protocol):
    """One folder's MCP server, listening from `start` until `stop`."""

    @property
    def endpoint(self) -> Endpoint | None:
        """Where it listens, once started."""
        ...

    def start(self) -> Endpoint:
        """Listen and serve (on a thread of its own); raises when it cannot."""
        ...

    def stop(self) -> None:
        """Stop serving and remove its endpoint file."""
        ...


class SidecarFactory(Protocol):
    """Builds a folder's (not yet started) MCP server."""

    def __call__(self, workspace: Workspace, *, transport: str, port: int) -> Sidecar: ...


class Sidecars:
    """The running sidecars by folder root; `log` reaches the client's log."""

    def __init__(
        self, factory: SidecarFactory | None, log: Callable[[lsp.MessageType, str], None]
    ) -> None:
        self._factory = factory
        self._log = log
        self._running: dict[Path, Sidecar] = {}

    def start(self, folder: Folder, options: McpOptions) -> None:
        """Start the folder's MCP server (on the indexer thread, after the first pass was
        queued); a failure is logged, and the editor keeps working without it."""
        if self._factory is None:
            log.debug("no MCP sidecar for %s: none can be built here", folder.root)
            return
        try:
            sidecar = self._factory(
                folder.workspace, transport=options.transport, port=options.port
            )
            endpoint = sidecar.start()
        except Exception as exc:  # agents lose MCP; the editor keeps working
            self._log(lsp.MessageType.Warning, f"MCP for {folder.root} not started: {exc}")
            return
        self._running[folder.root] = sidecar
        self._log(lsp.MessageType.Info, f"MCP for {folder.root} on {_where(endpoint)}")

    def stop(self, root: Path) -> None:
        sidecar = self._running.pop(root, None)
        if sidecar is not None:
            sidecar.stop()

    def stop_all(self) -> None:
        for sidecar in list(self._running.values()):
            sidecar.stop()
        self._running.clear()

    def where(self, root: Path) -> str | None:
        """The folder's MCP socket or URL, for status requests; None when not serving."""
        sidecar = self._running.get(root)
        endpoint = sidecar.endpoint if sidecar is not None else None
        return _where(endpoint) if endpoint is not None else None


def _where(endpoint: Endpoint) -> str:
    return endpoint.socket or endpoint.url
