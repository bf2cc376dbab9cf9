#!/usr/bin/env python3
"""Time one consolidation pass over a store of N notes, without a model. Target: 10k notes in
<= 60 s.

The store is seeded with notes built from a vocabulary (so texts overlap the way a team's notes
do), a share of them written again with small changes (near-duplicates) and some copied with
other case and punctuation (duplicates); each note has a vector (a hashing embedder: seeding
with the real model would time the model, not consolidation). The pass is timed alone and the
proposals are checked against the duplicates planted.

    python benchmarks/bench_consolidate.py [--notes 10000] [--dup-share 0.05]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.consolidate import Consolidator
from nano_brain.embedding import EmbeddingProvider, normalize

TARGET_S = 60.0
_TOPICS = (
    "queue", "cache", "deploy", "billing", "search", "auth", "index", "logging", "metrics",
    "editor", "sessions", "backups", "migrations", "release", "payments", "tests",
)  # fmt: skip
_WORDS = (
    "we", "use", "the", "for", "because", "never", "always", "after", "before", "worker",
    "handler", "store", "request", "response", "retry", "timeout", "lock", "batch", "limit",
    "schema", "token", "client", "server", "file", "folder", "thread", "process", "config",
    "default", "error", "warning", "latency", "memory", "disk", "network", "user", "team",
)  # fmt: skip


class HashingEmbedder(EmbeddingProvider):
    """Bag of words hashed into 128 dimensions: cheap vectors whose cosine follows overlap."""

    @property
    def name(self) -> str:
        return "bench/hashing-128"

    @property
    def dim(self) -> int:
        return 128

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 128), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[row, h % 128] += 1.0 if (h >> 8) & 1 else -1.0
        return normalize(out)


def _note(rng: random.Random, i: int) -> tuple[str, str]:
    topic = rng.choice(_TOPICS)
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(18, 40)))
    return f"{topic} note {i}", f"{topic.capitalize()} {i}: {words} {rng.randint(0, 10**6)}."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--dup-share", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        config = load_config(ws, overrides={"embedding": {"embed_on_write": False}})
        with Brain(ws, config=config, db_path=Path(tmp) / "b.db", provider=HashingEmbedder()) as b:
            t0 = time.perf_counter()
            planted = 0
            originals: list[tuple[str, str]] = []
            n = 0
            while n < args.notes:
                if originals and rng.random() < args.dup_share:
                    title, text = rng.choice(originals)
                    if rng.random() < 0.5:
                        text = text.upper().replace(":", " -")  # same words, other case
                    else:
                        text = text.rstrip(".") + " too."  # one word more
                    planted += 1
                else:
                    title, text = _note(rng, n)
                    originals.append((title, text))
                b.write(text, title=title)
                n += 1
            b.embed_pending()
            seeded = time.perf_counter() - t0
            load = os.getloadavg()[0]
            t1 = time.perf_counter()
            report = Consolidator(b).run(dry_run=True)
            elapsed = time.perf_counter() - t1
    found = sum(len(p.members) - 1 for p in report.proposed)
    print(f"notes: {report.notes} (seeded in {seeded:.1f}s), planted duplicates: {planted}")
    print(f"candidate pairs: {report.pairs}, duplicate clusters: {report.duplicate_clusters}, "
          f"related clusters: {report.related_clusters}")  # fmt: skip
    print(f"notes a proposal would supersede: {found}")
    print(f"consolidation pass: {elapsed:.2f}s (target <= {TARGET_S:.0f}s), load {load:.2f}")
    return 0 if elapsed <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
