"""The git history as memory: first index, incremental index, hover with history, `why`.

On a generated repository (``_history_repo``: 10,000 commits over 2,000 Python files, merges,
renames and moves, unless ``--repo`` names another), one run prints:

- ``code_index_s``: the code index (history off), for context: `why` and hovers need it;
- ``history_first_s``: the first history index (log, both sides of every changed file parsed
  in a pool of ``--workers`` processes, hunks mapped onto symbols, commits written); target
  <= 60 s on 2 cores;
- ``history_noop_s`` and ``history_incremental_s``: again with nothing new, and after one new
  commit; target <= 1 s;
- ``store_mb``: the store after the code index and after the history (checkpointed), and the
  history's own tables and documents;
- ``hover_*``: the real `nano-brain lsp` over stdio (pygls client): one hover on each of
  ``--hovers`` symbols that have commits (never hovered before), each showing the newest
  commits; as in bench_lsp's "opened" hovers, each file is opened ``--pause`` seconds before
  its symbols are hovered, ``--gap`` seconds apart; target p95 <= 30 ms;
- ``hover_history_*``: the history part of a hover alone, in process;
- ``why_*``: `why` for as many symbols, in process (notes, commits, sessions, related
  search); target p50 <= 50 ms.

Embeddings are off in the benchmark's workspace (``embedding.provider: none``): the history
part of hovers and `why` is SQL, and the related-memory search (its model and its hover budget)
is measured by bench_lsp.py. ``--notes`` notes are written (a tenth anchored to symbols of the
hovered files) so that hovers also show notes.

    python benchmarks/bench_history.py [--commits 10000] [--files 2000] [--repo DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _history_repo import add_commit, generate  # noqa: E402
from lsprotocol import types as lsp  # noqa: E402

from nano_brain import Brain  # noqa: E402
from nano_brain.codeindex import CodeIndex  # noqa: E402
from nano_brain.history import History  # noqa: E402
from nano_brain.indexing import index_workspace  # noqa: E402
from nano_brain.why import hover_history, why  # noqa: E402

_HISTORY_TABLES = ("git_commits", "git_changes", "git_changes_doc", "git_renames",
                   "git_renames_doc", "document_files", "document_files_doc")  # fmt: skip


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, int(len(ordered) * p) - 1)], 2) if ordered else float("nan")


def _stats(name: str, ms: list[float]) -> dict[str, float]:
    return {
        f"{name}_n": len(ms),
        f"{name}_p50_ms": _pct(ms, 0.5),
        f"{name}_p95_ms": _pct(ms, 0.95),
        f"{name}_mean_ms": round(statistics.fmean(ms), 2) if ms else float("nan"),
    }


def _store_mb(brain: Brain) -> float:
    brain.store.checkpoint()
    return round(brain.store.file_size() / 1e6, 1)


def _history_mb(brain: Brain) -> float:
    """The history's own tables, and the pages of commit documents and their chunks."""
    tables = ",".join(f"'{t}'" for t in _HISTORY_TABLES)
    own = brain.store._rows(f"SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ({tables})")
    docs = brain.store._rows(
        "SELECT coalesce(sum(length(content) + length(metadata) + length(title)), 0) "
        "FROM documents WHERE kind = 'commit'"
    )
    chunks = brain.store._rows(
        "SELECT coalesce(sum(length(c.body) + length(c.title)), 0) FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id WHERE d.kind = 'commit'"
    )
    return round((own[0][0] + docs[0][0] + chunks[0][0]) / 1e6, 1)


def seed_notes(brain: Brain, symbols: list[str], notes: int) -> None:
    index = CodeIndex(brain)
    rng = random.Random(7)
    words = "cache invoice refund ledger retry budget quota shard replica token".split()
    for k in range(notes):
        a, b = rng.choice(words), rng.choice(words)
        doc = brain.write(
            f"We decided the {a} {b} path keeps step {k} under {k % 97} ms.",
            title=f"{a} {b} decision {k}",
            tags=["decision"] if k % 10 == 0 else [],
        ).document.id
        if k % 10 == 0 and symbols:
            index.anchor(doc, symbols[(k // 10) % len(symbols)])


def sample_symbols(brain: Brain, count: int, *, changed: bool = True) -> list[tuple[str, str, int]]:
    """(qualified name, path, 0-based line of its name) of functions and methods that some
    commit changed (any, without ``changed``), spread over the repository."""
    which = (
        "AND EXISTS (SELECT 1 FROM git_changes g WHERE g.qualified_name = s.qualified_name) "
        if changed
        else ""
    )
    rows = brain.store._rows(
        "SELECT s.qualified_name, f.path, s.start_line FROM code_symbols s "
        "JOIN code_files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') "
        f"{which}ORDER BY s.id"
    )
    step = max(1, len(rows) // max(1, count))
    return [(r[0], r[1], r[2] - 1) for r in rows[::step]][:count]


async def hovers(
    root: Path, spots: list[tuple[str, str, int]], pause: float, gap: float
) -> dict[str, float]:
    from tests.lsp.conftest import start, stop

    session = await start(root, options={"mcp": {"transport": "off"}, "hover": {
        "related_budget_ms": 20}})  # fmt: skip
    try:
        await session.indexed(timeout=600)
        ms: list[float] = []
        with_history = 0
        by_file: dict[str, list[int]] = {}
        for _, path, line in spots:
            by_file.setdefault(path, []).append(line)
        for path, lines in by_file.items():
            # as in bench_lsp's "opened" hovers: a file is opened and read for a moment
            # (editors wait 300-500 ms before they ask for a hover at all)
            uri = session.open(path)
            await asyncio.sleep(pause)
            text = (root / path).read_text().splitlines()
            for line in lines:
                column = text[line].index("def ") + 5
                t = time.perf_counter()
                result = await session.client.text_document_hover_async(
                    lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, column))
                )
                ms.append((time.perf_counter() - t) * 1000)
                value = result.contents.value if result is not None else ""  # type: ignore[union-attr]
                with_history += "Changed by" in value
                await asyncio.sleep(gap)
    finally:
        await stop(session)
    return {**_stats("hover", ms), "hover_with_history": with_history}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=10_000)
    ap.add_argument("--files", type=int, default=2_000)
    ap.add_argument("--repo", type=Path, default=None, help="copy this repository instead")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--notes", type=int, default=1_000)
    ap.add_argument("--hovers", type=int, default=300)
    ap.add_argument("--pause", type=float, default=0.5, help="seconds between open and hover")
    ap.add_argument("--gap", type=float, default=0.1, help="seconds between hovers")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument(
        "--baseline", action="store_true", help="only the hovers, with history off (comparison)"
    )
    args = ap.parse_args()
    load = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="nb-bench-history-"))
    out: dict[str, object] = {"loadavg_before": [round(x, 2) for x in load]}
    try:
        for var in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            os.environ[var] = str(tmp / var.lower())
        root = tmp / "repo"
        t = time.perf_counter()
        if args.repo:
            shutil.copytree(args.repo, root, symlinks=True)
        else:
            generate(root, args.commits, args.files)
        out["generate_s"] = round(time.perf_counter() - t, 1)
        config = "embedding:\n  provider: none\n"
        if args.baseline:
            config += "history:\n  enabled: false\n"
        (root / ".nano-brain.yml").write_text(config)
        if args.baseline:  # the same hovers without any history, for comparison
            with Brain(root) as brain:
                CodeIndex(brain, workers=args.workers).index()
                spots = sample_symbols(brain, args.hovers, changed=False)
                seed_notes(brain, [s for s, _, _ in spots], args.notes)
            out["baseline"] = True
            out.update(asyncio.run(hovers(root, spots, args.pause, args.gap)))
            out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
            print(json.dumps(out, indent=1))
            return
        with Brain(root) as brain:
            t = time.perf_counter()
            CodeIndex(brain, workers=args.workers).index()
            out["code_index_s"] = round(time.perf_counter() - t, 2)
            out["store_code_only_mb"] = _store_mb(brain)
            t = time.perf_counter()
            report = History(brain).index(workers=args.workers)
            out["history_first_s"] = round(time.perf_counter() - t, 2)
            out["history_report"] = {
                k: v for k, v in report.to_dict().items() if k not in ("errors", "head")
            }
            out["store_mb"] = _store_mb(brain)
            out["history_own_mb"] = _history_mb(brain)
            t = time.perf_counter()
            noop = History(brain).index(workers=args.workers)
            out["history_noop_s"] = round(time.perf_counter() - t, 3)
            assert noop.state == "up-to-date", noop
            add_commit(root)
            t = time.perf_counter()
            inc = History(brain).index(workers=args.workers)
            out["history_incremental_s"] = round(time.perf_counter() - t, 3)
            assert inc.added == 1, inc
            spots = sample_symbols(brain, args.hovers)
            seed_notes(brain, [s for s, _, _ in spots], args.notes)
            index_workspace(CodeIndex(brain))  # the sidecar finds it up to date
            ms = []
            for name, path, _ in spots:
                t = time.perf_counter()
                hover_history(brain, name, path, commits=3, sessions=2)
                ms.append((time.perf_counter() - t) * 1000)
            out.update(_stats("hover_history", ms))
            ms = []
            for name, _, _ in spots:
                t = time.perf_counter()
                view = why(brain, name)
                ms.append((time.perf_counter() - t) * 1000)
                assert view.commits, name
            out.update(_stats("why", ms))
        out.update(asyncio.run(hovers(root, spots, args.pause, args.gap)))
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
