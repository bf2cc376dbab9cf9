"""`nano-brain mcp-config`: endpoint, token and client snippets that parse."""

from __future__ import annotations

import json
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path

from nano_brain.mcp.client_config import SUGGESTED_PORT, TOKEN_ENV

from .conftest import Env, Served, make_env, nano_brain_command


def _config(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*nano_brain_command(), "mcp-config", "--workspace", str(env.workspace), *args],
        capture_output=True,
        text=True,
        env=env.vars,
        timeout=60,
        check=True,
    )


def test_mcp_config_points_at_the_running_server(
    serve: Callable[..., Served], tmp_path: Path
) -> None:
    env = make_env(tmp_path)
    served = serve(env=env)
    data = json.loads(_config(env, "--json").stdout)
    assert data["running"]["pid"] == served.proc.pid
    assert data["url"] == served.url
    assert data["token"] == served.token()
    snippets = {(s["client"], s["transport"], s["where"]): s["text"] for s in data["snippets"]}
    assert len(snippets) == 8
    ws = str(env.workspace.resolve())

    mcp_json = json.loads(snippets[("Claude Code", "stdio", ".mcp.json")])
    assert mcp_json["mcpServers"]["nano-brain"]["args"] == ["mcp", "--workspace", ws]
    http_json = json.loads(snippets[("Claude Code", "http", ".mcp.json")])["mcpServers"]
    assert http_json["nano-brain"]["url"] == served.url
    assert http_json["nano-brain"]["headers"]["Authorization"] == f"Bearer ${{{TOKEN_ENV}}}"
    cursor = json.loads(snippets[("Cursor", "http", ".cursor/mcp.json")])["mcpServers"]
    assert cursor["nano-brain"]["headers"]["Authorization"] == f"Bearer ${{env:{TOKEN_ENV}}}"
    codex_stdio = tomllib.loads(snippets[("Codex", "stdio", "~/.codex/config.toml")])
    assert codex_stdio["mcp_servers"]["nano-brain"]["args"] == ["mcp", "--workspace", ws]
    codex_http = tomllib.loads(snippets[("Codex", "http", "~/.codex/config.toml")])
    assert codex_http["mcp_servers"]["nano-brain"] == {
        "url": served.url,
        "bearer_token_env_var": TOKEN_ENV,
    }
    claude_cmd = snippets[("Claude Code", "stdio", "shell")]
    assert claude_cmd.startswith("claude mcp add") and claude_cmd.endswith(f"mcp --workspace {ws}")
    assert data["token"] not in json.dumps(data["snippets"]), "snippets never embed the token"

    text = _config(env).stdout
    assert served.url in text and served.token() in text and "[mcp_servers.nano-brain]" in text


def test_mcp_config_without_a_server_suggests_a_port(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    data = json.loads(_config(env, "--json").stdout)
    assert data["running"] is None
    assert data["url"] == f"http://127.0.0.1:{SUGGESTED_PORT}/mcp"
    token_file = Path(data["token_file"])
    assert token_file.read_text().strip() == data["token"]
    assert json.loads(_config(env, "--json").stdout)["token"] == data["token"]


def test_stdio_snippets_name_the_command_by_its_absolute_path(tmp_path: Path) -> None:
    """An agent starts `nano-brain` with its own PATH, which may not hold the venv or pipx's
    bin folder: the snippets name the console script that printed them."""
    env = make_env(tmp_path)
    data = json.loads(_config(env, "--json").stdout)
    snippets = {(s["client"], s["transport"], s["where"]): s["text"] for s in data["snippets"]}
    command = data["command"]
    assert Path(command).is_absolute() and Path(command).name == "nano-brain", command
    assert command == nano_brain_command()[0]
    for where in (("Claude Code", "stdio", ".mcp.json"), ("Cursor", "stdio", ".cursor/mcp.json")):
        assert json.loads(snippets[where])["mcpServers"]["nano-brain"]["command"] == command
    codex = tomllib.loads(snippets[("Codex", "stdio", "~/.codex/config.toml")])
    assert codex["mcp_servers"]["nano-brain"]["command"] == command
    assert f"-- {command} mcp --workspace" in snippets[("Claude Code", "stdio", "shell")]
    version = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and "nano-brain" in version.stdout
    assert f'"command": "{command}"' in _config(env).stdout
