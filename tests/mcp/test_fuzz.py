"""Every MCP tool's arguments, fuzzed through the real SDK client against one long-running
`nano-brain mcp` stdio server.

The only allowed outcomes of a call: a result, an `isError` result with one line that names
the tool (no traceback, no "internal error"), or a JSON-RPC error with one line (a request
the strict JSON parser refuses, e.g. nesting past 200 levels). After every call the server
answers a ping; after all of them the store passes `PRAGMA integrity_check`.

Deterministic (derandomized, no example database) and bounded: EXAMPLES per tool.
"""

from __future__ import annotations

import collections
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from nano_brain.store.sqlite._driver import sqlite_module

from .conftest import Env, make_env, nano_brain_command, stdio_client
from .fuzzing import tool_arguments

pytestmark = pytest.mark.filterwarnings("ignore:ping is removed")

EXAMPLES = 100
CALL_TIMEOUT = 60.0

SOURCE = '''\
def parse_config(path):
    """Read a YAML config file."""
    return load(path)


def load(path):
    return open(path).read()
'''


SYMBOLS = ["config.py::parse_config", "parse_config", "load", "config.py::load"]


@dataclass
class Fuzzed:
    portal: BlockingPortal
    client: Client
    env: Env
    schemas: dict[str, dict[str, Any]]
    known: list[str]
    """Real document refs (ids, #ids, source paths), so some calls find what they name."""
    outcomes: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )

    def call(self, name: str, args: dict[str, Any]) -> Any:
        async def run() -> Any:
            with anyio.fail_after(CALL_TIMEOUT):
                return await self.client.call_tool(name, args)

        return self.portal.call(run)

    def ping(self) -> None:
        async def run() -> None:
            with anyio.fail_after(CALL_TIMEOUT):
                await self.client.send_ping()

        self.portal.call(run)


@pytest.fixture(scope="module")
def fuzzed(
    tmp_path_factory: pytest.TempPathFactory,
    _mcp_store: str,  # one per store: a server reads its store from its env at start
) -> Iterator[Fuzzed]:
    env = make_env(tmp_path_factory.mktemp("fuzz"))
    (env.workspace / "config.py").write_text(SOURCE)
    subprocess.run(
        [*nano_brain_command(), "index", "--workspace", str(env.workspace)],
        env=env.vars,
        check=True,
        capture_output=True,
        timeout=300,
    )
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(env, mode="legacy")) as client:
            tools = portal.call(client.list_tools).tools
            schemas = {t.name: t.input_schema for t in tools}
            known: list[str] = []
            fuzz = Fuzzed(portal, client, env, schemas, known)
            for i, text in enumerate(["Decision: use SQLite", "Parser notes", "Session recap"]):
                args = {"content": text, "tags": ["seed", f"n{i}"], "source_path": f"s/{i}.md"}
                doc = fuzz.call("memory_write", args).structured_content["document"]
                known += [doc["id"], f"#{doc['id']}", f"s/{i}.md"]
            yield fuzz


@pytest.mark.parametrize(
    "tool",
    [  # destructive tools last, so the others meet documents that exist
        "memory_write",
        "memory_query",
        "memory_search",
        "memory_vsearch",
        "memory_get",
        "memory_history",
        "memory_wake_up",
        "memory_tags",
        "memory_status",
        "code_symbols",
        "code_callers",
        "code_callees",
        "code_impact",
        "code_why",
        "code_search",
        "memory_anchor",
        "memory_unanchor",
        "code_routes",
        "memory_retract",
        "memory_supersede",
        "memory_delete",
    ],
)
def test_tool_arguments_fuzz(fuzzed: Fuzzed, tool: str) -> None:
    assert tool in fuzzed.schemas, f"{tool} is not listed; update the fuzz list"
    known = SYMBOLS if tool.startswith("code_") else fuzzed.known
    strategy = tool_arguments(fuzzed.schemas[tool], known)

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        args = data.draw(strategy, label="arguments")
        fuzzed.outcomes[tool][_outcome(fuzzed, tool, args)] += 1
        fuzzed.ping()

    run()


def _outcome(fuzzed: Fuzzed, tool: str, args: dict[str, Any]) -> str:
    try:
        result = fuzzed.call(tool, args)
    except MCPError as exc:
        assert exc.code in (-32700, -32600, -32602), (tool, args, exc.code, exc.message)
        _assert_one_clean_line(exc.message, tool, args)
        return "rpc-error"
    if result.is_error:
        text = result.content[0].text
        _assert_one_clean_line(text, tool, args)
        assert text.startswith(f"{tool}:"), (tool, args, text)
        return "error"
    assert isinstance(result.structured_content, dict), (tool, args, result)
    if tool == "memory_write" and len(fuzzed.known) < 40:
        fuzzed.known.append(result.structured_content["document"]["id"])
    return "result"


def _assert_one_clean_line(text: str, tool: str, args: dict[str, Any]) -> None:
    assert text and "\n" not in text, (tool, args, text)
    assert "Traceback" not in text and "internal error" not in text.lower(), (tool, args, text)
    assert len(text) < 1000, (tool, args, len(text))


def test_store_is_intact_after_fuzzing(fuzzed: Fuzzed) -> None:
    """Runs last in this module: the store the fuzzing wrote to passes integrity_check (on a
    team store, the clone's own file: its code index)."""
    fuzzed.ping()
    counts = {tool: dict(c) for tool, c in sorted(fuzzed.outcomes.items())}
    print("\nMCP fuzz outcomes per tool:", counts)
    stores = list((fuzzed.env.root / "xdg_data_home").rglob("brain*.db"))
    assert len(stores) == 1, stores
    # The store's own SQLite: an older library (Debian's 3.40) misreads its tables.
    db = sqlite_module().connect(f"file:{stores[0]}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        db.close()
    total = sum(sum(c.values()) for c in fuzzed.outcomes.values())
    assert total >= EXAMPLES * len(fuzzed.schemas) * 0.9, counts
