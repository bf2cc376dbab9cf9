#!/usr/bin/env python3
"""Redaction: what it catches, what it wrongly takes, and how fast, beside detect-secrets.

1. The credential corpus (tests/_credentials.py: shapes in their surroundings): per shape,
   whether every 8-char piece of its secrets is gone, and which kinds (ours) or plugins
   (detect-secrets) fired. detect-secrets runs line by line with its default plugins and
   filters; its findings are replaced in the text to compare like with like.
2. The ordinary-text corpus (same file): how many texts either changes.
3. Throughput on the recorded transcripts (../shared/fixtures/transcripts, raw JSONL) and
   on a 5 MB text made of them; MB are millions of characters.

detect-secrets is optional (`pip install -e '.[bench]'`); without it only ours is measured.

    python benchmarks/bench_redact.py [--mb 5] [--no-detect-secrets]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests._credentials import ORDINARY, credential_shapes, fragments  # noqa: E402

from nano_brain.redact import redact  # noqa: E402

TRANSCRIPTS = REPO.parent / "shared" / "fixtures" / "transcripts"

Redactor = Callable[[str], tuple[str, list[str]]]


def ours(text: str) -> tuple[str, list[str]]:
    result = redact(text)
    return result.text, sorted(result.counts)


def detect_secrets_redactor() -> Redactor | None:
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    # It logs each value it skips at INFO: keep that out of the output.
    logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)

    def run(text: str) -> tuple[str, list[str]]:
        with default_settings():
            lines = list(enumerate(text.splitlines(), 1))
            found = list(_process_line_based_plugins(lines, filename="transcript.txt"))
        for value in sorted({s.secret_value for s in found if s.secret_value}, key=len)[::-1]:
            text = text.replace(value, "[REDACTED]")
        return text, sorted({s.type for s in found})

    return run


def corpus(name: str, run: Redactor) -> None:
    shapes = credential_shapes()
    caught = 0
    print(f"\n== {name}: credential corpus")
    for shape in shapes:
        out, labels = run(shape.text)
        leaked = any(f in out for s in shape.secrets for f in fragments(s))
        caught += not leaked
        print(f"  {'miss' if leaked else 'ok  '} {shape.id:34} {', '.join(labels)}")
    kept = sum(run(text)[0] == text for text in ORDINARY)
    print(f"  caught {caught}/{len(shapes)} shapes")
    print(f"  ordinary texts changed (false positives): {len(ORDINARY) - kept}/{len(ORDINARY)}")


def throughput(name: str, run: Redactor, texts: list[str], label: str) -> None:
    total = sum(map(len, texts))
    start = time.perf_counter()
    for text in texts:
        run(text)
    elapsed = time.perf_counter() - start
    print(f"  {name:15} {label:32} {total / 1e6:6.2f} MB in {elapsed:6.2f} s = "
          f"{total / elapsed / 1e6:6.2f} MB/s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0, help="size of the large text")
    parser.add_argument("--no-detect-secrets", action="store_true")
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runners: dict[str, Redactor] = {"nano-brain": ours}
    reference = None if args.no_detect_secrets else detect_secrets_redactor()
    if reference is not None:
        runners["detect-secrets"] = reference
    for name, run in runners.items():
        corpus(name, run)
    files = sorted(p for p in TRANSCRIPTS.rglob("*") if p.suffix in (".jsonl", ".json"))
    texts = [p.read_text(encoding="utf-8") for p in files]
    joined = "\n".join(texts)
    size = int(args.mb * 1e6)
    large = (joined * (size // max(1, len(joined)) + 1))[:size]
    print("\n== throughput")
    for name, run in runners.items():
        throughput(name, run, texts, f"{len(files)} transcripts")
        throughput(name, run, [large], f"one {args.mb:g} MB text")


if __name__ == "__main__":
    main()
