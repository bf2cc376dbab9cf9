"""Editor sidecar latency: hover p50/p95, first hover during a cold index, RSS after indexing.

Builds a synthetic repo (FILES Python files, each with five functions and a class with a
method, named from a 96-word vocabulary so that hovers search for many different things) and
a store with NOTES notes written from the same vocabulary (the first 500 anchored to functions
of the first files), then drives the real `nano-brain lsp` over stdio with pygls's
LanguageClient. Targets (issue 6): hover p95 <= 30 ms on 10k notes + ~2k files; RSS <= 300 MB
with the model loaded.

Reported:
- ``first_hover_s``: from starting the server (spawn + initialize) to the first hover answered
  on an anchored symbol, while the sidecar's first index pass re-indexes the whole repo (every
  file is touched first, so the pass re-reads, re-parses and re-embeds everything);
- ``during_index_*``: hovers answered while that pass runs;
- ``index_done_s``: when the pass (code and history) ends; ``embedded_s``: when the background
  embedder it hands its chunks to reports its end (the hovers below run beside it);
- ``cold_*``: after indexing, one hover on each symbol of files the client never opened, so
  no related-memory search was done for them before (names are distinct word pairs);
- ``opened_*``: a file is opened, PAUSE seconds pass (reading it; editors wait 300-500 ms
  before they even ask for a hover), then each of its symbols is hovered once;
- ``warm_*``: the cold and opened hovers again (the pointer back on symbols seen before);
- ``*_with_related``: hovers that showed related memory (a search slower than the hover's
  budget shows from the next hover on).

Hovers come GAP seconds apart (default 0.1 s: a person moving the pointer; editors wait
300-500 ms before they ask for a hover at all). With ``--gap 0`` they come back to back, and one
slow search delays the next hover's search too.
- ``save_*``: SAVES files edited and saved one at a time (``didSave``): from the save to the
  end of the index pass it started (``index.debounce_ms`` included), and that pass's own
  seconds and the number of files it was told about;
- ``rss_*_mb``: the server's resident memory after indexing, and at the end.

    python benchmarks/bench_lsp.py --files 2000 --notes 10000 --hovers 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from nano_brain.testing import Session, start, stop

VOCAB = """cache invoice refund ledger parser token retry budget quota shard replica index
account billing payment tax discount coupon order cart checkout shipping carrier parcel
customer session login password oauth scope permission role audit report export import
schedule cron queue worker batch stream event webhook signal metric trace span logger
config secret vault backup restore snapshot migrate schema table column query cursor
upload download thumbnail image render template layout theme locale currency timezone
search ranking embed vector cluster tenant region zone network socket proxy gateway
route handler middleware cookie header payload encode decode compress checksum lock""".split()
_DEF = re.compile(r"^\s*def (\w+)\(")


#: Files edited and saved, one after the other, after the hover scenarios.
SAVES = 5


def _name(i: int, j: int) -> str:
    n = len(VOCAB)
    return f"{VOCAB[(i * 7 + j) % n]}_{VOCAB[(i * 13 + j * 5 + 1) % n]}"


def make_repo(root: Path, files: int) -> None:
    for i in range(files):
        pkg = root / f"pkg{i // 100}"
        pkg.mkdir(parents=True, exist_ok=True)
        funcs = [
            f"def {_name(i, j)}(value, limit=10):\n"
            f'    """Handle the {VOCAB[(i + j) % len(VOCAB)]} step {j}."""\n'
            f"    return value * {j} + limit\n"
            for j in range(5)
        ]
        cls = _name(i, 7).title().replace("_", "")
        funcs.append(f"class {cls}:\n    def {_name(i, 9)}(self, item):\n        return item\n")
        (pkg / f"mod{i}.py").write_text("\n\n".join(funcs), encoding="utf-8")


def seed(root: Path, notes: int) -> None:
    from nano_brain import Brain
    from nano_brain.codeindex import CodeIndex

    n = len(VOCAB)
    with Brain(root) as brain:
        index = CodeIndex(brain)
        index.index()
        for k in range(notes):
            a, b, c = VOCAB[k % n], VOCAB[(k * 7 + 3) % n], VOCAB[(k * 11 + 5) % n]
            doc = brain.write(
                f"We decided the {a} {b} path keeps {c} within {k % 97} ms (shard {k % 13}).",
                title=f"{a} {b} note {k}",
                tags=["decision"] if k % 10 == 0 else [],
            ).document.id
            if k < 500:
                i, j = k % 20, k % 5
                index.anchor(doc, f"pkg0/mod{i}.py::{_name(i, j)}")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _positions(root: Path, rel: str) -> list[lsp.Position]:
    """Where each function and method name of a file starts (one hover per symbol)."""
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    out = []
    for no, line in enumerate(lines):
        m = _DEF.match(line)
        if m:
            out.append(lsp.Position(no, m.start(1) + 1))
    return out


async def _hover(
    session: Session, uri: str, pos: lsp.Position, gap: float = 0.0
) -> tuple[float, bool]:
    """(milliseconds, whether the hover had a related-memory section), after ``gap`` s."""
    await asyncio.sleep(gap)
    s = time.perf_counter()
    result = await session.client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), pos)
    )
    ms = (time.perf_counter() - s) * 1000
    text = result.contents.value if result is not None else ""  # type: ignore[union-attr]
    return ms, "Related memory" in text


def _pct(times: list[float], p: float) -> float:
    ordered = sorted(times)
    return round(ordered[max(0, int(len(ordered) * p) - 1)], 2) if ordered else float("nan")


async def _embedded(session: Session, timeout: float = 3600.0) -> None:
    """Until no chunk of the folder waits for a vector (the sidecar's own indexStatus)."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        status = await session.status()
        spaces = [p for f in status["folders"] for p in f["embedding"].values()]
        if spaces and all(p["pending"] == 0 for p in spaces):
            return
        await asyncio.sleep(0.5)
    raise TimeoutError("chunks still wait for vectors")


def _summary(name: str, results: list[tuple[float, bool]]) -> dict[str, float]:
    ms = [t for t, _ in results]
    return {
        f"{name}_hovers": len(ms),
        f"{name}_p50_ms": _pct(ms, 0.5),
        f"{name}_p95_ms": _pct(ms, 0.95),
        f"{name}_max_ms": round(max(ms), 2) if ms else float("nan"),
        f"{name}_with_related": sum(related for _, related in results),
    }


def _targets(root: Path, files: range, uri: Callable[[str], str]) -> list[tuple[str, lsp.Position]]:
    out = []
    for i in files:
        rel = f"pkg{i // 100}/mod{i}.py"
        where = uri(rel)  # once per file: `uri` may be session.open
        out += [(where, p) for p in _positions(root, rel)]
    return out


async def run(
    root: Path, hovers: int, pause: float, gap: float, budget_ms: int | None = None
) -> dict[str, float]:
    t0 = time.perf_counter()
    options: dict[str, Any] = {"mcp": {"transport": "off"}}
    if budget_ms is not None:
        options["hover"] = {"related_budget_ms": budget_ms}
    session = await start(root, options=options)
    first_uri = session.open("pkg0/mod3.py")
    first_pos = _positions(root, "pkg0/mod3.py")[3]  # anchored (see seed)
    first = None
    while time.perf_counter() - t0 < 120:  # None until the folder is open
        first = await session.hover(first_uri, first_pos.line, first_pos.character)
        if first is not None:
            break
        await asyncio.sleep(0.02)
    t_first = time.perf_counter() - t0
    still_indexing = session.passes() == 0
    during: list[tuple[float, bool]] = []
    spots = [(first_uri, p) for p in _positions(root, "pkg0/mod3.py")]
    while session.passes() == 0 and len(during) < 5000:
        uri, pos = spots[len(during) % len(spots)]
        during.append(await _hover(session, uri, pos, gap))
    await session.indexed(timeout=3600)
    t_indexed = time.perf_counter() - t0
    rss_indexed = rss_mb(session.client._server.pid)  # type: ignore[union-attr]
    per_file = len(_positions(root, "pkg1/mod100.py"))
    n = max(1, hovers // per_file)
    # cold: files the client never opened, so nothing was prefetched for them
    cold_spots = _targets(root, range(100, 100 + n), session.uri)[:hovers]
    cold = [await _hover(session, uri, pos, gap) for uri, pos in cold_spots]
    # opened: a file is opened, read for `pause` seconds, then its symbols are hovered
    opened: list[tuple[float, bool]] = []
    opened_spots = []
    for i in range(100 + n, 100 + 2 * n):
        spots = _targets(root, range(i, i + 1), session.open)
        await asyncio.sleep(pause)
        opened += [await _hover(session, uri, pos, gap) for uri, pos in spots]
        opened_spots += spots
    # warm: the pointer back on symbols already seen
    warm = [await _hover(session, uri, pos, gap) for uri, pos in cold_spots + opened_spots]
    # the pass leaves its chunks to the background embedder (its own work-done progress):
    # embedded_s is when that ends, after the hovers above ran beside it
    await _embedded(session)
    t_embedded = time.perf_counter() - t0
    saves = await _saves(session, root)
    rss = rss_mb(session.client._server.pid)  # type: ignore[union-attr]
    await stop(session)
    return {
        **saves,
        "first_hover_s": round(t_first, 3),
        "first_hover_while_indexing": float(still_indexing),
        "first_hover_nonempty": float(first is not None),
        **_summary("during_index", during),
        "index_done_s": round(t_indexed, 2),
        "embedded_s": round(t_embedded, 2),
        **_summary("cold", cold),
        **_summary("opened", opened),
        **_summary("warm", warm),
        **_summary("all_after_index", cold + opened + warm),
        "rss_after_index_mb": round(rss_indexed, 1),
        "rss_end_mb": round(rss, 1),
    }


async def _saves(session: Any, root: Path, count: int = SAVES) -> dict[str, float]:
    """Files edited and saved one at a time: from didSave to the end of the index pass it
    started (the debounce included), the pass's own seconds, and the files it looked at."""
    walls: list[float] = []
    passes: list[float] = []
    named: list[int | None] = []
    for i in range(count):
        rel = f"pkg2/mod{200 + i}.py"
        path = root / rel
        path.write_text(path.read_text() + f"\n\ndef saved_fn_{i}():\n    return {i}\n")
        before = session.passes()
        t = time.perf_counter()
        session.client.text_document_did_save(
            lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(session.uri(rel)))
        )
        await session.wait_for(lambda before=before: session.passes() > before, 60)
        walls.append(time.perf_counter() - t)
        last = (await session.status()).folders[0].last_pass
        passes.append(last.seconds)
        named.append(last.paths)
    return {
        "save_to_indexed_p50_s": round(statistics.median(walls), 3),
        "save_pass_p50_s": round(statistics.median(passes), 3),
        "save_pass_files_named": float(max((n or 0) for n in named)),
        "save_pass_walked_tree": float(any(n is None for n in named)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--hovers", type=int, default=300, help="distinct symbols per scenario")
    ap.add_argument("--pause", type=float, default=0.5, help="seconds between open and hover")
    ap.add_argument(
        "--gap", type=float, default=0.1, help="seconds between hovers (0: back to back)"
    )
    ap.add_argument(
        "--budget", type=int, default=None, help="hover.related_budget_ms (default: the option's)"
    )
    args = ap.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            os.environ[var] = str(Path(tmp) / var.lower())
        root = Path(tmp) / "repo"
        make_repo(root, args.files)
        t = time.perf_counter()
        seed(root, args.notes)
        print(f"seeded {args.notes} notes + index in {time.perf_counter() - t:.1f}s", flush=True)
        # touch every file so the sidecar's first pass is a cold re-index of the whole repo
        for path in root.rglob("*.py"):
            path.write_text(path.read_text() + "\n")
        result = asyncio.run(run(root, args.hovers, args.pause, args.gap, args.budget))
    result = {
        "files": args.files,
        "notes": args.notes,
        "loadavg_before": [round(x, 2) for x in load],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        **result,
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
