"""End to end: every credential shape of the corpus enters nano-brain each way a user's text
does, and no piece of it is in anything the product writes.

The ways in: a Claude Code transcript harvested by `nano-brain harvest` (the shape pasted in
the prompt, run as a command, echoed in a failed tool's output and quoted in the answer),
summarised by an OpenAI-compatible endpoint double that records what it is sent; a note per
shape written through the CLI (`nano-brain write`, one process for all of them and the click
command in-process for each); a note per shape through MCP (`memory_write`, the MCP SDK
client against `nano-brain serve`). Every process logs at DEBUG to a file.

Where a secret must not be: any file under the data, state and config folders (the stores'
brain.db, -wal and -shm as raw bytes, read while the server still runs and again after it
stopped), the full-text index (trigram and word indexes queried, shadow tables read), the
log files, and the bodies of the requests sent to the summarising endpoint. A secret counts
as leaked if any 8-character piece of it is found.
"""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import numpy as np
import pytest
from click.testing import CliRunner

from nano_brain.cli import main
from nano_brain.harvest.claude_code import encode_cwd
from nano_brain.store.sqlite._driver import sqlite_module

from ._credentials import Shape, credential_shapes, fragments
from .conftest import trust_workspace_config
from .mcp.conftest import Env, Served, nano_brain_command

SHAPES = credential_shapes()
LLM_SUMMARY = "## Summary\n\nThe user debugged a configuration problem."


class _Endpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint: records each request body, answers a summary that
    quotes the request back (as a model may), so the answer is redacted too."""

    bodies: list[str]

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        self.bodies.append(body)
        quoted = json.loads(body)["messages"][-1]["content"][:2000]
        answer = {
            "choices": [{"message": {"role": "assistant", "content": f"{LLM_SUMMARY}\n\n{quoted}"}}]
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _session_id(shape: Shape) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"nano-brain-redaction/{shape.id}"))


def _transcript(shape: Shape, cwd: Path) -> str:
    """A Claude Code session in which the shape appears everywhere the harvester reads."""
    sid = _session_id(shape)
    common = {"sessionId": sid, "cwd": str(cwd), "isSidechain": False, "userType": "external",
              "version": "2.0.64", "gitBranch": "main"}  # fmt: skip
    command = (
        shape.text if shape.where == "command" else f"cat <<'EOF' > cfg.txt\n{shape.text}\nEOF"
    )
    ask = {"role": "user", "content": f"{shape.text}\n\nwhy does this fail?"}
    run = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": command}}
    failed = {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
              "content": f"error: rejected\n{shape.text}"}  # fmt: skip
    answer = {"type": "text", "text": f"The value here is wrong:\n\n{shape.text}\n\nFixed it."}
    model = {"role": "assistant", "model": "claude-sonnet-4-5"}
    lines = [
        {"type": "user", "message": ask},
        {"type": "assistant", "message": {**model, "id": "m1", "content": [run]}},
        {"type": "user", "message": {"role": "user", "content": [failed]}},
        {"type": "assistant", "message": {**model, "id": "m2", "content": [answer]}},
    ]
    out = []
    for i, line in enumerate(lines):
        stamp = f"2026-05-11T11:2{i}:00.000Z"
        out.append(json.dumps({**common, **line, "uuid": f"{sid[:30]}{i:06d}", "timestamp": stamp}))
    return "\n".join(out) + "\n"


@dataclass
class World:
    root: Path
    workspaces: dict[str, Path]
    logs: list[Path]
    llm_bodies: list[str]
    snapshots: list[dict[Path, bytes]] = field(default_factory=list)
    harvested: dict[str, dict] = field(default_factory=dict)
    """session id -> the harvest report's item."""
    notes: dict[str, dict[str, str]] = field(default_factory=dict)
    """front end -> shape id -> the stored note's content."""

    haystack: Haystack = field(default_factory=lambda: Haystack())
    fts_terms: dict[Path, tuple[set[str], set[str]]] = field(default_factory=dict)

    def store_dbs(self) -> list[Path]:
        return sorted((self.root / "xdg_data_home").rglob("brain.db"))

    def index(self, root: Path) -> None:
        for moment, snapshot in zip(
            ("while serving", "after stopping"), self.snapshots, strict=True
        ):
            for path, data in snapshot.items():
                self.haystack.add(f"{path.relative_to(root)} ({moment})", data)
        for log in self.logs:
            self.haystack.add(f"log {log.name}", log.read_bytes())
        for i, body in enumerate(self.llm_bodies):
            self.haystack.add(f"request {i} to the summarising endpoint", body.encode())
        for db in self.store_dbs():
            shadow, words, trigrams = _index_dump(db)
            self.haystack.add(f"full-text shadow tables of {db.relative_to(root)}", shadow)
            self.fts_terms[db] = (words, trigrams)


def _snapshot(root: Path) -> dict[Path, bytes]:
    return {
        path: path.read_bytes()
        for folder in ("xdg_data_home", "xdg_state_home", "xdg_config_home")
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


def _harvest(env: Env, world: World, port: int) -> None:
    ws = world.workspaces["harvest"]
    home = world.root / "home"
    folder = home / ".claude" / "projects" / encode_cwd(ws)
    folder.mkdir(parents=True)
    for shape in SHAPES:
        (folder / f"{_session_id(shape)}.jsonl").write_text(_transcript(shape, ws))
    config = {"harvest": {"agents": ["claude-code"], "summarizer": {
        "provider": "openai", "base_url": f"http://127.0.0.1:{port}/v1", "model": "fake-7b",
        "api_key_env": "NB_E2E_LLM_KEY", "retry_after_s": 0}}}  # fmt: skip
    (ws / ".nano-brain.yml").write_text(json.dumps(config))
    trust_workspace_config(ws, env.vars["XDG_STATE_HOME"])  # it names an endpoint
    log = world.root / "logs" / "harvest.log"
    with log.open("w") as stderr:
        proc = subprocess.run(
            [*nano_brain_command(), "-vv", "harvest", "--workspace", str(ws), "--json"],
            stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=300,
            env={**env.vars, "HOME": str(home), "NB_E2E_LLM_KEY": "local-test-key",
                 "NANO_BRAIN_EMBEDDING__PROVIDER": "none"},
        )  # fmt: skip
    assert proc.returncode == 0, log.read_text()[-3000:]
    world.logs.append(log)
    for item in json.loads(proc.stdout)["items"]:
        world.harvested[item["session_id"]] = item


def _cli(env: Env, world: World) -> None:
    ws = world.workspaces["cli"]
    cli_env = {**env.vars, "NANO_BRAIN_EMBEDDING__PROVIDER": "none"}
    # One real process, every shape in one note, stderr at DEBUG to a file ...
    log = world.root / "logs" / "cli-process.log"
    with log.open("w") as stderr:
        proc = subprocess.run(
            [*nano_brain_command(), "-vv", "write", "--workspace", str(ws), "--file", "-"],
            input="\n\n".join(s.text for s in SHAPES), stdout=subprocess.PIPE, stderr=stderr,
            text=True, timeout=120, env=cli_env,
        )  # fmt: skip
    assert proc.returncode == 0, log.read_text()[-3000:]
    world.logs.append(log)
    # ... and the same command in-process for each shape (a process each would take minutes),
    # the root logger at DEBUG into a file.
    log = world.root / "logs" / "cli.log"
    handler = logging.FileHandler(log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root, level = logging.getLogger(), logging.getLogger().level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        runner = CliRunner()
        notes = world.notes.setdefault("cli", {})
        for shape in SHAPES:
            result = runner.invoke(
                main, ["-vv", "write", "--workspace", str(ws), "--json", "--file", "-"],
                input=shape.text, env=cli_env, catch_exceptions=False,
            )  # fmt: skip
            assert result.exit_code == 0, result.output
            notes[shape.id] = json.loads(result.stdout)["document"]["content"]
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    world.logs.append(log)


def _start_mcp(env: Env, world: World) -> Served:
    log = world.root / "logs" / "mcp.log"
    world.logs.append(log)
    ws = str(world.workspaces["mcp"])
    proc = subprocess.Popen(
        [*nano_brain_command(), "-vv", "serve", "--workspace", ws, "--json"],
        stdout=subprocess.PIPE, stderr=log.open("w"), text=True, env=env.vars, cwd=env.root,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip(), log.read_text()[-3000:]
    return Served(proc, json.loads(line), env, [])


async def _mcp_writes(served: Served, world: World) -> None:
    notes = world.notes.setdefault("mcp", {})
    async with served.client() as client:
        for shape in SHAPES:
            result = await client.call_tool("memory_write", {"content": shape.text})
            assert not result.is_error, result
            notes[shape.id] = result.structured_content["document"]["content"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("redaction-e2e")
    env = Env(root)
    (root / "logs").mkdir()
    workspaces = {}
    for name in ("harvest", "cli", "mcp"):
        workspaces[name] = root / f"ws-{name}"
        workspaces[name].mkdir()
    bodies: list[str] = []
    handler = type("Endpoint", (_Endpoint,), {"bodies": bodies})
    endpoint = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    world = World(root, workspaces, [], bodies)
    served = None
    try:
        _harvest(env, world, endpoint.server_address[1])
        _cli(env, world)
        served = _start_mcp(env, world)
        anyio.run(_mcp_writes, served, world)
        world.snapshots.append(_snapshot(root))  # the server still has the stores open
        served.proc.send_signal(signal.SIGTERM)
        served.proc.wait(timeout=30)
        world.snapshots.append(_snapshot(root))
        world.index(root)
        yield world
    finally:
        if served is not None and served.proc.poll() is None:
            served.proc.kill()
            served.proc.wait()
        endpoint.shutdown()
        endpoint.server_close()


WIDTH = 8


def _windows(data: bytes) -> np.ndarray:
    """Every WIDTH-byte window of `data` as one integer, sorted and unique."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if len(raw) < WIDTH:
        return np.zeros(0, dtype=np.uint64)
    packed = np.zeros(len(raw) - WIDTH + 1, dtype=np.uint64)
    for k in range(WIDTH):
        packed |= raw[k : len(raw) - WIDTH + 1 + k].astype(np.uint64) << np.uint64(8 * k)
    return np.unique(packed)


def _secret_windows(shape: Shape) -> dict[int, str]:
    pieces = {f for secret in shape.secrets for f in fragments(secret, WIDTH) if len(f) == WIDTH}
    return {int(_windows(p.encode())[0]): p for p in pieces}


class Haystack:
    """Named byte sources, each indexed by its 8-byte windows once: a piece of a secret is
    looked up in a sorted array instead of searched for in megabytes, for every shape."""

    def __init__(self) -> None:
        self.sources: dict[str, np.ndarray] = {}

    def add(self, name: str, data: bytes) -> None:
        self.sources[name] = _windows(data)

    def leaks(self, shape: Shape) -> dict[str, list[str]]:
        wanted = _secret_windows(shape)
        keys = np.array(sorted(wanted), dtype=np.uint64)
        found = {}
        for name, windows in self.sources.items():
            if not len(windows):  # shorter than a window (an empty lock file)
                continue
            at = np.searchsorted(windows, keys)
            hit = (at < len(windows)) & (windows[np.minimum(at, len(windows) - 1)] == keys)
            if hit.any():
                found[name] = [wanted[int(k)] for k in keys[hit]][:5]
        return found


def _index_dump(db: Path) -> tuple[bytes, set[str], set[str]]:
    """Every row of the full-text shadow tables as bytes, and the terms of both indexes."""
    conn = sqlite_module().connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND (name LIKE 'chunks_fts_%' OR name LIKE 'chunks_tri_%')")]  # fmt: skip
        parts = []
        for name in names:
            for row in conn.execute(f"SELECT * FROM {name}"):
                parts += [v if isinstance(v, bytes) else str(v).encode() for v in row]
        terms = []
        for table in ("chunks_fts", "chunks_tri"):
            conn.execute(f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, {table}, row)")
            terms.append({row[0] for row in conn.execute(f"SELECT term FROM temp.v_{table}")})
        return b"\x00".join(parts), terms[0], terms[1]
    finally:
        conn.close()


def _trigram_hits(db: Path, trigrams: set[str], shape: Shape) -> list[str]:
    """Pieces of the secret the trigram index finds (it folds case: a hit is confirmed on
    the chunk text it returns)."""
    hits = []
    conn = sqlite_module().connect(f"file:{db}?mode=ro", uri=True)
    try:
        for piece in set(_secret_windows(shape).values()):
            grams = {piece[i : i + 3].lower() for i in range(len(piece) - 2)}
            if not grams <= trigrams:
                continue
            phrase = '"' + piece.replace('"', '""') + '"'
            rows = conn.execute(
                "SELECT title, body FROM chunks_tri WHERE chunks_tri MATCH ?", (phrase,)
            ).fetchall()
            if any(piece in f"{title}\n{body}" for title, body in rows):
                hits.append(piece)
        return hits
    finally:
        conn.close()


def _alnum_words(text: str) -> list[str]:
    return "".join(c if c.isalnum() else " " for c in text).split()


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_secret_is_in_nothing_the_product_writes(world: World, shape: Shape) -> None:
    assert len(world.store_dbs()) == 3 and len(world.llm_bodies) >= len(SHAPES)
    assert world.haystack.leaks(shape) == {}
    for db, (words, trigrams) in world.fts_terms.items():
        leaked_words = {
            w.lower() for s in shape.secrets for w in _alnum_words(s) if len(w) >= WIDTH
        }
        assert not leaked_words & words, f"word index of {db}"
        assert not _trigram_hits(db, trigrams, shape), f"trigram index of {db}"


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_each_front_end_stored_the_note_redacted(world: World, shape: Shape) -> None:
    """The secret reached every way in (so its absence means redaction, not a lost note)."""
    marker = f"[REDACTED:{shape.kind}]"
    item = world.harvested[_session_id(shape)]
    assert item["action"] == "added" and item["summarizer"] == "openai:fake-7b", item
    [body] = [b for b in world.llm_bodies if _session_id(shape) in b]
    sent = json.loads(body)["messages"][-1]["content"]
    # The digest drops long base64 runs as "[binary data]" before anything else sees them.
    assert (marker in sent and item["redactions"] >= 1) or "[binary data]" in sent
    assert marker in world.notes["cli"][shape.id]
    assert marker in world.notes["mcp"][shape.id]
    for log in world.logs:
        assert log.stat().st_size > 0 or log.name == "cli-process.log"
    assert any("DEBUG" in log.read_text() for log in world.logs)


def test_redaction_can_be_switched_off(workspace: Path) -> None:
    """`redact.enabled: false` stores a note as written (the harvester redacts regardless)."""
    from nano_brain import Brain
    from nano_brain.config import load_config

    text = "DB_PASSWORD=" + "Tr0ub4dor-" + "8812"
    off = load_config(
        workspace, overrides={"redact": {"enabled": False}, "embedding": {"provider": "none"}}
    )
    with Brain(workspace, config=off) as brain:
        assert brain.write(text).document.content == text
    on = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=on) as brain:
        doc = brain.write(text + " again").document
    assert doc.content == "DB_PASSWORD=[REDACTED:secret] again"
