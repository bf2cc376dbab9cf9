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
from nano_brain.history import History
from nano_brain.indexing import index_workspace

from ..mcp.conftest import Env, make_env, nano_brain_command

READY_TIMEOUT = 60.0
REPO = Path(__file__).resolve().parents[2]
#: Screenshots of the page (CI keeps the folder as an artifact).
ARTIFACTS = Path(os.environ.get("NANO_BRAIN_ARTIFACTS", REPO / "test-artifacts")) / "ui"
# The flags the code-server end-to-end test uses for headless Chromium on these machines.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
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
            index_workspace(code)
            code.anchor(fx.ids["discount_decision"], "billing.py::apply_discount")
            code.anchor(fx.ids["tax_note"], "billing.py::tax")
        (ws / "billing.py").write_text(BILLING_V2)  # the tax note's anchor goes stale
        with Brain(ws, config=config, provider=provider, code_provider=None) as brain:
            index_workspace(CodeIndex(brain))
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (a failure in CI when it is missing)."""
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: .ci/run installs it with apt-get")
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# -- a workspace as a user's: a git repository of a few hundred files, its history indexed,
# notes over four months, decisions with a supersede chain, notes anchored to a few files --

SHOP_PACKAGES = (
    "api", "billing", "catalog", "db", "notifications", "orders",
    "payments", "search", "shipping", "users", "utils", "reports",
)  # fmt: skip
SHOP_MODULES = (
    "models", "service", "views", "handlers", "schemas", "errors", "cache", "rules",
    "tasks", "client", "helpers", "validators", "events", "admin", "forms", "signals",
    "queries", "constants", "config", "metrics",
)  # fmt: skip
#: files with notes anchored to one of their functions, and how many notes each
NOTED_FILES = {
    "shop/billing/rules.py": 5,
    "shop/payments/service.py": 3,
    "shop/orders/handlers.py": 2,
    "shop/api/views.py": 1,
    "shop/shipping/rules.py": 1,
}
#: the noted file whose code changes after its notes were anchored (its anchors go stale)
STALE_FILE = "shop/shipping/rules.py"


@dataclass
class Workspace:
    """A store like a user's, for the page's views; ids by role."""

    ids: dict[str, str] = field(default_factory=dict)
    decisions: set[str] = field(default_factory=set)
    chain: list[str] = field(default_factory=list)
    files: int = 0


def _module(package: str, module: str, revision: int = 0) -> str:
    return (
        f'"""The {module} of {package}."""\n\n\n'
        f"def {module}_entry(value):\n"
        f"    return value + {revision}\n\n\n"
        f"def {module}_check(value):\n"
        f"    return value is not None\n"
    )


def _git(ws: Path, *args: str, when: float | None = None) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada Lovelace",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
    }
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(var, None)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{int(when)} +0000"
    subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True)


def build_workspace_store(env: Env, provider: EmbeddingProvider) -> Workspace:
    """240 committed files in 12 packages with 31 commits over four months, their history
    and code indexed; 24 notes, 11 decisions (three of them a supersede chain, one titled
    with markup), a superseded note, 12 notes anchored to five files (one file's anchors
    stale), a retraction and two agents' notes held for review."""
    ws = env.workspace
    (ws / ".nano-brain.yml").write_text("review:\n  enabled: true\n")
    out = Workspace()
    # four months up to today: the agents' notes, written now, end the timeline
    t0 = (time.time() // DAY - 125) * DAY
    _git(ws, "init", "-q", "-b", "main")
    for package in SHOP_PACKAGES:
        for module in SHOP_MODULES:
            target = ws / "shop" / package / f"{module}.py"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_module(package, module))
            out.files += 1
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "Initial import of the shop", when=t0)
    for i in range(1, 30):  # each commit touches a few modules of one package
        package = SHOP_PACKAGES[i % len(SHOP_PACKAGES)]
        for module in SHOP_MODULES[i % 7 :: 7]:
            (ws / "shop" / package / f"{module}.py").write_text(_module(package, module, i))
        _git(ws, "commit", "-q", "-am", f"{package}: revision {i}", when=t0 + i * 4 * DAY)
    with pytest.MonkeyPatch.context() as mp:
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            mp.setenv(var, env.vars[var])
        mp.setenv("GIT_CONFIG_GLOBAL", os.devnull)
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        config = load_config(ws)
        with Brain(ws, config=config, provider=provider, code_provider=None) as brain:
            for i in range(24):
                out.ids[f"note{i}"] = brain.write(
                    f"Ops note {i}: the nightly job {i % 5} ran {i * 3} retries; queue depth "
                    f"peaked at {100 + i * 7}.",
                    title=f"Nightly job {i % 5}: run {i}",
                    tags=["ops"],
                    created_at=t0 + i * 5 * DAY + 3600,
                ).document.id
            # a decision superseded twice: a chain of three
            chain = [
                ("Refunds within 14 days", "Refunds are accepted within 14 days of delivery."),
                ("Refunds within 30 days", "Refunds are accepted within 30 days of delivery."),
                ("Refunds within 30 days, store credit after",
                 "Refunds within 30 days; store credit up to 90 days after delivery."),
            ]  # fmt: skip
            previous = None
            for step, (title, text) in enumerate(chain):
                doc = brain.write(
                    text,
                    title=title,
                    tags=["decision", "refunds"],
                    created_at=t0 + (10 + step * 35) * DAY,
                    supersedes=previous,
                ).document.id
                out.chain.append(doc)
                out.decisions.add(doc)
                previous = doc
            out.ids["refund_decision"] = previous or ""
            decisions = (
                ("Money as integer cents", "Amounts are integer cents, never floats."),
                ("Postgres for orders", "Orders live in PostgreSQL; the cache is Redis."),
                ("Retry charges three times", "A failed charge is retried three times."),
                ("Ship from the nearest depot", "Shipping picks the nearest depot by zip."),
                ("API errors as problem+json", "Every API error is RFC 9457 problem+json."),
                ("Discounts round down", "Discounts round down to whole cents."),
                ("Search by trigram", "Catalog search uses trigram matching."),
                # memory text may come from a stranger's repository: shown as text, never markup
                ("Cache keys <b>per tenant</b>", "Cache keys carry the tenant <img src=x>."),
            )
            for i, (title, text) in enumerate(decisions):
                doc = brain.write(
                    text, title=title, tags=["decision"], created_at=t0 + (6 + i * 16) * DAY
                ).document.id
                out.ids[f"decision{i}"] = doc
                out.decisions.add(doc)
            first = brain.write(
                "Deploys: tag, build, push.", title="Deploy checklist", created_at=t0 + 20 * DAY
            ).document.id
            out.ids["checklist"] = brain.write(
                "Deploys: tag, build, run the migrations, push.",
                title="Deploy checklist with migrations",
                created_at=t0 + 70 * DAY,
                supersedes=first,
            ).document.id
            out.ids["old_checklist"] = first
            wrong = brain.write(
                "Coupons stack without limit.", title="Coupons stack", created_at=t0 + 50 * DAY
            ).document.id
            brain.retract(wrong, reason="coupons never stack: see the billing rules")
            out.ids["retracted"] = wrong
            code = CodeIndex(brain)
            index_workspace(code)
            anchored = [out.ids["decision0"], out.ids["decision5"], out.ids["refund_decision"]]
            anchored += [out.ids[f"note{i}"] for i in range(9)]
            for path, count in NOTED_FILES.items():
                module = Path(path).stem
                for _ in range(count):
                    code.anchor(anchored.pop(0), f"{path}::{module}_entry")
        stale = ws / STALE_FILE
        stale.write_text(stale.read_text().replace("return value + ", "return value * 2 + "))
        _git(ws, "commit", "-q", "-am", "shipping: double the base rate", when=t0 + 121 * DAY)
        with Brain(ws, config=config, provider=provider, code_provider=None) as brain:
            index_workspace(CodeIndex(brain))
            History(brain).index()
        with Brain(ws, config=config, provider=provider, actor="mcp") as agent:
            for i, title in enumerate(("Agent: cache warm-up order", "Agent: flaky tests")):
                out.ids[f"agent{i}"] = agent.write(
                    f"{title}. Written by an agent in session {i}.", title=title, tags=["agent"]
                ).document.id
    return out
