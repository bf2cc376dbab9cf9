"""End to end, as an agent meets it: a decision anchored over MCP (the SDK client, the real
model) to `billing.py::charge`; then the hook before an edit of that function returns it, an
edit of another function and an unrelated prompt return nothing, with no server running and
through a running `nano-brain serve` (the hook forwards to it; Claude Code's HTTP hooks post
to its /hooks route)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.hooks._events import BILLING, CHARGE_LINE, DECISION, REFUND_LINE, event, run_hook
from tests.mcp.conftest import Env, make_env, nano_brain_command, start_serve, stdio_client


def _anchor_over_mcp(env: Env) -> str:
    async def write() -> str:
        async with stdio_client(env) as client:
            result = await client.call_tool(
                "memory_write",
                {
                    "content": DECISION,
                    "title": "Charge in integer cents",
                    "tags": ["decision"],
                    "anchors": ["billing.py::charge"],
                },
            )
            assert not result.is_error, result
            return str(result.structured_content["document"]["id"])

    return anyio.run(write)


@pytest.fixture
def env(tmp_path: Path) -> Env:
    env = make_env(tmp_path)
    (env.workspace / "billing.py").write_text(BILLING)
    subprocess.run(
        [*nano_brain_command(), "index", "--workspace", str(env.workspace)],
        env=env.vars,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return env


def _hook(env: Env, name: str, payload: dict[str, object]) -> bytes:
    done = run_hook("claude-code", name, payload, env=env.vars)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _edit(env: Env, line: str) -> dict[str, object]:
    return event("claude-code", "pre-edit-edit", WORKSPACE=str(env.workspace), OLD=line)


def _prompt(env: Env, text: str) -> dict[str, object]:
    return event("claude-code", "prompt", WORKSPACE=str(env.workspace), PROMPT=text)


UNRELATED = "What is the capital of Mongolia and its population?"


def test_a_decision_anchored_over_mcp_reaches_the_agent_before_it_edits(env: Env) -> None:
    note = _anchor_over_mcp(env)
    context = json.loads(_hook(env, "pre-edit", _edit(env, CHARGE_LINE)))["hookSpecificOutput"]
    assert context["hookEventName"] == "PreToolUse"
    assert f"#{note}" in context["additionalContext"]
    assert "billing.py::charge" in context["additionalContext"]
    assert "decision by an agent" in context["additionalContext"]  # written over MCP
    assert _hook(env, "pre-edit", _edit(env, REFUND_LINE)) == b""
    assert _hook(env, "prompt", _prompt(env, UNRELATED)) == b""


def test_through_a_running_serve(env: Env) -> None:
    note = _anchor_over_mcp(env)
    served = start_serve(env, "--socket", str(env.root / "mcp.sock"))
    try:

        async def post(name: str, payload: dict[str, object] | bytes) -> httpx2.Response:
            url = f"http://localhost/hooks/claude-code/{name}"
            async with served.http(served.token()) as http:
                if isinstance(payload, bytes):
                    return await http.post(url, content=payload)
                return await http.post(url, json=payload)

        answered = anyio.run(post, "pre-edit", _edit(env, CHARGE_LINE))
        assert answered.status_code == 200
        assert f"#{note}" in answered.json()["hookSpecificOutput"]["additionalContext"]
        assert anyio.run(post, "pre-edit", _edit(env, REFUND_LINE)).status_code == 204
        # the server judges a prompt with the hybrid search and the floor for unasked memory
        assert anyio.run(post, "prompt", _prompt(env, UNRELATED)).status_code == 204
        related = anyio.run(
            post, "prompt", _prompt(env, "should charge amounts be floats or cents?")
        )
        assert related.status_code == 200 and f"#{note}" in related.text
        # the command hook forwards to the server (its endpoint file names the socket)
        forwarded = json.loads(_hook(env, "pre-edit", _edit(env, CHARGE_LINE)))
        assert f"#{note}" in forwarded["hookSpecificOutput"]["additionalContext"]
        # ...and did not answer itself: its own path would have written the hook profile
        assert not list(env.state_dir().glob("workspaces/*/hooks-profile.json"))
        # a session in another folder gets nothing from this workspace's server
        elsewhere = event("claude-code", "pre-edit-edit", WORKSPACE=str(env.root), OLD=CHARGE_LINE)
        assert anyio.run(post, "pre-edit", elsewhere).status_code == 204
        assert anyio.run(post, "pre-edit", b"not json").status_code == 204
        assert anyio.run(post, "pre-edit", {"tool_name": 3}).status_code == 204

        async def without_token() -> int:
            async with served.http() as http:
                url = "http://localhost/hooks/claude-code/pre-edit"
                return (await http.post(url, json=_edit(env, CHARGE_LINE))).status_code

        assert anyio.run(without_token) == 401
    finally:
        served.stop()
