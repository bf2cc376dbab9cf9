#!/usr/bin/env python3
"""Peak memory of the long-running front ends with every model loaded and used.

Starts `nano-brain mcp` (stdio, the official SDK client) on a workspace with a small code
tree, writes notes (embedded in the background by the note model), indexes nothing itself but
searches code written by a CLI `index` run first (the code model), asks hybrid queries, then
reads the server's peak resident memory (VmHWM) and current RSS from /proc. The same for the
editor sidecar (`nano-brain lsp` with pygls's client): it indexes and embeds the tree itself,
then answers hovers and a search. Target: peak <= 300 MB for both.

    python benchmarks/bench_memory.py [--notes 200] [--files 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _mcp_stdio import call, isolated_env, mcp_session  # noqa: E402

TARGET_MB = 300


def _children(pattern: str) -> list[int]:
    """Pids of this process's children whose command line contains `pattern`."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and pattern in cmdline:
            found.append(int(entry.name))
    return found


def _memory(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def _tree(root: Path, files: int) -> None:
    for i in range(files):
        body = "\n\n".join(
            f"def handler_{i}_{j}(request, retries=3):\n"
            f'    """Retry the upstream call {j} for request {i}, backing off."""\n'
            f"    for attempt in range(retries):\n"
            f"        if request.ok:\n            return request.value + {j}\n"
            f"    raise TimeoutError('upstream {i}')"
            for j in range(8)
        )
        (root / f"mod_{i}.py").write_text(body + "\n")


def _note(i: int) -> str:
    words = ("cache", "retry", "queue", "deploy", "schema", "index", "token", "backoff")
    line = " ".join(words[(i + k) % len(words)] for k in range(12))
    return f"Decision {i}: " + (line + ". ") * 12  # about 1 KB


async def _mcp(root: Path, env: dict[str, str], notes: int) -> dict[str, float]:
    db = root.parent / "brain.db"
    async with mcp_session(root, db, env) as client:
        [pid] = _children("nano_brain mcp")
        for i in range(notes):
            await call(client, "memory_write", {"content": _note(i)})
        deadline = time.monotonic() + 300
        while (await call(client, "memory_status", {}))["pending_embeddings"]:
            if time.monotonic() > deadline:
                raise SystemExit("embeddings did not catch up")
            await asyncio.sleep(0.2)
        for q in ("why do we retry with backoff", "deploy schema cache", "token queue index"):
            await call(client, "memory_query", {"query": q})
            await call(client, "code_search", {"query": q})
        return _memory(pid)


async def _lsp(root: Path, env: dict[str, str]) -> dict[str, float]:
    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench-memory", "0")
    await client.start_io(sys.executable, "-m", "nano_brain", "lsp", env=env)
    [pid] = _children("nano_brain lsp")
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="bench")],
        )
    )
    client.initialized(lsp.InitializedParams())
    uri = (root / "mod_0.py").as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "python", 1, (root / "mod_0.py").read_text())
        )
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        symbols = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="handler"))
        if symbols:
            break
        await asyncio.sleep(0.5)
    await asyncio.sleep(20)  # let the background embedding of the index run
    for line in (0, 9, 18):
        await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 6))
        )
    memory = _memory(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return memory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--files", type=int, default=60)
    args = parser.parse_args(argv)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name in ("mcp", "lsp"):
            root = base / name / "ws"
            root.mkdir(parents=True)
            _tree(root, args.files)
            env = isolated_env(base / name / "home")
            if name == "mcp":
                subprocess.run(
                    [sys.executable, "-m", "nano_brain", "index", "--workspace", str(root),
                     "--db", str(root.parent / "brain.db")],
                    env=env, check=True, stdout=subprocess.DEVNULL,
                )  # fmt: skip
                results[name] = asyncio.run(_mcp(root, env, args.notes))
            else:
                results[name] = asyncio.run(_lsp(root, env))
    for name, memory in results.items():
        verdict = "met" if memory["VmHWM"] <= TARGET_MB else "MISSED"
        print(
            f"{name:4} peak (VmHWM) {memory['VmHWM']:6.1f} MB, now (VmRSS) {memory['VmRSS']:6.1f}"
            f" MB  (target peak <= {TARGET_MB} MB: {verdict})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
