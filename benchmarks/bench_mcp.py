#!/usr/bin/env python3
"""Per-call MCP latency: memory_get and memory_query over loopback HTTP and over stdio.

Also times memory_write of a fresh ~1 KB note (acknowledged after its commit; the server
embeds it in the background). Target: memory_write p50 <= 15 ms over stdio.

Builds a 10k-document store from LoCoMo turns (real text, the real default model), starts
`nano-brain serve` (loopback HTTP, bearer token) and `nano-brain mcp` (stdio) on it, and
times each tool call end to end: JSON-RPC framing, transport, validation, the Brain call and
the structured result. HTTP is measured with a lean JSON-RPC client on one keep-alive
connection (what the server costs) and with the Python SDK's `Client` (which adds its own
per-call work, e.g. validating structured results against the output schema).
Target: memory_get p50 <= 5 ms over HTTP.

    python benchmarks/bench_mcp.py [--docs 10000] [--calls 300]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "eval" / "locomo" / "locomo-dev.json"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_access import _texts  # noqa: E402  (same corpus as the engine benchmarks)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _build(root: Path, data: list[dict[str, Any]], docs: int) -> list[str]:
    from nano_brain import Brain
    from nano_brain.config import load_config

    config = load_config(root, overrides={"embedding": {"embed_on_write": False}})
    with Brain(root, config=config, db_path=root / "brain.db") as brain:
        t0 = time.perf_counter()
        ids = [brain.write(text).document.id for text in _texts(data, docs)]
        brain.embed_pending()
        print(f"built {docs} documents in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return ids


async def _time_calls(
    call: Callable[[str, dict[str, Any]], Awaitable[Any]],
    ids: list[str],
    questions: list[str],
    n: int,
) -> dict[str, list[float]]:
    rng = random.Random(7)
    for q in questions[:10]:  # warm up: model, caches, connection
        await call("memory_query", {"query": q})
        await call("memory_get", {"id": rng.choice(ids)})
    out: dict[str, list[float]] = {"memory_get": [], "memory_query": [], "memory_write": []}
    stamp = time.time_ns()
    for i in range(n):
        note = (
            f"Bench note {stamp}-{i}: "
            + " ".join(questions[(i + k) % len(questions)] for k in range(12))[:1000]
        )
        for tool, args in (
            ("memory_get", {"id": rng.choice(ids)}),
            ("memory_query", {"query": questions[i % len(questions)]}),
            ("memory_write", {"content": note, "collection": "bench-writes"}),
        ):
            start = time.perf_counter()
            result = await call(tool, args)
            out[tool].append(time.perf_counter() - start)
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content}")
    return out


async def _over_stdio(env: dict[str, str], root: Path, ids: list[str], qs: list[str], n: int):
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from nano_brain.cli import main; main()",
            "mcp",
            "--workspace",
            str(root),
            "--db",
            str(root / "brain.db"),
        ],
        env=env,
    )
    async with Client(params) as client:
        return await _time_calls(client.call_tool, ids, qs, n)


async def _over_http(endpoint: dict[str, Any], ids: list[str], qs: list[str], n: int, mode: str):
    token = Path(endpoint["token_file"]).read_text().strip()
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
        transport = streamable_http_client(endpoint["url"], http_client=http)
        async with Client(transport, mode=mode) as client:
            return await _time_calls(client.call_tool, ids, qs, n)


class _RawResult:
    def __init__(self, body: dict[str, Any]) -> None:
        self.is_error = "error" in body or body["result"].get("isError", False)
        self.content = body


async def _over_http_raw(endpoint: dict[str, Any], ids: list[str], qs: list[str], n: int):
    """A lean JSON-RPC client on one keep-alive connection: the server's own latency."""
    token = Path(endpoint["token_file"]).read_text().strip()
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    url = endpoint["url"]
    async with httpx2.AsyncClient(headers=headers) as http:
        init = await http.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"},
                },
            },
        )
        http.headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        counter = iter(range(1, 1 << 30))

        async def call(tool: str, args: dict[str, Any]) -> _RawResult:
            body = {
                "jsonrpc": "2.0",
                "id": next(counter),
                "method": "tools/call",
                "params": {"name": tool, "arguments": args},
            }
            return _RawResult((await http.post(url, json=body)).json())

        return await _time_calls(call, ids, qs, n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built store here")
    args = parser.parse_args(argv)
    data = json.loads(args.locomo.read_text())
    questions = [str(q["question"]) for s in data for q in s["qa"]]

    with tempfile.TemporaryDirectory() as tmp:
        root = args.work or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            env[var] = os.environ[var] = str(root / "xdg" / var.lower())
        ids_file = root / f"ids-{args.docs}.json"
        if ids_file.exists() and (root / "brain.db").exists():
            ids = json.loads(ids_file.read_text())
        else:
            ids = _build(root, data, args.docs)
            ids_file.write_text(json.dumps(ids))
        serve = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from nano_brain.cli import main; main()",
                "serve",
                "--workspace",
                str(root),
                "--db",
                str(root / "brain.db"),
                "--json",
            ],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert serve.stdout is not None
            endpoint = json.loads(serve.stdout.readline())
            results = {
                "http, raw JSON-RPC client": anyio.run(
                    _over_http_raw, endpoint, ids, questions, args.calls
                ),
                "http, SDK Client (legacy)": anyio.run(
                    _over_http, endpoint, ids, questions, args.calls, "legacy"
                ),
                "http, SDK Client (auto)": anyio.run(
                    _over_http, endpoint, ids, questions, args.calls, "auto"
                ),
                "stdio, SDK Client": anyio.run(_over_stdio, env, root, ids, questions, args.calls),
            }
        finally:
            serve.terminate()
            serve.wait(timeout=30)

    print(f"MCP per-call latency, {args.docs} docs, {args.calls} calls per tool and transport")
    for transport, timings in results.items():
        for tool, values in timings.items():
            print(
                f"  {transport:<26} {tool:<13} p50 {_pct(values, 0.5):6.2f} ms  "
                f"p95 {_pct(values, 0.95):6.2f} ms"
            )
    get_p50 = _pct(results["http, raw JSON-RPC client"]["memory_get"], 0.5)
    verdict = "met" if get_p50 <= 5 else "MISSED"
    print(f"target memory_get over HTTP p50 <= 5 ms (server, raw client): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
