"""CoSQA code search through the code index: MRR and recall@10 for hybrid, lexical and vector.

Each of the 6,267 functions of the pool becomes one file ``fNNNN.py`` of a scratch workspace,
indexed as any workspace is (one search document per symbol) and embedded with the configured
code model (default config). The 500 dev queries run as code searches in the three modes; a
hit counts for the function of the file it came from (nested symbols of the same file are
folded into it). The gold function's rank gives MRR over the first 200 results (MRR@200),
MRR over the first 20 (MRR@20) and recall@10.

By default the library is called (``CodeIndex.search``); ``--mcp`` takes the agent's path:
``nano-brain index`` indexes and embeds the workspace, then one ``nano-brain mcp`` session
answers every query with ``code_search`` (at most 100 results per call, so MRR@200 is not
reported there).

Fusion sweep: the lexical and vector rankings are also fused offline with several
(lexical weight, vector weight, rrf_k) settings, the same reciprocal-rank formula the search
pipeline uses, to show which weighting suits code.

    python benchmarks/eval_cosqa.py [--data ../shared/eval/cosqa] [--model KEY] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from nano_brain import Brain
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "eval" / "cosqa"
DEPTH = 200
_FILE = re.compile(r"^code://f(\d+)\.py::")
SWEEP = [
    (1.5, 1.0, 10),  # the engine's default (tuned on notes)
    (1.0, 1.0, 10),
    (1.0, 1.0, 60),  # plain RRF
    (0.5, 1.0, 10),
    (0.5, 1.0, 60),
    (0.3, 1.0, 10),
    (0.3, 1.0, 60),
    (0.2, 1.0, 60),
    (0.3, 1.0, 5),
    (0.2, 1.0, 10),
    (0.2, 1.0, 5),
    (0.1, 1.0, 10),
    (0.1, 1.0, 5),
    (0.0, 1.0, 10),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--model", default=None, help="local model key (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--work", type=Path, default=None, help="keep the workspace and store here (reused)"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N queries")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--mcp", action="store_true", help="index with the CLI, ask over MCP")
    args = parser.parse_args()

    queries = json.loads((args.data / "cosqa-retrieval-dev-500.json").read_text())
    pool: dict[str, int] = json.loads((args.data / "code_idx_map.txt").read_text())
    if args.limit:
        queries = queries[: args.limit]
    work = args.work or Path(tempfile.mkdtemp(prefix="nb-cosqa-"))
    try:
        if args.mcp:
            result = run_mcp(work, pool, queries)
        else:
            result = run(work, pool, queries, args.model, args.threads)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


def run(
    work: Path, pool: dict[str, int], queries: list[dict[str, Any]], model: str | None, threads: int
) -> dict[str, Any]:
    ws = _workspace(work, pool)
    embedding: dict[str, Any] = {"threads": threads}
    if model:
        embedding["code_model"] = model
    config = load_config(ws, overrides={"embedding": embedding})
    out: dict[str, Any] = {"functions": len(pool), "queries": len(queries)}
    with Brain(ws, config=config, db_path=work / "brain.db") as brain:
        code = CodeIndex(brain)
        t = time.perf_counter()
        report = code.index()
        out["index"] = {
            "seconds": round(time.perf_counter() - t, 2),
            "files": report.files,
            "symbols": report.symbols,
        }
        found = {int(m.group(1)) for m in map(_FILE.match, _sources(brain)) if m}
        out["functions_without_symbol"] = len(pool) - len(found)
        provider, why = brain.provider("code")
        out["model"] = provider.name if provider else why
        pending = brain.store.pending_count()
        t = time.perf_counter()
        done = brain.embed_pending()
        if done:
            secs = time.perf_counter() - t
            out["embedding"] = {
                "chunks": done,
                "seconds": round(secs, 1),
                "chunks_per_s": round(done / secs, 1),
            }
        out["pending_before_embedding"] = pending
        rankings: dict[str, list[list[int]]] = {}
        for mode in ("lexical", "vector", "hybrid"):
            t = time.perf_counter()
            rankings[mode] = [ranked_files(brain, q["doc"], mode) for q in queries]
            out[f"{mode}_ms_per_query"] = round((time.perf_counter() - t) * 1000 / len(queries), 1)
    gold = [q["retrieval_idx"] for q in queries]
    for mode, ranked in rankings.items():
        out[mode] = metrics(ranked, gold)
    pairs = list(zip(rankings["lexical"], rankings["vector"], strict=True))
    out["fusion_sweep"] = [
        {
            "lexical_weight": lw,
            "vector_weight": vw,
            "rrf_k": k,
            **metrics(
                [fuse(lx, vx, lw, vw, k) for lx, vx in pairs],
                gold,
            ),
        }
        for lw, vw, k in SWEEP
    ]
    return out


def run_mcp(work: Path, pool: dict[str, int], queries: list[dict[str, Any]]) -> dict[str, Any]:
    """The agent's path: `nano-brain index` on the workspace, `code_search` over MCP."""
    import subprocess
    import sys

    import anyio

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _mcp_stdio import call, isolated_env, mcp_session

    ws, db = _workspace(work, pool), work / "brain.db"
    env = isolated_env(work / "home")
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nano_brain", "index", "--workspace", str(ws), "--db", str(db)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    out: dict[str, Any] = {
        "path": "mcp",
        "functions": len(pool),
        "queries": len(queries),
        "index_and_embed_s": round(time.perf_counter() - t, 1),
    }

    async def ask() -> dict[str, list[list[int]]]:
        rankings: dict[str, list[list[int]]] = {}
        async with mcp_session(ws, db, env) as client:
            for mode in ("lexical", "vector", "hybrid"):
                t = time.perf_counter()
                ranked = []
                for q in queries:
                    res = await call(
                        client, "code_search", {"query": q["doc"], "mode": mode, "max_results": 100}
                    )
                    ranked.append(_files(h["source_path"] for h in res["results"]))
                rankings[mode] = ranked
                out[f"{mode}_ms_per_query"] = round(
                    (time.perf_counter() - t) * 1000 / len(queries), 1
                )
        return rankings

    rankings = anyio.run(ask)
    gold = [q["retrieval_idx"] for q in queries]
    for mode, ranked in rankings.items():
        out[mode] = metrics(ranked, gold)
    return out


def _workspace(work: Path, pool: dict[str, int]) -> Path:
    ws = work / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    for code, idx in pool.items():
        target = ws / f"f{idx:04d}.py"
        if not target.exists():
            target.write_text(code + "\n", encoding="utf-8")
    return ws


def _files(sources: Any) -> list[int]:
    seen: dict[int, None] = {}
    for source in sources:
        m = _FILE.match(source or "")
        if m:
            seen.setdefault(int(m.group(1)), None)
    return list(seen)


def _sources(brain: Brain) -> list[str]:
    rows = brain.store._rows(
        "SELECT source_path FROM documents WHERE kind = 'code' AND valid_to IS NULL"
    )
    return [r[0] for r in rows if r[0]]


def ranked_files(brain: Brain, query: str, mode: str) -> list[int]:
    hits = CodeIndex(brain).search(query, limit=DEPTH, mode=mode).results
    return _files(h.source_path for h in hits)


def fuse(lexical: list[int], vector: list[int], lw: float, vw: float, k: int) -> list[int]:
    scores: dict[int, float] = {}
    for weight, ranked in ((lw, lexical), (vw, vector)):
        for rank, item in enumerate(ranked, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda item: -scores[item])


def metrics(ranked: list[list[int]], gold: list[int]) -> dict[str, float]:
    rr = rr20 = 0.0
    hits10 = 0
    for items, g in zip(ranked, gold, strict=True):
        if g in items:
            pos = items.index(g) + 1
            rr += 1.0 / pos
            rr20 += 1.0 / pos if pos <= 20 else 0.0
            hits10 += pos <= 10
    n = len(gold)
    return {
        "mrr": round(rr / n, 4),
        "mrr@20": round(rr20 / n, 4),
        "recall@10": round(hits10 / n, 4),
    }


if __name__ == "__main__":
    main()
