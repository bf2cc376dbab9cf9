"""Ready-to-paste settings for Claude Code, Codex and Cursor (stdio and HTTP variants).

Pure functions of the workspace, the command and the endpoint, so `nano-brain mcp-config`
and the docs show the same text. HTTP snippets read the token from an environment variable
(`NANO_BRAIN_MCP_TOKEN`) instead of embedding it, so a committed `.mcp.json` or
`.cursor/mcp.json` never carries the secret.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

COMMAND = "nano-brain"
"""The console script's name; `nano-brain mcp-config` passes its absolute path instead."""
TOKEN_ENV = "NANO_BRAIN_MCP_TOKEN"
SERVER_KEY = "nano-brain"
SUGGESTED_PORT = 8765
"""A fixed port to suggest in snippets when no server is running (`serve` picks a free one)."""


@dataclass(frozen=True, slots=True)
class Snippet:
    client: str
    transport: str
    where: str
    text: str


def snippets(workspace: str, url: str, command: str = COMMAND) -> list[Snippet]:
    """Every client x transport snippet for this workspace and HTTP endpoint."""
    args = ["mcp", "--workspace", workspace]
    stdio_json = {"mcpServers": {SERVER_KEY: {"command": command, "args": args}}}
    claude_http = {
        "mcpServers": {
            SERVER_KEY: {
                "type": "http",
                "url": url,
                "headers": {"Authorization": f"Bearer ${{{TOKEN_ENV}}}"},
            }
        }
    }
    cursor_http = {
        "mcpServers": {
            SERVER_KEY: {
                "url": url,
                "headers": {"Authorization": f"Bearer ${{env:{TOKEN_ENV}}}"},
            }
        }
    }
    argv = " ".join(shlex.quote(a) for a in [command, *args])
    toml_args = ", ".join(json.dumps(a) for a in args)
    return [
        Snippet(
            "Claude Code",
            "stdio",
            "shell",
            f"claude mcp add --scope project {SERVER_KEY} -- {argv}",
        ),
        Snippet("Claude Code", "stdio", ".mcp.json", json.dumps(stdio_json, indent=2)),
        Snippet(
            "Claude Code",
            "http",
            "shell",
            f"claude mcp add --scope project --transport http {SERVER_KEY} {url} "
            f'--header "Authorization: Bearer ${TOKEN_ENV}"',
        ),
        Snippet("Claude Code", "http", ".mcp.json", json.dumps(claude_http, indent=2)),
        Snippet(
            "Codex",
            "stdio",
            "~/.codex/config.toml",
            f"[mcp_servers.{SERVER_KEY}]\ncommand = {json.dumps(command)}\nargs = [{toml_args}]",
        ),
        Snippet(
            "Codex",
            "http",
            "~/.codex/config.toml",
            f'[mcp_servers.{SERVER_KEY}]\nurl = "{url}"\nbearer_token_env_var = "{TOKEN_ENV}"',
        ),
        Snippet("Cursor", "stdio", ".cursor/mcp.json", json.dumps(stdio_json, indent=2)),
        Snippet("Cursor", "http", ".cursor/mcp.json", json.dumps(cursor_http, indent=2)),
    ]
