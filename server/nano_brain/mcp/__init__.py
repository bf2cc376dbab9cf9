"""nano-brain over MCP: the memory tools for agents, over stdio, loopback HTTP or a unix socket.

Nothing here knows SQL: every tool calls a Brain method. See `registry` for how tools are
declared and `security` for what protects the HTTP transport.
"""

from .registry import BUILTIN_TOOL_MODULES, ToolRegistry, ToolSpec, load_registry
from .security import HttpGuard, check_bind, load_or_create_token, token_path
from .server import build_server
from .transports import Endpoint, build_http_app, read_endpoint, run_stdio, serve_http

__all__ = [
    "BUILTIN_TOOL_MODULES",
    "Endpoint",
    "HttpGuard",
    "ToolRegistry",
    "ToolSpec",
    "build_http_app",
    "build_server",
    "check_bind",
    "load_or_create_token",
    "load_registry",
    "read_endpoint",
    "run_stdio",
    "serve_http",
    "token_path",
]
