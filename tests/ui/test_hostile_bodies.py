"""Bodies built to hurt the parser (issue 31, defect 8): deeply nested JSON posted to the
page's API (with the page's token, and to the code exchange without one) and to the MCP
HTTP endpoint is answered 400 with a clear error; the server logs no traceback and keeps
serving."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..mcp.conftest import Served, make_env, start_serve
from .conftest import UiServer, start_ui

pytestmark = pytest.mark.timeout(300)

DEEP = 10_000


def _nested(depth: int, inner: bytes = b"1") -> bytes:
    return b"[" * depth + inner + b"]" * depth


def _objects(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    env = make_env(tmp_path_factory.mktemp("nesting"))
    env.vars["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    server = start_ui(env)
    try:
        yield server
    finally:
        server.stop()


def _no_traceback(log: list[str]) -> None:
    time.sleep(0.3)  # the server's stderr is read by a thread
    text = "".join(log)
    assert "Traceback" not in text and "RecursionError" not in text, text[-3000:]


@pytest.mark.parametrize(
    "body",
    [_nested(DEEP), _objects(DEEP), b'{"query": ' + _nested(DEEP) + b"}", _nested(65)],
    ids=["arrays", "objects", "inside-a-key", "just-over-the-bound"],
)
def test_deep_nesting_is_a_clear_400_on_every_endpoint(page: UiServer, body: bytes) -> None:
    headers = {"content-type": "application/json"}
    with page.http() as http:
        for path in ("/api/search", "/api/documents/0123456789ab/retract"):
            answer = http.post(path, content=body, headers=headers)
            assert answer.status_code == 400, (path, answer.text)
            assert "nested" in answer.json()["error"], answer.text
    with page.http(token=None) as anonymous:
        answer = anonymous.post("/api/session", content=body, headers=headers)
        assert answer.status_code == 400, answer.text
        assert "nested" in answer.json()["error"], answer.text
    _no_traceback(page.stderr)
    with page.http() as http:  # still serving
        assert http.get("/api/info").status_code == 200


def test_nesting_within_the_bound_and_brackets_in_strings_are_fine(page: UiServer) -> None:
    brackets = "[" * 5000 + "{" * 5000
    with page.http() as http:
        found = http.post("/api/search", json={"query": brackets[:3000], "mode": "lexical"})
        assert found.status_code == 200, found.text
        nested = http.post(
            "/api/search", content=_nested(60), headers={"content-type": "application/json"}
        )
        # not too deep: refused for what it is (an array, not a search)
        assert nested.status_code == 400 and "JSON object" in nested.json()["error"]
    _no_traceback(page.stderr)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = start_serve(make_env(tmp_path))
    try:
        yield server
    finally:
        server.stop()


def test_deep_nesting_posted_to_the_mcp_endpoint_is_a_parse_error(served: Served) -> None:
    headers = {
        "Authorization": f"Bearer {served.token()}",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    request = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + _objects(DEEP) + b"}"
    for body in (_nested(DEEP), request):
        answer = httpx.post(served.url, content=body, headers=headers, timeout=60)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == -32700
    _no_traceback(served.stderr)
    init = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    alive = httpx.post(served.url, content=json.dumps(init), headers=headers, timeout=60)
    assert alive.status_code == 200, alive.text
