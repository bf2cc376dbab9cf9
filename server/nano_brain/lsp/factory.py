"""`build_server`: a fresh language server with every handler registered."""

from __future__ import annotations

from . import handlers_commands, handlers_documents, handlers_features, handlers_lifecycle
from .server import NanoBrainServer
from .sidecars import SidecarFactory


def build_server(mcp_sidecar: SidecarFactory | None = None) -> NanoBrainServer:
    """A fresh server with every feature registered (one per process or per test);
    ``mcp_sidecar`` builds each folder's MCP server for agents (none without it)."""
    server = NanoBrainServer(mcp_sidecar)
    for handlers in (handlers_lifecycle, handlers_documents, handlers_features, handlers_commands):
        handlers.register(server)
    return server
