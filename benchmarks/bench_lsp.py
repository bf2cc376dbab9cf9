"""Editor sidecar latency: hover p50/p95, first hover during a cold index, RSS after indexing.

Builds a synthetic repo (FILES Python files, 5 functions each) and a store with NOTES notes
(some anchored to functions), then drives the real `nano-brain lsp` over stdio with pygls's
LanguageClient. Targets (issue 6): hover p95 <= 30 ms on 10k notes + ~2k files; RSS <= 300 MB.

    python benchmarks/bench_lsp.py --files 2000 --notes 10000 --hovers 300
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsprotocol import types as lsp  # noqa: E402
from tests.lsp.conftest import start, stop  # noqa: E402

WORDS = "cache invoice refund ledger parser token retry budget quota shard replica index".split()


def make_repo(root: Path, files: int) -> None:
    for i in range(files):
        pkg = root / f"pkg{i // 100}"
        pkg.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            f"def {WORDS[(i + j) % len(WORDS)]}_{i}_{j}(value, limit=10):\n"
            f'    """Handle {WORDS[j % len(WORDS)]} number {j}."""\n'
            f"    return value * {j} + limit\n"
            for j in range(5)
        )
        (pkg / f"mod{i}.py").write_text(body + "\n", encoding="utf-8")


def seed(root: Path, notes: int) -> None:
    from nano_brain import Brain
    from nano_brain.codeindex import CodeIndex

    with Brain(root) as brain:
        index = CodeIndex(brain)
        index.index()
        for n in range(notes):
            w = WORDS[n % len(WORDS)]
            doc = brain.write(
                f"Note {n} about {w}: we decided {w} limits stay at {n % 97} for shard {n % 13}.",
                title=f"{w} note {n}",
                tags=["decision"] if n % 10 == 0 else [],
            ).document.id
            if n < 500:
                k = n % 20
                index.anchor(doc, f"pkg0/mod{k}.py::{WORDS[k % len(WORDS)]}_{k}_0")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run(root: Path, hovers: int) -> dict[str, float]:
    t0 = time.perf_counter()
    session = await start(root, options={"mcp": {"transport": "off"}})
    uri = session.open("pkg0/mod3.py")
    first = await session.hover(uri, 0, 6)
    t_first = time.perf_counter() - t0
    still_indexing = not any(k == "end" for k, _ in session.progress)
    await session.indexed(timeout=1800)
    t_indexed = time.perf_counter() - t0
    times = []
    for i in range(hovers):
        line = (i % 5) * 4
        s = time.perf_counter()
        await session.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 6))
        )
        times.append((time.perf_counter() - s) * 1000)
    rss = rss_mb(session.client._server.pid)
    await stop(session)
    times.sort()
    return {
        "first_hover_s": round(t_first, 3),
        "first_hover_while_indexing": float(still_indexing),
        "first_hover_nonempty": float(first is not None),
        "index_done_s": round(t_indexed, 2),
        "hover_p50_ms": round(statistics.median(times), 2),
        "hover_p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
        "rss_mb": round(rss, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--hovers", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            os.environ[var] = str(Path(tmp) / var.lower())
        root = Path(tmp) / "repo"
        make_repo(root, args.files)
        t = time.perf_counter()
        seed(root, args.notes)
        print(f"seeded {args.notes} notes + index in {time.perf_counter() - t:.1f}s")
        # touch every file so the sidecar's first pass is a cold re-index of the whole repo
        for path in root.rglob("*.py"):
            path.write_text(path.read_text() + "\n")
        print(asyncio.run(run(root, args.hovers)))


if __name__ == "__main__":
    main()
