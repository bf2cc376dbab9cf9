#!/usr/bin/env python3
"""Auto-categorization time on a write (phase-1 spec): 5 KB within 5 ms, 100 KB within 50 ms.

python benchmarks/bench_categorize.py [--runs 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from nano_brain.categorize import categorize

CASES = {
    "5 KB, matching": (("Notes on the deploy pipeline and the bug we fixed. " * 120)[:5120], 5.0),
    "100 KB, no match": (
        ("Plain words about lunch and weather, nothing else at all here. " * 1700)[:102400],
        50.0,
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    for name, (text, limit) in CASES.items():
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            categorize(text)
            times.append((time.perf_counter() - start) * 1000)
        p50 = statistics.median(times)
        print(
            f"{name:18} p50 {p50:6.2f} ms (target {limit:.0f} ms) "
            f"{'met' if p50 <= limit else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
