"""Three kinds of process on one workspace at once: none fails, no write is lost or doubled.

The editor's sidecar (`nano-brain lsp`, driven by pygls's client) indexes the workspace's code
and saves decisions; `nano-brain serve` answers eight MCP SDK clients over HTTP that write and
search concurrently; a CLI loop runs `nano-brain write` and `nano-brain query` processes. All
of them start together. Every operation must succeed (no "database is locked", no isError, no
JSON-RPC error), each search must find the note its writer wrote just before, and afterwards
every acknowledged note is in the store exactly once, with nothing else beside the code.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from mcp import Client

from ..lsp.conftest import Session, start, stop
from ..mcp.conftest import make_env, start_serve
from .harness import (
    Ledger,
    Note,
    announce,
    check_store,
    cli,
    generate_tree,
    lexical_brain,
    make_note,
    subprocess_env,
)

SEED = 31
#: MCP SDK clients on one `nano-brain serve`, each writing then searching.
CLIENTS = 8
CLIENT_WRITES = 12
#: Decisions saved through the sidecar (each followed by a search there).
SIDECAR_WRITES = 16
#: `nano-brain write` processes (each followed by `nano-brain search` and `query` processes).
CLI_WRITES = 5
#: Source files the sidecar indexes while the others write (a bulk load: 48 or more).
TREE_FILES = 60
OP_TIMEOUT = 180.0

pytestmark = pytest.mark.timeout(900)


@dataclass
class Outcome:
    """Every operation done and every one that failed, by front end."""

    ops: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    async def run(self, who: str, what: str, op: Awaitable[Any]) -> Any:
        self.ops[who] = self.ops.get(who, 0) + 1
        try:
            return await asyncio.wait_for(op, OP_TIMEOUT)
        except Exception as exc:  # every failure is counted and reported at the end
            self.errors.append(f"{who} {what}: {type(exc).__name__}: {exc}")
            return None

    def failed(self, who: str, what: str, why: str) -> None:
        self.errors.append(f"{who} {what}: {why}")


def test_sidecar_server_and_cli_write_and_search_one_workspace(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    rng = random.Random(SEED)
    expected_code = generate_tree(workspace, rng, files=TREE_FILES)
    outcome = Outcome()
    ledger = Ledger()
    env = make_env(tmp_path / "serve")
    env.workspace, env.vars = workspace, subprocess_env()
    served = start_serve(env)
    try:
        asyncio.run(_all_at_once(workspace, served, rng, outcome, ledger))
    finally:
        served.stop()
    server_log = "".join(served.stderr)
    assert "locked" not in server_log and "Traceback" not in server_log, server_log[-3000:]
    assert outcome.errors == [], outcome.errors[:20]
    total = CLIENTS * CLIENT_WRITES + SIDECAR_WRITES + CLI_WRITES
    assert len(ledger.acked) == total
    check_store(workspace, ledger)
    with lexical_brain(workspace) as brain:
        status = brain.status()
        # nothing written twice, nothing else written: one note per acknowledged write
        assert status["by_kind"].get("note") == total, status["by_kind"]
        assert len({n.id for n in ledger.acked}) == total
    symbols = sum(map(len, expected_code.values()))
    announce(
        capsys,
        f"[concurrency] {sum(outcome.ops.values())} operations ({outcome.ops}), "
        f"{len(outcome.errors)} errors; {total} writes acknowledged, 0 lost, 0 duplicated; "
        f"{symbols} symbols indexed meanwhile; {time.monotonic() - started:.0f} s",
    )


async def _all_at_once(
    workspace: Path, served: Any, rng: random.Random, outcome: Outcome, ledger: Ledger
) -> None:
    notes = {
        who: [make_note(rng, f"{who}w{i:03d}", paragraphs=rng.choice((1, 1, 2))) for i in range(n)]
        for who, n in [(f"mcp{c}", CLIENT_WRITES) for c in range(CLIENTS)]
        + [("lsp", SIDECAR_WRITES), ("cli", CLI_WRITES)]
    }
    session = await start(workspace, options={"mcp": {"transport": "off"}})
    go = asyncio.Event()
    try:
        # the sidecar opens its folder on a thread after `initialized`; its first index pass
        # (a bulk load of the tree) starts then and runs alongside the writers
        await asyncio.wait_for(_folder_open(session), OP_TIMEOUT)
        tasks = [
            _mcp_client(served, f"mcp{c}", notes[f"mcp{c}"], go, outcome, ledger)
            for c in range(CLIENTS)
        ]
        tasks.append(_sidecar(session, workspace, notes["lsp"], go, outcome, ledger))
        tasks.append(asyncio.to_thread(_cli_loop, workspace, notes["cli"], outcome, ledger))
        runner = asyncio.gather(*tasks)
        await asyncio.sleep(0)
        go.set()
        await runner
        # the sidecar's first index pass ran alongside: it must have finished cleanly
        await session.indexed(timeout=OP_TIMEOUT)
        counts = (await session.status()).folders[0].counts
        if counts.files != TREE_FILES:
            outcome.failed("lsp", "index", f"indexed {counts.files} files of {TREE_FILES}")
        errors = [m.message for m in session.messages if m.type == lsp.MessageType.Error]
        errors += [m.message for m in session.logs if m.type == lsp.MessageType.Error]
        outcome.errors.extend(f"lsp said: {m}" for m in errors)
    finally:
        await stop(session)


async def _folder_open(session: Session) -> None:
    while not (await session.status()).folders:
        await asyncio.sleep(0.1)


async def _mcp_client(
    served: Any, who: str, notes: list[Note], go: asyncio.Event, outcome: Outcome, ledger: Ledger
) -> None:
    async with served.client() as client:
        await go.wait()
        for note in notes:
            result = await outcome.run(who, "write", _mcp_write(client, note))
            if result is None:
                continue
            ledger.acked.append(note.acked(result))
            found = await outcome.run(who, "search", _mcp_search(client, "memory_search", note))
            if found is not None and result not in found:
                outcome.failed(who, "search", f"{note.token} not found after its write")
            # hybrid: must answer; its ranking is not asserted (a note whose vector is still
            # pending can rank below near matches that have one)
            await outcome.run(who, "query", _mcp_search(client, "memory_query", note))


async def _mcp_write(client: Client, note: Note) -> str:
    result = await client.call_tool("memory_write", {"content": note.content})
    if result.is_error or result.structured_content is None:
        raise AssertionError(f"isError: {result.content}")
    return str(result.structured_content["document"]["id"])


async def _mcp_search(client: Client, tool: str, note: Note) -> list[str]:
    result = await client.call_tool(tool, {"query": note.token, "max_results": 5})
    if result.is_error or result.structured_content is None:
        raise AssertionError(f"isError: {result.content}")
    return [hit["id"] for hit in result.structured_content["results"]]


async def _sidecar(
    session: Session,
    workspace: Path,
    notes: list[Note],
    go: asyncio.Event,
    outcome: Outcome,
    ledger: Ledger,
) -> None:
    await go.wait()
    root = str(workspace)
    for note in notes:
        args = {"root": root, "title": f"Decision {note.token}", "text": note.content}
        saved = await outcome.run("lsp", "recordDecision", session.command(
            "nano-brain.recordDecision", args))  # fmt: skip
        if saved is None:
            continue
        doc_id = saved["note"]["id"]
        ledger.acked.append(note.acked(doc_id))
        found = await outcome.run("lsp", "search", _lsp_search(session, root, note.token))
        if found is not None and doc_id not in found:
            outcome.failed("lsp", "search", f"{note.token} not found after its write")


async def _lsp_search(session: Session, root: str, token: str) -> list[str]:
    found = await session.client.protocol.send_request_async(
        "nano-brain/search", {"root": root, "query": token, "limit": 5, "mode": "lexical"}
    )
    return [hit.id for hit in found.results]  # pygls: a custom request's result as objects


def _cli_loop(workspace: Path, notes: list[Note], outcome: Outcome, ledger: Ledger) -> None:
    for note in notes:
        outcome.ops["cli"] = outcome.ops.get("cli", 0) + 3
        wrote = cli("write", "--json", "-w", str(workspace), note.content, timeout=OP_TIMEOUT)
        if wrote.returncode != 0:
            outcome.failed("cli", "write", wrote.stderr.strip()[-500:])
            continue
        doc_id = json.loads(wrote.stdout)["document"]["id"]
        ledger.acked.append(note.acked(doc_id))
        found = cli("search", "--json", "-w", str(workspace), note.token, timeout=OP_TIMEOUT)
        if found.returncode != 0:
            outcome.failed("cli", "search", found.stderr.strip()[-500:])
        elif doc_id not in [h["id"] for h in json.loads(found.stdout)["results"]]:
            outcome.failed("cli", "search", f"{note.token} not found after its write")
        hybrid = cli("query", "--json", "-w", str(workspace), note.token, timeout=OP_TIMEOUT)
        if hybrid.returncode != 0:
            outcome.failed("cli", "query", hybrid.stderr.strip()[-500:])
