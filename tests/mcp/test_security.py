"""HTTP auth, DNS-rebinding checks, bind policy, token and socket file modes."""

from __future__ import annotations

import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nano_brain.errors import InvalidInputError
from nano_brain.mcp.security import check_bind, is_loopback

from .conftest import Served, make_env, nano_brain_command

pytestmark = pytest.mark.anyio

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    },
}
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


async def post(served: Served, token: str | None, body: dict[str, Any], **headers: str) -> Any:
    async with served.http(token) as http:
        base = "http://localhost/mcp" if served.socket else served.url
        return await http.post(base, json=body, headers={**JSON_HEADERS, **headers})


@pytest.mark.parametrize("mode", ["tcp", "unix"])
async def test_http_requires_the_workspace_token(
    serve: Callable[..., Served], tmp_path: Path, mode: str
) -> None:
    args = ["--socket", str(tmp_path / "s.sock")] if mode == "unix" else []
    served = serve(*args)
    token = served.token()
    assert len(token) >= 32

    missing = await post(served, None, INIT)
    assert missing.status_code == 401 and "Bearer" in missing.headers["www-authenticate"]
    wrong = await post(served, token[:-1] + ("A" if token[-1] != "A" else "B"), INIT)
    assert wrong.status_code == 401
    bad_scheme = await post(served, None, INIT, authorization=f"Basic {token}")
    assert bad_scheme.status_code == 401
    rebinding = await post(served, token, INIT, host="evil.example.com")
    assert rebinding.status_code == 421
    foreign_origin = await post(served, token, INIT, origin="http://evil.example.com")
    assert foreign_origin.status_code == 403
    right = await post(served, token, INIT, origin="http://localhost:3000")
    assert right.status_code == 200 and right.json()["result"]["serverInfo"]["name"] == "nano-brain"

    # The SDK client without the token cannot even initialize; with it, it is served.
    with pytest.raises(Exception):  # noqa: B017 - the SDK raises its transport error group
        async with served.client(token=None) as client:
            await client.list_tools()
    async with served.client() as client:
        result = await client.call_tool("memory_write", {"content": f"authorized over {mode}"})
        assert not result.is_error


async def test_token_file_and_socket_are_private(
    serve: Callable[..., Served], tmp_path: Path
) -> None:
    sock = tmp_path / "private.sock"
    served = serve("--socket", str(sock))
    token_file = Path(served.endpoint["token_file"])
    assert token_file.is_relative_to(served.env.state_dir())
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
    assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600
    first = served.token()
    assert served.stop() == 0
    assert not sock.exists(), "the socket file is removed on shutdown"
    again = serve("--socket", str(sock), env=served.env)
    assert again.token() == first, "the token is generated once per workspace, then reused"


async def test_no_auth_mode_is_loopback_only_and_still_checks_host(
    serve: Callable[..., Served],
) -> None:
    served = serve("--no-auth")
    assert served.endpoint["auth"] is False and served.endpoint["token_file"] is None
    assert (await post(served, None, INIT)).status_code == 200
    assert (await post(served, None, INIT, host="attacker.test:80")).status_code == 421


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0"], "not a loopback address"),
        (["--host", "0.0.0.0", "--allow-remote", "--no-auth"], "only allowed on loopback"),
        (["--no-auth", "--allow-remote"], "only allowed on loopback"),
    ],
)
def test_unsafe_binds_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    env = make_env(tmp_path)
    proc = subprocess.run(
        [*nano_brain_command(), "serve", "--workspace", str(env.workspace), *args],
        capture_output=True,
        text=True,
        env=env.vars,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr


async def test_allow_remote_binds_wildcard_with_auth(serve: Callable[..., Served]) -> None:
    served = serve("--host", "0.0.0.0", "--allow-remote")
    assert served.endpoint["auth"] is True
    port = served.url.rsplit(":", 1)[1].split("/")[0]
    served.endpoint["url"] = f"http://127.0.0.1:{port}/mcp"
    assert (await post(served, None, PING, host=f"memory.lan:{port}")).status_code == 401
    ok = await post(served, served.token(), INIT, host=f"memory.lan:{port}")
    assert ok.status_code == 200


def test_loopback_and_bind_policy() -> None:
    for host in ("127.0.0.1", "127.8.0.1", "localhost", "LOCALHOST", "::1", "[::1]"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "192.168.1.4", "evil.example.com", "localhost.evil.com", ""):
        assert not is_loopback(host), host
    check_bind("127.0.0.1", auth=False, allow_remote=False)
    check_bind("10.0.0.2", auth=True, allow_remote=True)
    with pytest.raises(InvalidInputError, match="allow-remote"):
        check_bind("10.0.0.2", auth=True, allow_remote=False)
    with pytest.raises(InvalidInputError, match="without authentication"):
        check_bind("10.0.0.2", auth=False, allow_remote=True)
