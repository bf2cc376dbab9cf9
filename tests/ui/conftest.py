"""A real `nano-brain ui` on a store built here: fixture data whose ids the tests check."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.embedding import EmbeddingProvider

from ..mcp.conftest import Env, make_env, nano_brain_command

READY_TIMEOUT = 60.0
BILLING_V1 = '''"""Billing."""


def apply_discount(total, percent):
    """Round down to whole cents."""
    return int(total * (100 - percent)) / 100


def tax(total):
    return total * 0.2
'''
BILLING_V2 = BILLING_V1.replace("return total * 0.2", "return round(total * 0.21, 2)")
DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14: fixed times make the timeline's buckets known


@dataclass
class Fixture:
    """The documents the store was built with, by role."""

    ids: dict[str, str] = field(default_factory=dict)
    decisions: set[str] = field(default_factory=set)
    unreviewed: set[str] = field(default_factory=set)


def build_store(env: Env, provider: EmbeddingProvider) -> Fixture:
    """Notes over ten days, decisions with a supersede chain, a note with three versions,
    agent notes held for review, and anchors to code (one of them stale)."""
    ws = env.workspace
    (ws / ".nano-brain.yml").write_text("review:\n  enabled: true\n")
    (ws / "billing.py").write_text(BILLING_V1)
    fx = Fixture()
    with pytest.MonkeyPatch.context() as mp:
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            mp.setenv(var, env.vars[var])
        config = load_config(ws)
        with Brain(ws, config=config, provider=provider, code_provider=None) as brain:
            for day in range(10):
                doc = brain.write(
                    f"Daily note {day}: the invoice batch ran with {day * 3} retries.",
                    title=f"Invoice batch day {day}",
                    tags=["ops"],
                    created_at=T0 + day * DAY,
                )
                fx.ids[f"day{day}"] = doc.document.id
            old = brain.write(
                "Invoices are stored as PDF files on the shared drive.",
                title="Store invoices as PDF",
                tags=["decision", "storage"],
                created_at=T0 + 2 * DAY,
            ).document.id
            new = brain.write(
                "Invoices are stored in the object store, PDF rendered on demand.",
                title="Store invoices in the object store",
                tags=["decision", "storage"],
                created_at=T0 + 6 * DAY,
                supersedes=old,
            ).document.id
            fx.ids.update(old_decision=old, new_decision=new)
            fx.decisions.update({old, new})
            fx.ids["discount_decision"] = brain.write(
                "apply_discount rounds down to whole cents so invoices never over-charge.",
                title="Why apply_discount rounds down",
                tags=["decision"],
                created_at=T0 + 3 * DAY,
            ).document.id
            fx.decisions.add(fx.ids["discount_decision"])
            fx.ids["tax_note"] = brain.write(
                "The tax rate is a flat 20 percent for now.",
                title="Tax rate",
                created_at=T0 + 4 * DAY,
            ).document.id
            for version in range(1, 4):
                doc = brain.write(
                    f"Retry policy\n\nRetry failed charges {version + 1} times.\n"
                    f"Back off {version * 10} seconds between tries.\n",
                    title="Retry policy",
                    source_path="notes/retry.md",
                    created_at=T0 + 5 * DAY,
                )
            fx.ids["versioned"] = doc.document.id
            code = CodeIndex(brain)
            code.index()
            code.anchor(fx.ids["discount_decision"], "billing.py::apply_discount")
            code.anchor(fx.ids["tax_note"], "billing.py::tax")
        (ws / "billing.py").write_text(BILLING_V2)  # the tax note's anchor goes stale
        with Brain(ws, config=config, provider=provider, code_provider=None) as brain:
            CodeIndex(brain).index()
        with Brain(ws, config=config, provider=provider, actor="mcp") as agent:
            titles = ("Agent: cache warm-up order", "Agent: flaky test list", "Agent: port map")
            for i, title in enumerate(titles):
                doc = agent.write(
                    f"{title}. Written by an agent in session {i}.", title=title, tags=["agent"]
                )
                assert doc.document.status == "unreviewed"
                fx.ids[f"agent{i}"] = doc.document.id
                fx.unreviewed.add(doc.document.id)
    return fx


@dataclass
class UiServer:
    proc: subprocess.Popen[str]
    endpoint: dict[str, Any]
    env: Env
    stderr: list[str]

    @property
    def url(self) -> str:
        return str(self.endpoint["url"])

    _page_token: str | None = None

    def token(self) -> str:
        """The workspace's (MCP) token: `nano-brain ui` mints one-time codes with it."""
        files = list((self.env.state_dir() / "workspaces").glob("*/mcp-token"))
        assert len(files) == 1, files
        return files[0].read_text().strip()

    def page_token(self) -> str:
        """A page token of this server, got as a second `nano-brain ui` and its page would:
        a fresh one-time code (workspace token), traded at /api/session."""
        if self._page_token is None:
            auth = {"Authorization": f"Bearer {self.token()}"}
            code = httpx.post(f"{self.url}api/code", headers=auth, timeout=60).json()["code"]
            answer = httpx.post(f"{self.url}api/session", json={"code": code}, timeout=60)
            assert answer.status_code == 200, answer.text
            self._page_token = str(answer.json()["token"])
        return self._page_token

    def http(self, token: str | None = "auto", **headers: str) -> httpx.Client:
        """A client of the page's API (token "auto": a page token of this server)."""
        chosen = self.page_token() if token == "auto" else token
        auth = {"Authorization": f"Bearer {chosen}"} if chosen else {}
        return httpx.Client(base_url=self.url, headers={**auth, **headers}, timeout=60)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        return self.proc.returncode


def run_ui(env: Env, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *nano_brain_command(),
            "ui",
            "--workspace",
            str(env.workspace),
            "--no-open",
            "--json",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env.vars,
        cwd=env.root,
    )


def start_ui(env: Env, *args: str) -> UiServer:
    """Start `nano-brain ui --no-open --json` and wait for the line it prints when ready."""
    proc = run_ui(env, *args)
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
        raise AssertionError(f"nano-brain ui did not become ready: {''.join(stderr)}")
    return UiServer(proc, json.loads(line[0]), env, stderr)


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, real_provider: EmbeddingProvider
) -> tuple[Env, Fixture]:
    env = make_env(tmp_path_factory.mktemp("ui"))
    return env, build_store(env, real_provider)


@pytest.fixture(scope="module")
def ui(built: tuple[Env, Fixture]) -> Iterator[UiServer]:
    server = start_ui(built[0])
    try:
        yield server
    finally:
        server.stop()


def wait_until(predicate: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def chromium_path() -> str | None:
    path = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    return path if Path(path).exists() else None
