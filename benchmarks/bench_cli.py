#!/usr/bin/env python3
"""CLI wall time per call on a 10k-note store, next to `python -c pass` (the floor).

Agents and shell scripts call `nano-brain` in loops, so what a call costs is start-up plus the
work. This runs the real console script (a fresh process per call, as a script would) --runs
times per command and prints the median and p90 wall time, the ratio to the floor, and the
targets of issue 14:

* `--help` within 1.5 x floor + 60 ms;
* `get` and `search` p50 <= 250 ms;
* `query` (hybrid: the embedding model loads and embeds the query) p50 <= 400 ms.

It also prints each call's CPU time (user + system, median): on a busy machine wall time
includes waiting for a core, CPU time does not.

The store holds --notes notes drawn from LoCoMo dialog turns and agent transcript messages
(bench_engine's corpus, read from ../shared), embedded with the configured model. It is built
once under --store-dir and reused; queries are LoCoMo questions, a different one per run.

    python benchmarks/bench_cli.py [--notes 10000] [--runs 10] [--shared PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench_engine import (
    DEFAULT_SHARED,
    DEFAULT_STORE_DIR,
    TURN_CHARS,
    UNIT_CHARS,
    documents,
    locomo_questions,
    locomo_turns,
    transcript_texts,
    units,
)

from nano_brain import Brain, Filters
from nano_brain.config import load_config

EXE = str(Path(sys.executable).with_name("nano-brain"))
HELP_RATIO, HELP_EXTRA_MS = 1.5, 60.0
TARGETS_MS = {"get": 250.0, "search": 250.0, "query": 400.0}


def build_store(db: Path, notes: int, shared: Path) -> str:
    """The store (built unless it already holds `notes` documents); the id of one note."""
    root = db.parent
    if db.exists():
        with Brain(root, db_path=db) as brain:
            if brain.store.counts()["documents"] == notes and not brain.store.pending_count():
                return brain.list(Filters(), limit=1)[0].id
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    locomo = shared / "eval" / "locomo" / "locomo-dev.json"
    sources = {
        "locomo": units(locomo_turns(locomo), TURN_CHARS),
        "transcripts": units(transcript_texts(shared / "fixtures" / "transcripts"), UNIT_CHARS),
    }
    bulk = load_config(root, overrides={"embedding": {"embed_on_write": False}})
    with Brain(root, config=bulk, db_path=db) as brain:
        for i, doc in enumerate(documents(sources, notes), 1):
            brain.write(doc.content, collection=doc.collection, created_at=doc.created_at)
            if i % 2000 == 0:
                print(f"  wrote {i}/{notes}", file=sys.stderr)
        print("  embedding...", file=sys.stderr)
        brain.embed_pending()
        return brain.list(Filters(), limit=1)[0].id


def call_ms(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one call, in ms. On a shared machine the
    CPU time is the figure that does not depend on what else runs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000.0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode().strip()}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000.0
    return elapsed, cpu


def measure(runs: int, make_argv: object, env: dict[str, str]) -> list[tuple[float, float]]:
    """One warm-up call (page cache, the int8 model derived once), then `runs` timed calls."""
    argv_for = make_argv if callable(make_argv) else (lambda i: make_argv)
    call_ms(argv_for(-1), env)
    return [call_ms(argv_for(i), env) for i in range(runs)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_STORE_DIR)
    parser.add_argument("--json", type=Path, help="Also write the numbers here.")
    args = parser.parse_args(argv)

    args.store_dir.mkdir(parents=True, exist_ok=True)
    db = args.store_dir.resolve() / f"cli-{args.notes}.db"
    print(f"store {db}", file=sys.stderr)
    doc_id = build_store(db, args.notes, args.shared.resolve())
    questions = locomo_questions(args.shared / "eval" / "locomo" / "locomo-dev.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    where = ["--db", str(db), "--workspace", str(db.parent)]

    def search_argv(command: str) -> object:
        return lambda i: [EXE, command, questions[i % len(questions)], *where]

    commands: dict[str, object] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "--help": [EXE, "--help"],
        "--version": [EXE, "--version"],
        "get": [EXE, "get", f"#{doc_id}", *where],
        "status": [EXE, "status", *where],
        "search": search_argv("search"),
        "query": search_argv("query"),
    }
    calls = {name: measure(args.runs, make, env) for name, make in commands.items()}
    times = {name: [wall for wall, _ in sample] for name, sample in calls.items()}
    cpu = {name: statistics.median(c for _, c in sample) for name, sample in calls.items()}
    floor = statistics.median(times["python -c pass"])
    load = os.getloadavg()

    print(f"\nnano-brain CLI, {args.notes} notes, median of {args.runs} runs "
          f"(load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cpus, "
          f"Python {platform.python_version()})")  # fmt: skip
    print(f"{'command':<16}{'p50 ms':>9}{'p90 ms':>9}{'x floor':>9}{'cpu ms':>9}  target (p50)")
    rows = {}
    for name, sample in times.items():
        p50 = statistics.median(sample)
        p90 = sorted(sample)[max(0, math.ceil(len(sample) * 0.9) - 1)]
        if name == "--help":
            limit = HELP_RATIO * floor + HELP_EXTRA_MS
        else:
            limit = TARGETS_MS.get(name)
        verdict = ""
        if limit is not None:
            verdict = f"<= {limit:.0f} ms " + ("ok" if p50 <= limit else "MISS")
        rows[name] = {
            "p50_ms": p50,
            "p90_ms": p90,
            "ratio": p50 / floor,
            "cpu_p50_ms": cpu[name],
            "target_ms": limit,
        }
        print(f"{name:<16}{p50:>9.1f}{p90:>9.1f}{p50 / floor:>9.2f}{cpu[name]:>9.1f}  {verdict}")
    if args.json:
        args.json.write_text(json.dumps({"notes": args.notes, "runs": args.runs,
                                         "load": load, "results": rows}, indent=2))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
