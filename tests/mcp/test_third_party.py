"""Third-party clients: the MCP Inspector CLI and the official conformance suite (Node).

They fail, with the set-up command, when tests/mcp/node is not installed (scripts/setup-dev).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Env, Served, make_env, nano_brain_command, node_bin_dir, node_env

CONFORMANCE_SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "json-schema-2020-12",
    "dns-rebinding-protection",
]


def _inspector(env: Env, bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "mcp-inspector"), "--cli", *args],
        capture_output=True,
        text=True,
        env=node_env(env, bin_dir),
        cwd=env.root,
        timeout=180,
    )


def _stdio_target(env: Env) -> list[str]:
    # The Inspector passes only a few variables to the server: hand it the isolated dirs.
    pass_env = [f"{k}={env.vars[k]}" for k in env.vars if k.startswith("XDG_")]
    return [
        *[arg for kv in pass_env for arg in ("-e", kv)],
        *nano_brain_command(),
        "mcp",
        "--workspace",
        str(env.workspace),
    ]


def _json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_inspector_cli_lists_writes_and_queries_over_stdio(tmp_path: Path) -> None:
    bin_dir = node_bin_dir()
    env = make_env(tmp_path)
    target = _stdio_target(env)
    listed = _json(_inspector(env, bin_dir, *target, "--method", "tools/list"))
    names = {t["name"] for t in listed["tools"]}
    assert {"memory_write", "memory_query", "memory_get", "memory_wake_up"} <= names
    write = next(t for t in listed["tools"] if t["name"] == "memory_write")
    assert write["annotations"]["readOnlyHint"] is False and "outputSchema" in write

    wrote = _json(
        _inspector(
            env,
            bin_dir,
            *target,
            "--method",
            "tools/call",
            "--tool-name",
            "memory_write",
            "--tool-arg",
            "content=The flux capacitor needs 1.21 gigawatts.",
            "--tool-arg",
            'tags=["inspector"]',
        )
    )
    doc = wrote["structuredContent"]["document"]
    assert doc["tags"][-1] == "inspector" or "inspector" in doc["tags"]
    found = _json(
        _inspector(
            env,
            bin_dir,
            *target,
            "--method",
            "tools/call",
            "--tool-name",
            "memory_query",
            "--tool-arg",
            "query=how much power does the flux capacitor need",
        )
    )
    assert found["structuredContent"]["results"][0]["id"] == doc["id"]

    bad = _inspector(
        env,
        bin_dir,
        *target,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_write",
        "--tool-arg",
        "title=no content",
    )
    assert bad.returncode != 0
    assert "content: Field required" in bad.stdout
    assert (env.root / "xdg_data_home" / "nano-brain").is_dir(), "the store stayed isolated"


def test_inspector_cli_over_http_with_bearer_token(serve: Callable[..., Served]) -> None:
    bin_dir = node_bin_dir()
    served = serve()
    common = [
        served.url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "memory_status",
    ]
    refused = _inspector(served.env, bin_dir, *common)
    # Without the token the Inspector gets 401 and asks for (OAuth) authorization.
    assert refused.returncode != 0 and "auth_required" in refused.stdout + refused.stderr
    status = _json(
        _inspector(
            served.env, bin_dir, *common, "--header", f"Authorization: Bearer {served.token()}"
        )
    )
    assert status["structuredContent"]["workspace"] == str(served.env.workspace.resolve())


@pytest.fixture(scope="module")
def conformance_server(
    tmp_path_factory: pytest.TempPathFactory,
    _mcp_store: str,  # one per store: a server reads its store from its env at start
) -> Any:
    """`nano-brain serve --no-auth` on loopback (the suite sends no token) plus the
    suite's json-schema fixture tool, loaded through the tool-module registry."""
    from .conftest import start_serve

    bin_dir = node_bin_dir()
    served = start_serve(
        make_env(tmp_path_factory.mktemp("conformance")),
        "--no-auth",
        "--extra-tools",
        "tests.mcp.conformance_tools",
    )
    yield served, bin_dir
    served.stop()


@pytest.mark.parametrize("scenario", CONFORMANCE_SCENARIOS)
def test_conformance_scenario_passes(conformance_server: Any, scenario: str) -> None:
    served, bin_dir = conformance_server
    proc = subprocess.run(
        [str(bin_dir / "conformance"), "server", "--url", served.url, "--scenario", scenario],
        capture_output=True,
        text=True,
        env=node_env(served.env, bin_dir),
        timeout=180,
    )
    out = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    summary = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", out)
    assert summary, out
    passed, total, failed = map(int, summary.groups())
    assert failed == 0 and passed == total >= 1, out
    assert proc.returncode == 0, out
