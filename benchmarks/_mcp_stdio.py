"""Drive `nano-brain mcp` over stdio with the official MCP SDK client, as an agent does.

Shared by the evals' `--mcp` paths: one server process per session, isolated XDG dirs, the
workspace's default config (nothing overridden unless the caller asks).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters


def isolated_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a server whose config, data and state live under `home`.

    The model cache (XDG_CACHE_HOME) is kept: it only holds the derived int8 model.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    env.update(extra or {})
    return env


@asynccontextmanager
async def mcp_session(workspace: Path, db: Path, env: dict[str, str]) -> AsyncIterator[Client]:
    """An SDK client connected to a fresh `nano-brain mcp` on `workspace` and store `db`."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "nano_brain", "mcp", "--workspace", str(workspace), "--db", str(db)],
        env=env,
    )
    async with Client(params) as client:
        yield client


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool and return its structured result; a tool error stops the eval."""
    result = await client.call_tool(tool, args)
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        raise SystemExit(f"{tool} failed: {text}")
    if result.structured_content is not None:
        return dict(result.structured_content)
    return json.loads(result.content[0].text)  # type: ignore[union-attr]
