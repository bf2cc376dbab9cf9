"""stdio: stdout carries protocol only; every line gets an answer, even one that is no JSON."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, stdio_client

from nano_brain.config import WORKSPACE_CONFIG_NAME

from .conftest import Env, make_env, nano_brain_command

pytestmark = pytest.mark.anyio


async def test_debug_logging_never_reaches_stdout(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    command = nano_brain_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "-vv", "mcp", "--workspace", str(env.workspace)],
        env=env.vars,
    )
    errlog = tmp_path / "stderr.log"
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            written = await client.call_tool("memory_write", {"content": "stdio logging check"})
            assert not written.is_error
            found = await client.call_tool("memory_query", {"query": "logging check"})
            assert found.structured_content is not None
            assert found.structured_content["results"][0]["title"] == "stdio logging check"
    logged = errlog.read_text()
    assert "DEBUG" in logged, "debug logs go to stderr (and so never corrupt the protocol)"


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-bytes", "version": "0"},
    },
}

# (raw line, expected error code, expected id): what a broken client might put on the wire.
UNUSABLE: list[tuple[bytes, int, int | None]] = [
    (b'{"jsonrpc":"2.0","id":2,"method":"ping"', -32700, None),  # truncated
    (b"\xff\xfe\x00\x01binary\x80", -32700, None),  # not UTF-8
    (b"\xed\xa0\x80", -32700, None),  # a surrogate encoded as UTF-8 bytes (CESU)
    (b"[" * 1000 + b"]" * 1000, -32700, None),  # 1,000-deep nesting
    (b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\\ud800"}}', -32600, 3),
    (
        b'{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":'
        + b"[" * 300
        + b"]" * 300
        + b"}}",
        -32600,
        "deep",  # type: ignore[list-item]
    ),
    (b'{"jsonrpc":"2.0","id":4,"method":5}', -32600, 4),  # JSON, but no JSON-RPC message
    (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":NaN}', -32600, 5),
    (b"[]", -32600, None),
    (b'"just a string"', -32600, None),
]


def raw_server(env: Env) -> subprocess.Popen[bytes]:
    """`nano-brain mcp` with raw pipes: the test writes bytes, not SDK messages."""
    proc = subprocess.Popen(
        [*nano_brain_command(), "mcp", "--workspace", str(env.workspace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env.vars,
    )
    assert proc.stdin is not None and proc.stdout is not None
    return proc


def test_unusable_lines_get_an_error_reply_and_the_server_reads_on(tmp_path: Path) -> None:
    """Raw bytes to a real `nano-brain mcp`: every unusable line is answered at once (no
    client timeout), and a normal tools/call works afterwards."""
    proc = raw_server(make_env(tmp_path))
    replies: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [replies.put(x) for x in proc.stdout], daemon=True).start()

    def send(line: bytes) -> None:
        proc.stdin.write(line + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def reply() -> dict:
        return json.loads(replies.get(timeout=60))

    try:
        send(json.dumps(INITIALIZE).encode())
        assert reply()["result"]["serverInfo"]["name"] == "nano-brain"
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        send(b"")  # a blank line is no message: nothing to answer
        for raw, code, request_id in UNUSABLE:
            send(raw)
            answer = reply()
            assert answer["id"] == request_id, (raw[:60], answer)
            assert answer["error"]["code"] == code, (raw[:60], answer)
            assert "\n" not in answer["error"]["message"]
        call = {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "tools/call",
            "params": {"name": "memory_write", "arguments": {"content": "after the noise"}},
        }
        send(json.dumps(call).encode())
        done = reply()
        assert done["id"] == 99 and done["result"]["isError"] is False
        assert done["result"]["structuredContent"]["document"]["title"] == "after the noise"
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0, "EOF on stdin ends the server cleanly"


def test_an_oversize_line_is_refused_without_being_kept(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.workspace / WORKSPACE_CONFIG_NAME).write_text("storage:\n  max_content_bytes: 1000\n")
    proc = raw_server(env)
    try:
        # The bound is the HTTP body bound: 2 x the content cap (at least the SDK's 4 MiB)
        # plus 1 MiB; 8 MiB of one line is over it.
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"')
        proc.stdin.write(b"y" * (8 << 20) + b'"}}\n')
        proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        assert first["id"] is None and first["error"]["code"] == -32600
        assert "over" in first["error"]["message"]
        assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
