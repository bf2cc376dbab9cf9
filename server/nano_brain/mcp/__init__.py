"""nano-brain over MCP: the memory tools for agents, over stdio, loopback HTTP or a unix socket.

Nothing here knows SQL: every tool calls into the workspace (`nano_brain.workspace`: its Brain,
code index and history). See `registry` for how tools are declared and
`nano_brain.serving.security` for what protects the HTTP transport.
"""

import importlib
from typing import Any

# Loaded on first use: the MCP SDK, uvicorn and starlette cost ~0.5 s to import, which every
# CLI command (and the editor sidecar's start) would pay for nothing.
_EXPORTS = {
    "BUILTIN_TOOL_MODULES": "registry",
    "ToolRegistry": "registry",
    "ToolSpec": "registry",
    "load_registry": "registry",
    "HttpGuard": "..serving.security",
    "check_bind": "..serving.security",
    "load_or_create_token": "..serving.security",
    "token_path": "..serving.security",
    "build_server": "server",
    "Endpoint": "..serving.statefiles",
    "build_http_app": "transports",
    "read_endpoint": "..serving.statefiles",
    "run_stdio": "transports",
    "serve_http": "transports",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    relative = module if module.startswith(".") else f".{module}"
    return getattr(importlib.import_module(relative, __name__), name)


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
