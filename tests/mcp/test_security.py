"""HTTP auth, DNS-rebinding checks (Host/Origin parsed strictly), bind policy, token and
socket file modes, and the token never leaking into logs, argv or the environment."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from nano_brain.errors import InvalidInputError
from nano_brain.serving.security import check_bind, is_loopback

from .conftest import Served, make_env, nano_brain_command, start_serve

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
        (["--host", "::"], "not a loopback address"),
        (["--host", "192.0.2.10"], "not a loopback address"),
        (["--host", "localhost."], "not a loopback address"),
        (["--host", "0.0.0.0", "--no-auth"], "only allowed on loopback"),
        (["--host", "0.0.0.0", "--allow-remote", "--no-auth"], "only allowed on loopback"),
        (["--host", "::", "--allow-remote", "--no-auth"], "only allowed on loopback"),
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
    assert message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not list(env.root.rglob("mcp-endpoint.json")), "refused before listening"


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


# -- Host and Origin, parsed strictly, against a real server -----------------------------------


def raw_status(served: Served, headers: list[tuple[str, str]], *, target: str = "/mcp") -> int:
    """POST initialize with exactly these headers (duplicates and odd values kept, which HTTP
    client libraries would normalise away) and return the response status."""
    body = json.dumps(INIT).encode()
    port = int(served.url.rsplit(":", 1)[1].split("/")[0])
    head = [
        f"POST {target} HTTP/1.1",
        *(f"{name}: {value}" for name, value in headers),
        "content-type: application/json",
        "accept: application/json, text/event-stream",
        f"content-length: {len(body)}",
        "connection: close",
    ]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall("\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + body)
        status_line = sock.makefile("rb").readline()
    return int(status_line.split()[1])


# Each Host header value and the status it gets (with the right token): 400 malformed,
# 421 well-formed but not loopback. PORT is replaced by the server's port.
HOST_CASES = [
    ("localhost:PORT", 200),
    ("LOCALHOST:PORT", 200),  # host names are case-insensitive
    ("localhost", 200),  # a unix-socket client's Host, or a default port
    ("127.0.0.1:PORT", 200),
    ("127.8.0.1:PORT", 200),  # all of 127.0.0.0/8 is loopback
    ("[::1]:PORT", 200),
    ("[0:0:0:0:0:0:0:1]:PORT", 200),
    ("localhost:PORT@evil.example", 400),  # userinfo trick: no '@' in a Host
    ("[::1]evil.example", 400),  # text after the bracket
    ("evil.example@localhost:PORT", 400),
    ("localhost:PORT/", 400),
    ("localhost:", 400),  # empty port
    ("localhost:99999", 400),
    ("localhost:PORT:PORT", 400),
    ("[::1%25lo]:PORT", 400),  # zone id
    ("127.1:PORT", 400),  # a browser reads this as 127.0.0.1: ambiguous, so malformed
    ("0x7f.0.0.1:PORT", 400),
    ("2130706433:PORT", 400),
    ("127.000.000.001:PORT", 400),
    ("local host", 400),
    ("", 400),
    ("127.0.0.1.nip.io:PORT", 421),  # DNS rebinding: a public name resolving to loopback
    ("localhost.:PORT", 421),  # the root-qualified name is another origin to a browser
    ("foo.localhost:PORT", 421),
    ("evil.example:PORT", 421),
    ("[::ffff:127.0.0.1]:PORT", 421),  # IPv4-mapped: not what a loopback client sends
    ("0.0.0.0:PORT", 421),
]


@pytest.fixture(scope="module")
def guarded(
    tmp_path_factory: pytest.TempPathFactory,
    _mcp_store: str,  # one per store: a server reads its store from its env at start
) -> Iterator[Served]:
    served = start_serve(make_env(tmp_path_factory.mktemp("guarded")))
    yield served
    served.stop()


@pytest.mark.parametrize(("host", "status"), HOST_CASES)
def test_host_header_cases(guarded: Served, host: str, status: int) -> None:
    port = guarded.url.rsplit(":", 1)[1].split("/")[0]
    token = ("authorization", f"Bearer {guarded.token()}")
    assert raw_status(guarded, [("host", host.replace("PORT", port)), token]) == status


def test_missing_or_repeated_host_is_a_bad_request(guarded: Served) -> None:
    token = ("authorization", f"Bearer {guarded.token()}")
    assert raw_status(guarded, [token]) == 400
    twice = [("host", "localhost"), ("host", "localhost"), token]
    assert raw_status(guarded, twice) == 400
    assert raw_status(guarded, [("host", "localhost"), ("host", "evil.example"), token]) == 400


ORIGIN_CASES = [
    (None, 200),  # no Origin: not a browser
    ("http://localhost:3000", 200),  # a page of a local dev server
    ("http://127.0.0.1:5173", 200),
    ("https://[::1]:8443", 200),
    ("HTTP://LOCALHOST", 200),
    ("http://evil.example", 403),
    ("http://127.0.0.1.nip.io", 403),
    ("http://localhost.", 403),
    ("null", 403),  # sandboxed frames and file:// pages
    ("http://localhost@evil.example", 403),
    ("http://evil.example#@localhost", 403),
    ("http://localhost:3000/", 403),  # a serialized origin has no path
    ("file://localhost", 403),
    ("chrome-extension://abcdef", 403),
    ("http://localhost:3000 http://evil.example", 403),
    ("", 403),
]


@pytest.mark.parametrize(("origin", "status"), ORIGIN_CASES)
def test_origin_header_cases(guarded: Served, origin: str | None, status: int) -> None:
    headers = [("host", "localhost"), ("authorization", f"Bearer {guarded.token()}")]
    if origin is not None:
        headers.append(("origin", origin))
    assert raw_status(guarded, headers) == status


def test_repeated_origin_is_refused(guarded: Served) -> None:
    headers = [("host", "localhost"), ("authorization", f"Bearer {guarded.token()}")]
    ok_origin = ("origin", "http://localhost:3000")
    assert raw_status(guarded, [*headers, ok_origin, ok_origin]) == 403


def test_token_cases(guarded: Served) -> None:
    token = guarded.token()
    host = ("host", "localhost")
    assert raw_status(guarded, [host]) == 401
    assert raw_status(guarded, [host, ("authorization", f"bearer {token}")]) == 200
    assert raw_status(guarded, [host, ("authorization", f"Bearer {token}x")]) == 401
    assert raw_status(guarded, [host, ("authorization", f"Bearer {token[:-1]}")]) == 401
    assert raw_status(guarded, [host, ("authorization", token)]) == 401
    assert raw_status(guarded, [host, ("authorization", f"Token {token}")]) == 401
    both = [host, ("authorization", f"Bearer {token}"), ("authorization", "Bearer nope")]
    assert raw_status(guarded, both) == 401, "two Authorization headers are refused"
    for query in (f"?token={token}", f"?access_token={token}", f"?authorization=Bearer%20{token}"):
        assert raw_status(guarded, [host], target=f"/mcp{query}") == 401, query
    # The guard stands in front of every route, not only /mcp.
    assert raw_status(guarded, [host], target="/") == 401
    assert raw_status(guarded, [("host", "evil.example")], target="/anything") == 421


def test_allow_remote_still_refuses_malformed_hosts_and_foreign_origins(
    serve: Callable[..., Served],
) -> None:
    served = serve("--host", "0.0.0.0", "--allow-remote")
    port = served.url.rsplit(":", 1)[1].split("/")[0]
    token = ("authorization", f"Bearer {served.token()}")
    lan = ("host", f"memory.lan:{port}")
    assert raw_status(served, [lan, token]) == 200
    assert raw_status(served, [("host", f"memory.lan:{port}@evil.example"), token]) == 400
    assert raw_status(served, [lan, token, ("origin", f"http://memory.lan:{port}")]) == 200
    assert raw_status(served, [lan, token, ("origin", "http://evil.example")]) == 403
    assert raw_status(served, [lan, token, ("origin", f"http://memory.lan:{port}/x")]) == 403


# -- the token never leaks: logs, argv, environment --------------------------------------------


def test_token_is_never_in_logs_argv_or_environment(serve: Callable[..., Served]) -> None:
    served = serve(options=("-vv",))
    token = served.token()
    host = ("host", "localhost")
    wrong = token[:-4] + "abcd"
    raw_status(served, [host, ("authorization", f"Bearer {token}")])
    raw_status(served, [host, ("authorization", f"Bearer {wrong}")])
    raw_status(served, [host], target=f"/mcp?token={token}")
    raw_status(served, [("host", "evil.example"), ("authorization", f"Bearer {token}")])
    raw_status(served, [host, ("origin", "null"), ("authorization", f"Bearer {token}")])

    async def tool_calls() -> None:
        async with served.client() as client:
            result = await client.call_tool("memory_write", {"content": "token leak check"})
            assert not result.is_error
            await client.call_tool("memory_get", {"id": "#000000000000"})

    anyio.run(tool_calls)
    pids = [served.proc.pid, *_children(served.proc.pid)]
    for pid in pids:
        for part in ("cmdline", "environ"):
            data = Path(f"/proc/{pid}/{part}").read_bytes()
            assert token.encode() not in data, f"token in /proc/{pid}/{part}"
    assert served.stop() == 0
    logged = "".join(served.stderr)
    assert "DEBUG" in logged, "debug logging was on"
    assert "refused request with Host" in logged
    for secret in (token, wrong, token[:16]):
        assert secret not in logged


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        found.extend(int(c) for c in children)
    return found
