"""The memory page's credentials are the page's only (issue 31, defect 9): a one-time code
buys a page token, never the workspace's MCP token; the page token opens the page's API and
nothing else (not the MCP endpoint, not the code minting of `nano-brain ui`); a code works
for its owner once, and a code presented twice ends the session it opened; another local
user cannot redeem one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..mcp.conftest import Env, Served, make_env, start_serve
from ..mcp.test_security import INIT, JSON_HEADERS
from .conftest import UiServer, start_ui

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Env:
    made = make_env(tmp_path_factory.mktemp("pagetoken"))
    made.vars["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    # the other user of the last test must be able to reach nothing here but the port
    os.chmod(made.root, 0o755)
    return made


@pytest.fixture(scope="module")
def page(env: Env) -> Iterator[UiServer]:
    server = start_ui(env)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def mcp(env: Env, page: UiServer) -> Iterator[Served]:
    server = start_serve(env)
    try:
        yield server
    finally:
        server.stop()


def _code(page: UiServer) -> str:
    """A fresh one-time code, asked for as a second `nano-brain ui` does (workspace token)."""
    with page.http(token=page.token()) as cli:
        answer = cli.post("/api/code")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["code"])


def _redeem(page: UiServer, code: str) -> httpx.Response:
    with page.http(token=None) as anonymous:
        return anonymous.post("/api/session", json={"code": code})


def _info(page: UiServer, token: str) -> int:
    with page.http(token=token) as http:
        return http.get("/api/info").status_code


def test_the_code_buys_a_page_token_not_the_workspace_token(page: UiServer) -> None:
    mcp_token = page.token()
    first = _redeem(page, page.endpoint["open_url"].split("#code=", 1)[1])
    assert first.status_code == 200, first.text
    token = first.json()["token"]
    assert isinstance(token, str) and len(token) >= 32
    assert token != mcp_token and mcp_token not in first.text
    assert _info(page, token) == 200
    second = _redeem(page, _code(page)).json()["token"]
    assert second not in (token, mcp_token)  # each page has its own
    assert _info(page, second) == 200 and _info(page, token) == 200


def test_the_workspace_token_only_mints_codes_and_the_page_token_never_does(
    page: UiServer,
) -> None:
    token = _redeem(page, _code(page)).json()["token"]
    with page.http(token=page.token()) as cli:
        assert cli.post("/api/code").status_code == 200
        for path in ("/api/info", "/api/review", "/api/log"):
            assert cli.get(path).status_code == 401, path
        assert cli.post("/api/search", json={"query": "x"}).status_code == 401
    with page.http(token=token) as http:
        assert http.post("/api/code").status_code == 401
        assert http.post("/api/search", json={"query": "x"}).status_code == 200


def test_the_page_token_is_refused_by_the_mcp_endpoint(page: UiServer, mcp: Served) -> None:
    token = _redeem(page, _code(page)).json()["token"]
    refused = httpx.post(
        mcp.url, json=INIT, headers={**JSON_HEADERS, "Authorization": f"Bearer {token}"}, timeout=60
    )
    assert refused.status_code == 401
    accepted = httpx.post(
        mcp.url,
        json=INIT,
        headers={**JSON_HEADERS, "Authorization": f"Bearer {mcp.token()}"},
        timeout=60,
    )
    assert accepted.status_code == 200, accepted.text
    assert mcp.token() == page.token()  # the same workspace: only the page's token differs


def test_a_code_presented_twice_ends_the_session_it_opened(page: UiServer) -> None:
    code = _code(page)
    first = _redeem(page, code)
    assert first.status_code == 200
    token = first.json()["token"]
    assert _info(page, token) == 200
    # the same link used again: by another tab, or by whoever read it from a command line
    again = _redeem(page, code)
    assert again.status_code == 403
    assert "already used" in again.json()["error"] and "ended" in again.json()["error"]
    assert _info(page, token) == 401
    assert _redeem(page, "not-a-code").status_code == 403
    assert any("presented twice" in line for line in page.stderr), page.stderr[-5:]
    fresh = _redeem(page, _code(page))
    assert fresh.status_code == 200 and _info(page, fresh.json()["token"]) == 200


@pytest.mark.allow_skip("acting as another local user needs root and setpriv")
def test_another_local_user_cannot_redeem_a_code(page: UiServer) -> None:
    setpriv = shutil.which("setpriv")
    python = shutil.which("python3", path="/usr/bin:/bin")
    if os.geteuid() != 0 or setpriv is None or python is None:
        pytest.skip("needs root, setpriv and /usr/bin/python3 to act as another user")
    code = _code(page)
    script = (
        "import json, sys, urllib.request, urllib.error\n"
        "req = urllib.request.Request(sys.argv[1] + 'api/session', method='POST',\n"
        "    data=json.dumps({'code': sys.argv[2]}).encode(),\n"
        "    headers={'Content-Type': 'application/json'})\n"
        "try:\n"
        "    r = urllib.request.urlopen(req, timeout=30); print(r.status, r.read().decode())\n"
        "except urllib.error.HTTPError as e:\n"
        "    print(e.code, e.read().decode())\n"
    )
    other = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", script,
         page.url, code],
        capture_output=True, text=True, timeout=60, cwd="/",
    )  # fmt: skip
    assert other.returncode == 0, other.stderr
    status, _, body = other.stdout.strip().partition(" ")
    assert status == "403", other.stdout
    assert "token" not in json.loads(body) and "user" in json.loads(body)["error"]
    # refused before the code was looked at: its owner can still use it
    mine = _redeem(page, code)
    assert mine.status_code == 200 and _info(page, mine.json()["token"]) == 200


def test_page_tokens_live_in_the_page_server_only(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.vars["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    server = start_ui(env)
    try:
        token = _redeem(server, server.endpoint["open_url"].split("#code=", 1)[1]).json()["token"]
        state = env.state_dir()
        for path in state.rglob("*"):
            if path.is_file():
                assert token not in path.read_text(errors="replace"), path
    finally:
        assert server.stop() == 0
    again = start_ui(env)
    try:
        assert _info(again, token) == 401  # a new server, new tokens
    finally:
        again.stop()
