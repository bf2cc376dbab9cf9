"""The fixture project as a git repository with a history, and a decision an agent wrote
over MCP (the real SDK client talking to `nano-brain mcp` over stdio), anchored to code."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, stdio_client

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.indexing import index_workspace

from .conftest import BILLING

AGENT_DECISION = "Refunds stop after thirty days"
REFUND_COMMIT = "billing: no refunds after 30 days (NB-12)"


def _git(root: Path, *args: str, when: int) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Grace Hopper",
        "GIT_AUTHOR_EMAIL": "grace@example.com",
        "GIT_COMMITTER_NAME": "Grace Hopper",
        "GIT_COMMITTER_EMAIL": "grace@example.com",
        "GIT_AUTHOR_DATE": f"{when} +0000",
        "GIT_COMMITTER_DATE": f"{when} +0000",
    }
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def make_history(project: Path) -> None:
    """Two commits: the billing module, then the refund window (the file as the fixture has
    it); the project becomes a real repository."""
    if (project / ".git").is_dir() and not any((project / ".git").iterdir()):
        (project / ".git").rmdir()  # an empty marker folder some tests make
    _git(project, "init", "-q", "-b", "main", when=1_700_000_000)
    (project / "billing.py").write_text(
        BILLING.replace("days_since_purchase > 30", "days_since_purchase > 60"), encoding="utf-8"
    )
    _git(project, "add", "-A", when=1_700_000_000)
    _git(project, "commit", "-q", "-m", "billing: invoices and refunds", when=1_700_000_000)
    (project / "billing.py").write_text(BILLING, encoding="utf-8")
    _git(project, "commit", "-q", "-am", REFUND_COMMIT, when=1_700_086_400)


async def _mcp_write(project: Path, args: dict[str, Any]) -> dict[str, Any]:
    params = StdioServerParameters(
        command="nano-brain", args=["mcp", "--workspace", str(project)], env=dict(os.environ)
    )
    async with Client(stdio_client(params)) as client:
        result = await client.call_tool("memory_write", args)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content


def agent_decision(project: Path, symbol: str = "RefundPolicy.refund_amount") -> str:
    """Index the project (code and history), then have an agent write a decision anchored
    to ``symbol`` over MCP; returns the decision's id."""
    with Brain(project) as brain:
        index_workspace(CodeIndex(brain))
    written = anyio.run(
        _mcp_write,
        project,
        {
            "content": "No refunds after thirty days: the payment provider cannot reverse "
            "older charges, so refund_amount returns 0.",
            "title": AGENT_DECISION,
            "tags": ["decision"],
            "anchors": [symbol],
        },
    )
    assert [a["symbol"] for a in written["anchored_to"]] == [f"billing.py::{symbol}"]
    return str(written["document"]["id"])
