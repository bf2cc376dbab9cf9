"""Crash safety: writers SIGKILLed at random points leave a store that is whole.

A writer is a real front end: `nano-brain mcp` (stdio) or `nano-brain serve` (HTTP) driven by
the MCP SDK's client, a `nano-brain write` process, or a `nano-brain index` run. Each is
killed with SIGKILL at a moment drawn from a seeded RNG: after some acknowledged writes, in the
middle of a big note's background embedding, during a code index run's write phase or its
embedding. After every kill the store is checked as the next process finds it
(:func:`harness.check_store`): integrity checks pass, every acknowledged note is there exactly
once and lexically findable, a write cut off by the kill is there whole or not at all; and the
vectors left pending catch up when `nano-brain mcp` starts again.

The numbers are module constants; the closing note of issue 13 reports them.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client, StdioServerParameters

from nano_brain import paths
from nano_brain.search import validate_request
from nano_brain.store import Store
from nano_brain.store.code import FULLTEXT_PENDING_KEY

from ..mcp.conftest import make_env, start_serve
from .harness import (
    Ledger,
    Note,
    announce,
    check_store,
    cli_json,
    generate_tree,
    kill_group,
    lexical_brain,
    make_note,
    nano_brain,
    popen,
    subprocess_env,
    wait_until,
)

SEED = 13
#: Kills of an MCP server while it acknowledges small notes (half stdio, half HTTP).
MCP_KILLS = 12
#: Kills of an MCP server while it embeds a big note it acknowledged.
EMBED_KILLS = 6
#: Kills of a `nano-brain write` process at a random moment of its life.
CLI_KILLS = 10
#: Kills of a `nano-brain index` run (at random, in its write phase, in its embedding).
INDEX_KILLS = 6
#: Paragraphs (about 1 KB each) of a big note: several batches of chunks to embed.
BIG_PARAGRAPHS = 100
CALL_TIMEOUT = 120.0

pytestmark = pytest.mark.timeout(900)


@dataclass
class Tally:
    """What one test did, printed past the capture for the closing note and CI's log."""

    name: str
    kills: int = 0
    acked: int = 0
    in_flight: int = 0
    in_flight_found: int = 0
    pending_after_kill: list[int] = field(default_factory=list)
    unfinished_bulk: int = 0

    def add(self, ledger: Ledger, found: int, pending: int) -> None:
        self.kills += 1
        self.acked = len(ledger.acked)
        self.in_flight = len(ledger.in_flight)
        self.in_flight_found = found
        self.pending_after_kill.append(pending)

    def show(self, capsys: pytest.CaptureFixture[str], seconds: float) -> None:
        during = sum(1 for p in self.pending_after_kill if p)
        announce(
            capsys,
            f"[crash] {self.name}: {self.kills} kills survived ({during} with vectors "
            f"pending), {self.acked} writes acknowledged, 0 lost, 0 duplicated; "
            f"{self.in_flight} cut off by a kill, {self.in_flight_found} of them kept whole; "
            + (f"{self.unfinished_bulk} inside a bulk load; " if self.unfinished_bulk else "")
            + f"{seconds:.0f} s",
        )


# -- MCP servers that can be killed --------------------------------------------------------------


@asynccontextmanager
async def mcp_server(
    workspace: Path, transport: str, scratch: Path
) -> AsyncIterator[tuple[Client, Callable[[], None]]]:
    """An SDK client on a fresh server for ``workspace`` and a function that SIGKILLs it."""
    if transport == "stdio":
        pidfile = scratch / "server.pid"
        # the shell writes its pid, then becomes the server: that pid is the one to kill
        params = StdioServerParameters(
            command="/bin/sh",
            args=["-c", 'echo $$ > "$0"; exec "$@"', str(pidfile),
                  *nano_brain("mcp", "--workspace", str(workspace))],
            env=subprocess_env(),
            cwd=str(scratch),
        )  # fmt: skip
        async with Client(params) as client:
            pid = int(pidfile.read_text())
            yield client, lambda: _kill(pid)
        return
    env = make_env(scratch)
    env.workspace, env.vars = workspace, subprocess_env()
    served = start_serve(env)
    try:
        async with served.client() as client:
            yield client, lambda: _kill(served.proc.pid)
    finally:
        served.stop()


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    # gone (or a zombie): its file descriptors and SQLite locks are released
    wait_until(lambda: _state(pid) in ("", "Z"), 30)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


async def write_note(client: Client, note: Note) -> str:
    with anyio.fail_after(CALL_TIMEOUT):
        result = await client.call_tool("memory_write", {"content": note.content})
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return str(result.structured_content["document"]["id"])


async def kill_while_embedding(
    client: Client,
    kill: Callable[[], None],
    *,
    note: Note,
    ledger: Ledger,
    workspace: Path,
    delay: float,
) -> None:
    """Write a big note; once the server's background worker has stored its first batch of
    vectors, wait ``delay`` seconds more and SIGKILL the server (in a later batch, or
    between two)."""
    ledger.acked.append(note.acked(await write_note(client, note)))
    store = Store(paths.default_db_path(workspace), paths.workspace_id(workspace))
    try:
        pending = store.pending_count()
        await anyio.to_thread.run_sync(
            lambda: wait_until(lambda: store.pending_count() < pending, 120, step=0.005)
        )
    finally:
        store.close()
    await anyio.sleep(delay)
    kill()


async def kill_while_writing(
    client: Client,
    kill: Callable[[], None],
    *,
    notes: Callable[[int], Note],
    ledger: Ledger,
    acks_before: int,
    delay: float,
) -> None:
    """Write notes one after another; ``delay`` seconds after the ``acks_before``-th
    acknowledgement, SIGKILL the server. A write whose answer never came is in flight."""
    acked_now = anyio.Event()
    killed = False

    async def writer() -> None:
        i = 0
        while True:
            note = notes(i)
            # in flight until its answer comes, however the kill ends this task
            ledger.in_flight.append(note)
            try:
                doc_id = await write_note(client, note)
            except Exception:
                if not killed:
                    raise
                return
            ledger.in_flight.remove(note)
            ledger.acked.append(note.acked(doc_id))
            i += 1
            if i >= acks_before:
                acked_now.set()

    async def killer() -> None:
        nonlocal killed
        await acked_now.wait()
        await anyio.sleep(delay)
        killed = True
        kill()

    async with anyio.create_task_group() as tg:
        tg.start_soon(writer)
        tg.start_soon(killer)


def run_round(body: Callable[[Client, Callable[[], None]], Any], *args: Any) -> None:
    """Run ``body(client, kill)`` against a server; errors after the kill (the SDK closing a
    dead connection) are expected and ignored, errors before it are not."""

    async def main() -> None:
        killed = False

        def kill_once(kill: Callable[[], None]) -> Callable[[], None]:
            def go() -> None:
                nonlocal killed
                killed = True
                kill()

            return go

        try:
            async with mcp_server(*args) as (client, kill):
                await body(client, kill_once(kill))
        except Exception:
            if not killed:
                raise

    anyio.run(main)


def kill_round(
    body: Callable[[Client, Callable[[], None]], Any],
    workspace: Path,
    transport: str,
    scratch: Path,
    ledger: Ledger,
    tally: Tally,
) -> None:
    """A server killed by ``body``, then the store checked and the kill counted."""
    run_round(body, workspace, transport, scratch)
    report = check_store(workspace, ledger)
    tally.add(ledger, report.in_flight_found, report.pending)


def caught_up(
    workspace: Path,
    tmp_path: Path,
    ledger: Ledger,
    tally: Tally,
    capsys: pytest.CaptureFixture[str],
    started: float,
) -> None:
    """`nano-brain mcp` starts again: nothing stays pending, every chunk has its vector."""
    _catch_up(workspace, tmp_path / "catch-up")
    report = check_store(workspace, ledger)
    assert report.pending == 0 and report.vectors == report.chunks
    tally.show(capsys, time.monotonic() - started)


# -- the suites ----------------------------------------------------------------------------


def test_mcp_servers_killed_while_acknowledging_writes(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    rng = random.Random(SEED)
    ledger = Ledger()
    tally = Tally("MCP writers (stdio and HTTP)")
    for round_no in range(MCP_KILLS):
        transport = ("stdio", "http")[round_no % 2]
        scratch = tmp_path / f"round{round_no}"
        scratch.mkdir()
        acks_before, delay = rng.randint(1, 6), rng.uniform(0.0, 0.3)

        def note(i: int, round_no: int = round_no) -> Note:
            return make_note(rng, f"mcpk{round_no:02d}n{i:03d}", paragraphs=rng.choice((1, 1, 3)))

        body = partial(
            kill_while_writing, notes=note, ledger=ledger, acks_before=acks_before, delay=delay
        )
        kill_round(body, workspace, transport, scratch, ledger, tally)
    assert tally.kills == MCP_KILLS and len(ledger.acked) >= MCP_KILLS
    caught_up(workspace, tmp_path, ledger, tally, capsys, started)


def test_mcp_servers_killed_while_embedding_a_big_note(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    rng = random.Random(SEED + 1)
    ledger = Ledger()
    tally = Tally("MCP servers embedding a big note")
    for round_no in range(EMBED_KILLS):
        transport = ("http", "stdio")[round_no % 2]
        scratch = tmp_path / f"round{round_no}"
        scratch.mkdir()
        big = make_note(rng, f"bigk{round_no:02d}", paragraphs=BIG_PARAGRAPHS)
        delay = rng.uniform(0.0, 0.2)
        body = partial(
            kill_while_embedding, note=big, ledger=ledger, workspace=workspace, delay=delay
        )
        kill_round(body, workspace, transport, scratch, ledger, tally)
    # the kills landed while chunks were waiting for their vectors
    assert sum(1 for p in tally.pending_after_kill if p) >= EMBED_KILLS // 2
    caught_up(workspace, tmp_path, ledger, tally, capsys, started)


def test_cli_writers_killed_at_random_moments(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    rng = random.Random(SEED + 2)
    ledger = Ledger()
    tally = Tally("CLI writers")
    # one write to the end, to learn how long a write lives on this (shared, loaded) machine
    first = make_note(rng, "clicalib")
    t0 = time.monotonic()
    out = cli_json("write", "-w", str(workspace), first.content)
    lifetime = time.monotonic() - t0
    ledger.acked.append(first.acked(out["document"]["id"]))
    attempt = 0
    while tally.kills < CLI_KILLS:
        attempt += 1
        assert attempt <= 3 * CLI_KILLS, "the writers kept finishing before their kill"
        note = make_note(rng, f"clik{attempt:02d}", paragraphs=rng.choice((1, 4, 12)))
        source = tmp_path / f"note{attempt}.md"
        source.write_text(note.content, encoding="utf-8")
        delay = rng.uniform(0.1, 1.1) * lifetime
        with popen("write", "--json", "-w", str(workspace), "--file", str(source)) as proc:
            try:
                stdout, stderr = proc.communicate(timeout=delay)
            except subprocess.TimeoutExpired:  # still writing: kill it
                kill_group(proc)
                ledger.in_flight.append(note)
            else:
                assert proc.returncode == 0, stderr
                ledger.acked.append(note.acked(json.loads(stdout)["document"]["id"]))
                continue
        report = check_store(workspace, ledger)
        tally.add(ledger, report.in_flight_found, report.pending)
    # what the killed writers left pending is embedded when `nano-brain mcp` starts
    caught_up(workspace, tmp_path, ledger, tally, capsys, started)


def test_index_runs_killed_while_writing_and_embedding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    rng = random.Random(SEED + 3)
    tally = Tally("code index runs")
    ledger = Ledger()
    # one run to the end, to learn how long a run lives on this (shared, loaded) machine
    generate_tree(tmp_path / "calibration", rng, files=60)
    t0 = time.monotonic()
    cli_json("index", "-w", str(tmp_path / "calibration"), "--no-embed")
    lifetime = time.monotonic() - t0
    attempt = 0
    root = tmp_path
    while tally.kills < INDEX_KILLS:
        attempt += 1
        assert attempt <= 3 * INDEX_KILLS, "the index runs kept finishing before their kill"
        root = tmp_path / f"tree{attempt}"
        expected = generate_tree(root, rng, files=rng.randint(50, 70))
        how = ("any moment", "write phase", "embedding")[tally.kills % 3]
        args = ["index", "-w", str(root), "--embed" if how == "embedding" else "--no-embed"]
        with popen(*args) as proc:
            _wait_for(how, root, proc, rng, lifetime)
            finished = proc.poll() is not None
            kill_group(proc)
        if not finished:
            store = Store(paths.default_db_path(root), paths.workspace_id(root))
            if store.meta_get(FULLTEXT_PENDING_KEY) == "1":
                tally.unfinished_bulk += 1  # killed inside a bulk load: the next open repairs it
            store.close()
            report = check_store(root, ledger)
            tally.add(ledger, 0, report.pending)
        # the next run finishes the job: every file and symbol, findable
        done = cli_json("index", "-w", str(root), "--no-embed")
        assert (done["files"], done["symbols"]) == (len(expected), sum(map(len, expected.values())))
        with lexical_brain(root) as brain:
            for path, names in expected.items():
                name = rng.choice(names)
                request = validate_request(
                    query=name, mode="lexical", kind=["code"], limit=5, track=False
                )
                titles = [hit.title for hit in brain.search(request).results]
                assert any(name in t for t in titles), (path, name, titles)
        check_store(root, ledger)
    caught_up(root, tmp_path, ledger, tally, capsys, started)


# -- helpers ---------------------------------------------------------------------------------


def _catch_up(workspace: Path, scratch: Path, timeout: float = 600.0) -> None:
    """Start `nano-brain mcp` again: its background worker embeds whatever is pending."""
    scratch.mkdir()

    async def main() -> None:
        async with mcp_server(workspace, "stdio", scratch) as (client, _):
            deadline = time.monotonic() + timeout
            while True:
                status = await client.call_tool("memory_status", {})
                assert not status.is_error and status.structured_content is not None
                if status.structured_content["pending_embeddings"] == 0:
                    return
                assert time.monotonic() < deadline, "pending vectors did not catch up"
                await anyio.sleep(0.5)

    anyio.run(main)


def _wait_for(how: str, root: Path, proc: Any, rng: random.Random, lifetime: float) -> None:
    """Wait for the moment to kill an index run: a random one of its ``lifetime``, once it
    has written symbols, or once it embeds them."""
    if how == "any moment":
        time.sleep(rng.uniform(0.1, 0.9) * lifetime)
        return
    db = paths.default_db_path(root)
    assert wait_until(lambda: db.exists() or proc.poll() is not None, 120)
    store = Store(db, paths.workspace_id(root))
    try:
        if how == "write phase":
            # symbol chunks committed: the run is between its batches and its resolution
            assert wait_until(
                lambda: store.pending_count("code") > 0 or proc.poll() is not None, 120
            )
            time.sleep(rng.uniform(0.0, 0.03))
        else:
            first = [0]

            def embedding() -> bool:
                pending = store.pending_count("code")
                if pending and not first[0]:
                    first[0] = pending
                return bool(first[0]) and pending < first[0] or proc.poll() is not None

            assert wait_until(embedding, 300, step=0.1)
            time.sleep(rng.uniform(0.0, 0.3))
    finally:
        store.close()
