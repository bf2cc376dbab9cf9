"""While the sidecar runs, agents reach the same store over MCP on a 0600 unix socket."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
from pathlib import Path

import httpx

from nano_brain import paths
from nano_brain.serving.statefiles import endpoint_path

from .conftest import start, stop


def test_sidecar_serves_mcp_with_token_and_mcp_config_finds_it(project: Path) -> None:
    wid = paths.workspace_id(project.resolve())

    async def body() -> None:
        session = await start(project)
        try:
            await session.indexed()
            marker = endpoint_path(wid)
            await session.wait_for(marker.exists, 20)
            assert stat.S_IMODE(marker.stat().st_mode) == 0o600
            endpoint = json.loads(marker.read_text())
            assert endpoint["pid"] != os.getpid() and endpoint["socket"]
            assert stat.S_IMODE(os.stat(endpoint["socket"]).st_mode) == 0o600
            config = subprocess.run(
                ["nano-brain", "mcp-config", "--json", "-w", str(project)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            data = json.loads(config.stdout)
            assert data["running"]["socket"] == endpoint["socket"]
            transport = httpx.AsyncHTTPTransport(uds=endpoint["socket"])
            request = {
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}},
            }  # fmt: skip
            headers = {"accept": "application/json, text/event-stream"}
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
                denied = await c.post("/mcp", json=request, headers=headers)
                assert denied.status_code == 401
                auth = {**headers, "authorization": f"Bearer {data['token']}"}
                ok = await c.post("/mcp", json=request, headers=auth)
                assert ok.status_code == 200 and ok.json()["result"]["serverInfo"]["name"]
        finally:
            await stop(session)
        assert not endpoint_path(wid).exists()  # removed on shutdown

    asyncio.run(body())
