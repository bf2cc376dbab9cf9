#!/usr/bin/env python3
"""Harvest throughput and the cost of a tick when nothing changed.

Generates a corpus of transcripts by repeating the shared fixtures (Claude Code, Codex, Pi;
each copy gets its own session id and this workspace's cwd) under a temporary home, in the
agents' real folder layouts, until it reaches `--mb`. Then:

1. first full harvest: wall time, MB/s of transcript, sessions/s;
2. no-change ticks with a fresh Harvester each time (no in-process cache: what a CLI run or
   a restarted sidecar pays), and with one long-lived Harvester (what watch mode pays):
   p50/max latency and the Python heap peak of a tick (tracemalloc);
3. peak RSS of the process.

The store uses no embedding provider by default (harvest cost only: parse, digest, redact,
chunk, FTS); `--provider local` adds the shipped model's embedding on write.

    python benchmarks/bench_harvest.py [--mb 1024] [--ticks 5] [--provider none|local]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable
from pathlib import Path

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.harvest import HarvestConfig, Harvester, HarvestLocations, _common
from nano_brain.harvest.claude_code import encode_cwd as claude_folder
from nano_brain.harvest.pi import encode_cwd as pi_folder

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "transcripts"
# (agent, fixture, its recorded cwd, its session id)
SOURCES = [
    (
        "claude-code",
        FIXTURES / "claude-code" / "session-3fe1b6bc.jsonl",
        "/Users/user/repo",
        "3fe1b6bc-dbd0-4320-b980-4f147befa187",
    ),
    (
        "claude-code",
        FIXTURES / "claude-code" / "session-196820da.jsonl",
        "/Users/user/repo",
        "196820da-1026-4b6f-a513-a6aae42da1a6",
    ),
    (
        "codex",
        FIXTURES
        / "codex"
        / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        "/Users/Sample_User/repos/codemie-ai/codemie-code",
        "019e1625-789d-76c0-80ab-3724b5ddb799",
    ),
    (
        "codex",
        FIXTURES
        / "codex"
        / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
        "/Users/Sample_User/naya",
        "019e1695-0522-7c83-8b39-0dd379793f80",
    ),
    (
        "pi",
        FIXTURES / "pi" / "before-compaction.jsonl",
        "/Users/badlogic/workspaces/pi-mono",
        "ffae836b-9420-4060-ac13-7745215f90ff",
    ),
    (
        "pi",
        FIXTURES / "pi" / "large-session.jsonl",
        "/Users/badlogic/workspaces/pi-mono",
        "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
    ),
]


def generate(loc: HarvestLocations, ws: Path, target_bytes: int) -> tuple[int, int]:
    """Copies of the fixtures until `target_bytes`; returns (files, bytes)."""
    texts = [(agent, path.read_text(), cwd, sid) for agent, path, cwd, sid in SOURCES]
    files = written = 0
    while written < target_bytes:
        for agent, text, cwd, sid in texts:
            new_id = str(uuid.UUID(int=files + 1))
            body = text.replace(cwd, str(ws)).replace(sid, new_id)
            if agent == "claude-code":
                path = loc.claude_projects / claude_folder(ws) / f"{new_id}.jsonl"
            elif agent == "codex":
                day = f"{1 + files // 500 % 28:02d}"
                path = loc.codex_sessions / "2026" / "05" / day / f"rollout-x-{new_id}.jsonl"
            else:
                path = loc.pi_sessions / pi_folder(ws) / f"{new_id}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
            files += 1
            written += len(body.encode())
            if written >= target_bytes:
                break
    return files, written


def _rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 1024 / 1024


def _timed(make: Callable[[], Harvester], ticks: int, *, cold: bool) -> list[float]:
    """Milliseconds per no-change tick; `cold` forgets what discovery cached in-process."""
    times = []
    for _ in range(ticks):
        if cold:
            _common._HEAD_CACHE.clear()
        harvester = make()
        started = time.perf_counter()
        report = harvester.run_once()
        times.append((time.perf_counter() - started) * 1000)
        assert set(report.counts()) == {"unchanged"}, report.counts()
    return times


def _heap_peak_mb(harvester: Harvester) -> float:
    tracemalloc.start()
    harvester.run_once()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024 / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1024, help="corpus size (MB)")
    parser.add_argument("--ticks", type=int, default=5, help="no-change ticks to time")
    parser.add_argument("--provider", choices=("none", "local"), default="none")
    parser.add_argument("--keep", type=Path, default=None, help="build the corpus here, keep it")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        ws = base / "ws"
        ws.mkdir(parents=True, exist_ok=True)
        loc = HarvestLocations.under_home(base / "home")
        started = time.perf_counter()
        files, size = generate(loc, ws, int(args.mb * 1024 * 1024))
        print(f"corpus: {files} files, {size / 1e6:.0f} MB in {time.perf_counter() - started:.1f}s")

        config = load_config(ws, overrides={"embedding": {"provider": args.provider}})
        hconfig = HarvestConfig()
        with Brain(ws, config=config, db_path=base / "brain.db", actor="harvest") as brain:
            started = time.perf_counter()
            first = Harvester(brain, loc, config=hconfig).run_once()
            full_s = time.perf_counter() - started
            rss_after_full = _rss_mb()
            print(
                f"first harvest: {first.counts()} in {full_s:.1f}s = "
                f"{size / 1e6 / full_s:.1f} MB/s, {files / full_s:.1f} sessions/s; "
                f"peak RSS {rss_after_full:.0f} MB"
            )

            make = lambda: Harvester(brain, loc, config=hconfig)  # noqa: E731
            cold = _timed(make, args.ticks, cold=True)
            watcher = make()
            watcher.run_once()
            warm = _timed(lambda: watcher, args.ticks, cold=False)
            heap = _heap_peak_mb(watcher)
            for name, ms in (
                ("new process (CLI run, sidecar start)", cold),
                ("long-lived watcher", warm),
            ):
                print(
                    f"no-change tick, {name}: p50 {statistics.median(ms):.1f} ms, "
                    f"max {max(ms):.1f} ms over {len(ms)} ticks"
                )
            print(f"no-change tick heap peak (tracemalloc): {heap:.2f} MB")
            print(
                f"peak RSS at the end: {_rss_mb():.0f} MB (after the full harvest: "
                f"{rss_after_full:.0f} MB)"
            )
            result = {
                "files": files,
                "bytes": size,
                "provider": args.provider,
                "first_harvest_s": round(full_s, 2),
                "mb_per_s": round(size / 1e6 / full_s, 2),
                "no_change_tick_ms_p50_new_process": round(statistics.median(cold), 1),
                "no_change_tick_ms_p50_watcher": round(statistics.median(warm), 1),
                "tick_heap_peak_mb": round(heap, 2),
                "peak_rss_mb": round(_rss_mb()),
                "store_mb": round(brain.store.file_size() / 1e6, 1),
            }
            print(json.dumps(result))
            print(f"store: {result['store_mb']} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
