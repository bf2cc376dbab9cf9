"""MCP: an agent anchors what it decides (memory_write anchors, memory_anchor,
memory_unanchor), reads "why" (code_why), and finds commits (memory_query kind commit)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import make_env, nano_brain_command, stdio_client

pytestmark = pytest.mark.anyio

CODE = """def checkout(cart):
    return sum(cart)


def helper():
    return 1
"""


def _git(root: Path, *args: str) -> None:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}  # fmt: skip
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


async def test_agent_anchors_decisions_and_reads_why(tmp_path: Path, _mcp_store: str) -> None:
    # the git history is per clone, like the code index: a team store's clone keeps it in its
    # own file (never in the team's database) and shows it as a local store does
    env = make_env(tmp_path)
    ws = env.workspace
    (ws / "shop.py").write_text(CODE)
    (ws / "other").mkdir()
    (ws / "other" / "util.py").write_text("def helper():\n    return 2\n")
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "shop: checkout sums the cart (NB-3)")
    subprocess.run([*nano_brain_command(), "index", "--no-embed", "-w", str(ws)],
                   env=env.vars, check=True, capture_output=True)  # fmt: skip

    async with stdio_client(env) as client:

        async def call(tool: str, args: dict[str, Any]) -> Any:
            return await client.call_tool(tool, args)

        wrote = await call("memory_write", {
            "content": "Checkout never rounds: the payment provider rounds.",
            "title": "Checkout does not round", "tags": ["decision"], "anchors": ["checkout"],
        })  # fmt: skip
        assert not wrote.is_error, wrote.content
        data = wrote.structured_content
        assert [a["symbol"] for a in data["anchored_to"]] == ["shop.py::checkout"]
        assert data["document"]["author"] == "mcp"
        note = data["document"]["id"]

        ambiguous = await call("memory_write", {"content": "Helpers are pure.",
                                                "anchors": ["helper"]})  # fmt: skip
        assert ambiguous.is_error
        message = ambiguous.content[0].text  # type: ignore[union-attr]
        assert "shop.py::helper" in message and "other/util.py::helper" in message
        assert "\n" not in message
        found = await call("memory_query", {"query": "helpers are pure"})
        assert not found.is_error, found.content
        assert all(r["title"] != "Helpers are pure." for r in found.structured_content["results"])

        view = await call("code_why", {"symbol": "checkout", "related": 0})
        assert not view.is_error, view.content
        why = view.structured_content
        assert [n["id"] for n in why["notes"]] == [note]
        assert why["notes"][0]["author"] == "agent (MCP)"
        assert [c["subject"] for c in why["commits"]] == ["shop: checkout sums the cart (NB-3)"]
        assert view.content[0].text == why["text"]  # type: ignore[union-attr]

        moved = await call("memory_anchor", {"id": f"#{note}", "symbol": "shop.py::helper"})
        assert moved.structured_content["symbol"] == "shop.py::helper"
        gone = await call("memory_unanchor", {"id": note, "symbol": "checkout"})
        assert gone.structured_content == {"removed": True}
        again = await call("code_why", {"symbol": "checkout", "related": 0})
        assert again.structured_content["notes"] == []

        commits = await call("memory_query", {"query": "checkout sums", "kind": ["commit"]})
        kinds = [r["kind"] for r in commits.structured_content["results"]]
        assert kinds == ["commit"]
        unknown = await call("memory_anchor", {"id": note, "symbol": "nothing_here"})
        assert unknown.is_error and "no symbol" in unknown.content[0].text  # type: ignore[union-attr]
