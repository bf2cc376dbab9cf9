"""MCP: an agent cannot write to a source key an indexer owns (issue 31: `memory_write` with
`source_path` `git:<hash>` turned an indexed commit into the agent's text)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import make_env, nano_brain_command, stdio_client
from .test_tools import fails, ok
from .test_why_tools import _git

pytestmark = pytest.mark.anyio


async def test_memory_write_to_a_commit_key_is_an_error_and_writes_nothing(
    tmp_path: Path, _mcp_store: str
) -> None:
    env = make_env(tmp_path)
    ws = env.workspace
    (ws / "shop.py").write_text("def checkout(cart):\n    return sum(cart)\n")
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "shop: checkout sums the cart")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    subprocess.run([*nano_brain_command(), "index", "--no-embed", "-w", str(ws)],
                   env=env.vars, check=True, capture_output=True)  # fmt: skip

    async with stdio_client(env) as client:

        async def commit() -> Any:
            return await client.call_tool("memory_get", {"id": "git:" + head})

        before_status = await ok(client, "memory_status")
        before = await commit()
        assert not before.is_error  # a team store's clone keeps its history too
        for source in ("git:" + head, " GIT:" + head, "claude-code:/x.jsonl:1"):
            message = await fails(client, "memory_write", {
                "content": "spoofed commit", "source_path": source,
            })  # fmt: skip
            assert "reserved" in message, message
        message = await fails(client, "memory_write", {
            "content": "spoofed commit", "source_path": "git:" + head, "anchors": ["checkout"],
        })  # fmt: skip
        assert "git history index" in message
        after = await commit()
        after_status = await ok(client, "memory_status")
        assert after.structured_content == before.structured_content
        assert after_status["documents"] == before_status["documents"]
        assert after_status["chunks"] == before_status["chunks"]
        assert after.structured_content["title"] == "shop: checkout sums the cart"
        assert after.structured_content["version"] == 1
        view = await client.call_tool("code_why", {"symbol": "checkout", "related": 0})
        assert not view.is_error, view.content
        assert [c["hash"] for c in view.structured_content["commits"]] == [head]
