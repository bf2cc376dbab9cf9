"""CoSQA code search through the code index: MRR and recall@10 for hybrid, lexical and vector.

Each of the 6,267 functions of the pool becomes one file ``fNNNN.py`` of a scratch workspace,
indexed by ``CodeIndex`` (one search document per symbol, as for any workspace) and embedded
with the configured local model. The 500 dev queries run through ``Brain.search`` with
``kind=code`` in the three modes; a hit counts for the function of the file it came from
(nested symbols of the same file are folded into it). The gold function's rank over the whole
pool gives MRR (0 past the 200 results a request may return) and recall@10.

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
from nano_brain.search import validate_request

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
    args = parser.parse_args()

    queries = json.loads((args.data / "cosqa-retrieval-dev-500.json").read_text())
    pool: dict[str, int] = json.loads((args.data / "code_idx_map.txt").read_text())
    if args.limit:
        queries = queries[: args.limit]
    work = args.work or Path(tempfile.mkdtemp(prefix="nb-cosqa-"))
    try:
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
    ws = work / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    for code, idx in pool.items():
        target = ws / f"f{idx:04d}.py"
        if not target.exists():
            target.write_text(code + "\n", encoding="utf-8")
    embedding: dict[str, Any] = {"provider": "local", "threads": threads}
    if model:
        embedding["model"] = model
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
        provider, why = brain.provider()
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


def _sources(brain: Brain) -> list[str]:
    rows = brain.store._rows(
        "SELECT source_path FROM documents WHERE kind = 'code' AND valid_to IS NULL"
    )
    return [r[0] for r in rows if r[0]]


def ranked_files(brain: Brain, query: str, mode: str) -> list[int]:
    request = validate_request(query=query, mode=mode, limit=DEPTH, kind=["code"], track=False)
    seen: dict[int, None] = {}
    for hit in brain.search(request).results:
        m = _FILE.match(hit.source_path or "")
        if m:
            seen.setdefault(int(m.group(1)), None)
    return list(seen)


def fuse(lexical: list[int], vector: list[int], lw: float, vw: float, k: int) -> list[int]:
    scores: dict[int, float] = {}
    for weight, ranked in ((lw, lexical), (vw, vector)):
        for rank, item in enumerate(ranked, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda item: -scores[item])


def metrics(ranked: list[list[int]], gold: list[int]) -> dict[str, float]:
    rr = 0.0
    hits10 = 0
    for items, g in zip(ranked, gold, strict=True):
        if g in items:
            pos = items.index(g) + 1
            rr += 1.0 / pos
            hits10 += pos <= 10
    n = len(gold)
    return {"mrr": round(rr / n, 4), "recall@10": round(hits10 / n, 4)}


if __name__ == "__main__":
    main()
