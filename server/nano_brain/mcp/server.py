"""The MCP server for one workspace: the Workspace, the registered tools, nothing else.

Built on the SDK's low-level `Server` rather than the decorator-based `MCPServer`: the tool
schemas come from our pydantic models as they are (bounds, `additionalProperties: false`),
and validation runs once, here, so bad input gets one clear line instead of the SDK's
multi-line pydantic dump. Brain calls are blocking (SQLite, the embedding model), so they
run in a worker thread and the event loop keeps serving other sessions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from .. import __version__
from ..workspace import Workspace
from .registry import BUILTIN_TOOL_MODULES, ToolRegistry, load_registry

SERVER_NAME = "nano-brain"
INSTRUCTIONS = (
    "nano-brain is this workspace's memory: notes, decisions and summaries of past agent "
    "sessions. Call memory_wake_up at the start of a session, memory_query before working on "
    "a topic, and memory_write to save decisions and findings worth keeping. Correct outdated "
    "notes with memory_supersede or memory_retract instead of deleting them."
)


def build_server(
    workspace: Workspace,
    *,
    modules: Iterable[str] = BUILTIN_TOOL_MODULES,
    registry: ToolRegistry | None = None,
) -> Server[Any]:
    """A fresh server over `workspace` with the tools of `modules` (or a ready `registry`)."""
    tools_registry = registry if registry is not None else load_registry(modules)
    listed = types.ListToolsResult(tools=[spec.to_mcp() for spec in tools_registry.specs()])

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await anyio.to_thread.run_sync(
            tools_registry.call, workspace, params.name, params.arguments
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        title="nano-brain workspace memory",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
