#!/usr/bin/env python3
"""Cost of access tracking: hybrid query latency with and without it.

Builds a store of 10k documents from LoCoMo turns (real text, the real default model), then
runs the same hybrid queries (LoCoMo questions, 20 results) with `track=False` and with
`track=True`, interleaved, and prints p50/p95 for each and the overhead.

    python benchmarks/bench_access.py [--docs 10000] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nano_brain import Brain, SearchRequest
from nano_brain.config import load_config

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "eval" / "locomo" / "locomo-dev.json"


def _texts(data: list[dict], n: int) -> list[str]:
    turns = [
        f"{t['speaker']}: {t.get('text', '')}"
        for sample in data
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ]
    out: list[str] = []
    width = 1
    while len(out) < n:  # distinct documents: windows of 1, 2, 3... consecutive turns
        for i in range(0, len(turns) - width + 1):
            out.append("\n".join(turns[i : i + width]))
            if len(out) == n:
                break
        width += 1
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args(argv)
    data = json.loads(args.locomo.read_text())
    questions = [str(q["question"]) for s in data for q in s["qa"]][: args.queries]

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = load_config(root, overrides={"embedding": {"embed_on_write": False}})
        with Brain(root, config=config, db_path=root / "b.db") as brain:
            t0 = time.perf_counter()
            for text in _texts(data, args.docs):
                brain.write(text)
            brain.embed_pending()
            took = time.perf_counter() - t0
            print(f"built {args.docs} documents in {took:.0f}s", file=sys.stderr)
            for q in questions[:20]:  # warm up
                brain.search(SearchRequest(query=q, limit=20, track=False))
            timings: dict[bool, list[float]] = {False: [], True: []}
            for i, q in enumerate(questions):
                # alternate which variant runs first, so cache warmth favours neither
                for track in (False, True) if i % 2 else (True, False):
                    start = time.perf_counter()
                    brain.search(SearchRequest(query=q, limit=20, track=track))
                    timings[track].append(time.perf_counter() - start)
    off, on = timings[False], timings[True]
    p50_off, p50_on = _pct(off, 0.5), _pct(on, 0.5)
    print(f"hybrid query, {args.docs} docs, 20 results, {len(questions)} queries")
    print(f"  without tracking  p50 {p50_off:6.2f} ms  p95 {_pct(off, 0.95):6.2f} ms")
    print(f"  with tracking     p50 {p50_on:6.2f} ms  p95 {_pct(on, 0.95):6.2f} ms")
    print(
        f"  overhead p50 {100 * (p50_on / p50_off - 1):+.1f}%  "
        f"mean {100 * (statistics.mean(on) / statistics.mean(off) - 1):+.1f}%"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
