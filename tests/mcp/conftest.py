"""Real servers for the MCP tests: `nano-brain mcp` / `nano-brain serve` as subprocesses,
driven by the SDK's own `Client` (v2 API). Every server gets its own XDG dirs and workspace.

Servers are module-scoped where the tests only add data (startup is the slow part); tests
that need a pristine store start their own.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[2]
NODE_DIR = Path(__file__).resolve().parent / "node"
READY_TIMEOUT = 60.0

ClientFactory = Callable[[], AbstractAsyncContextManager[Client]]
#: Set while a module runs against the team store: servers started then use it.
STORE_URL_VAR = "NB_TEST_STORE_URL"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each MCP module runs once per store (SQLite, then PostgreSQL): module-scoped, so that
    the servers a module shares are started once per store."""
    if "_mcp_store" in metafunc.fixturenames:
        metafunc.parametrize("_mcp_store", ["sqlite", "postgresql"], indirect=True, scope="module")


@pytest.fixture(scope="module", autouse=True)
def _mcp_store(request: pytest.FixtureRequest) -> Iterator[str]:
    backend = getattr(request, "param", "sqlite")
    if backend != "postgresql":
        yield backend
        return
    server = request.getfixturevalue("pg_server")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(STORE_URL_VAR, server.app_url)
        yield backend


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def nano_brain_command() -> list[str]:
    """The installed console script (next to this interpreter, as in a venv)."""
    script = Path(sys.executable).with_name("nano-brain")
    if script.exists():
        return [str(script)]
    found = shutil.which("nano-brain")
    assert found, "the nano-brain console script is not installed (pip install -e .)"
    return [found]


@dataclass
class Env:
    """An isolated home for one server: XDG dirs, a workspace, the subprocess env."""

    root: Path
    workspace: Path = field(init=False)
    vars: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.workspace = self.root / "ws"
        self.workspace.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            env[var] = str(self.root / var.lower())
        # The conformance fixture tool module lives in tests/; make it importable.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
        if os.environ.get(STORE_URL_VAR):  # this module runs against the team store
            env["NANO_BRAIN_STORAGE__URL"] = os.environ[STORE_URL_VAR]
        self.vars = env

    def state_dir(self) -> Path:
        return self.root / "xdg_state_home" / "nano-brain"


def make_env(tmp: Path) -> Env:
    return Env(tmp)


@dataclass
class Served:
    """A running `nano-brain serve` and what it announced on stdout."""

    proc: subprocess.Popen[str]
    endpoint: dict[str, Any]
    env: Env
    stderr: list[str]

    @property
    def url(self) -> str:
        return str(self.endpoint["url"])

    @property
    def socket(self) -> str | None:
        return self.endpoint.get("socket")

    def token(self) -> str:
        return Path(self.endpoint["token_file"]).read_text().strip()

    def http(self, token: str | None = None, **kwargs: Any) -> httpx2.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        transport = httpx2.AsyncHTTPTransport(uds=self.socket) if self.socket else None
        return httpx2.AsyncClient(headers=headers, transport=transport, timeout=60, **kwargs)

    def client(self, token: str | None = "auto") -> AbstractAsyncContextManager[Client]:
        """An SDK client for this server (token "auto": the workspace's real token)."""
        chosen = self.token() if token == "auto" and self.endpoint["auth"] else token

        @asynccontextmanager
        async def connect() -> AsyncIterator[Client]:
            async with self.http(chosen) as http:
                async with Client(streamable_http_client(self.url, http_client=http)) as client:
                    yield client

        return connect()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        return self.proc.returncode


def start_serve(env: Env, *args: str, options: tuple[str, ...] = ()) -> Served:
    """Start `nano-brain OPTIONS serve --json ARGS` and wait until it announces its endpoint."""
    proc = subprocess.Popen(
        [
            *nano_brain_command(),
            *options,
            "serve",
            "--workspace",
            str(env.workspace),
            "--json",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env.vars,
        cwd=env.root,
    )
    stderr: list[str] = []
    assert proc.stderr is not None and proc.stdout is not None
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(READY_TIMEOUT)
    if not line or not line[0].strip():
        proc.kill()
        proc.wait()
        raise AssertionError(f"nano-brain serve did not become ready: {''.join(stderr)}")
    return Served(proc, json.loads(line[0]), env, stderr)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Start servers on demand (fresh env per test); all are stopped at teardown."""
    started: list[Served] = []

    def start(*args: str, env: Env | None = None, options: tuple[str, ...] = ()) -> Served:
        served = start_serve(env or make_env(tmp_path), *args, options=options)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


def stdio_client(env: Env, *extra: str, mode: str = "auto") -> AbstractAsyncContextManager[Client]:
    """An SDK client over a fresh `nano-brain mcp` (mode "legacy": the initialize handshake
    that today's agents use, where ping exists)."""
    command = nano_brain_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], *extra, "mcp", "--workspace", str(env.workspace)],
        env=env.vars,
        cwd=str(env.root),
    )
    return Client(params, mode=mode)


@pytest.fixture(scope="module", params=["stdio", "http", "unix"])
def transport(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _mcp_store: str,  # one per store: a server reads its store from its env at start
) -> Iterator[tuple[str, Env, ClientFactory]]:
    """(name, env, client factory) for one server per transport, shared by a module."""
    env = make_env(tmp_path_factory.mktemp(f"mcp-{request.param}"))
    if request.param == "stdio":
        yield request.param, env, lambda: stdio_client(env)
        return
    args = ["--socket", str(env.root / "mcp.sock")] if request.param == "unix" else []
    served = start_serve(env, *args)
    try:
        yield request.param, env, served.client
    finally:
        served.stop()


def node_bin_dir() -> Path:
    """tests/mcp/node/node_modules/.bin, installed by scripts/setup-dev (tests never download:
    a missing install fails with the command that makes it)."""
    bin_dir = NODE_DIR / "node_modules" / ".bin"
    missing = [n for n in ("node", "conformance", "mcp-inspector") if not (bin_dir / n).exists()]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} missing from tests/mcp/node: run scripts/setup-dev "
            "(or: npm install --prefix tests/mcp/node)",
            pytrace=False,
        )
    return bin_dir


def node_env(env: Env, bin_dir: Path) -> dict[str, str]:
    """The server's env with npm's Node 22 first on PATH (the suites need Node >= 22)."""
    return {**env.vars, "PATH": os.pathsep.join([str(bin_dir), env.vars.get("PATH", "")])}
