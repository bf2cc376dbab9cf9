"""MCP front ends: `nano-brain mcp` (stdio), `serve` (HTTP / unix socket), `mcp-config`."""
