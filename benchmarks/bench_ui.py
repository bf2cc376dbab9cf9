#!/usr/bin/env python3
"""The memory page on a 10k-note store, timed in the browser.

Builds a store of N notes (two years of them, a tenth decisions, some supersede chains, every
note embedded by the default model), starts a real `nano-brain ui`, and drives Debian's
Chromium with Playwright. The page itself records how long each view took, from the moment it
asks the server to the moment the view is drawn (`window.__nbTimings`):

- timeline: opening the Timeline tab (the API call, then the SVG drawn). Target <= 1 s.
- search: submitting a query until the results are listed (hybrid and lexical). Target
  <= 200 ms.

    python benchmarks/bench_ui.py [--notes 10000] [--runs 7] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMELINE_TARGET_MS = 1000
SEARCH_TARGET_MS = 200
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WORDS = (
    "cache retry queue deploy schema index token backoff invoice billing tax refund webhook "
    "migration replica shard latency timeout budget alert rollout feature flag pipeline"
).split()
QUERIES = [
    "retry backoff for webhooks",
    "invoice tax rounding",
    "schema migration rollout",
    "cache latency budget",
    "feature flag pipeline",
    "refund queue timeout",
    "replica shard alert",
    "token deploy",
]


SYLLABLES = "ka lo mi ren tsu va pe dor quin ash bel cor fen gis hal jut".split()
VOCABULARY = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES[:4]]
"""1,024 made-up words for the body of the notes, so that a query's words (from WORDS, two
per note) match a few hundred notes, as in a real store, not all of them."""
SESSION = 25
"""Notes written by one Brain before the next is opened: a store's notes come in sessions
(threads), not as one thread of 10k notes."""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    return env


def build(root: Path, notes: int, env: dict[str, str]) -> float:
    """Write `notes` notes over two years and embed them; returns the seconds it took."""
    os.environ.update({k: env[k] for k in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")})
    from nano_brain import Brain
    from nano_brain.config import load_config

    rng = random.Random(7)
    start = time.perf_counter()
    now = time.time()
    config = load_config(root, overrides={"embedding": {"embed_on_write": False}})
    decisions: list[str] = []
    for first in range(0, notes, SESSION):
        # writes only: the vectors are computed in one batched pass at the end
        with Brain(root, config=config, provider=None, code_provider=None) as brain:
            for i in range(first, min(notes, first + SESSION)):
                topic = [rng.choice(WORDS) for _ in range(2)]
                body = [rng.choice(VOCABULARY) for _ in range(40)]
                words = " ".join(topic + body)
                decision = i % 10 == 0
                supersedes = decisions[-1] if decision and decisions and i % 50 == 0 else None
                doc = brain.write(
                    f"Note {i}: {words}.",
                    title=f"{'Decision' if decision else 'Note'} {i}: {' '.join(topic)}",
                    tags=["decision"] if decision else [topic[0]],
                    collection=rng.choice(("memory", "ops", "design", "billing", "infra")),
                    created_at=now - (notes - i) * (2 * 365 * 86400 / notes),
                    supersedes=supersedes,
                )
                if decision:
                    decisions.append(doc.document.id)
    with Brain(root, config=config) as brain:
        brain.embed_pending()
        brain.store.checkpoint()
    return time.perf_counter() - start


def serve(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], dict[str, object]]:
    script = Path(sys.executable).with_name("nano-brain")
    proc = subprocess.Popen(
        [str(script), "ui", "--workspace", str(root), "--no-open", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise SystemExit("nano-brain ui did not start")
    return proc, json.loads(line)


def measure(endpoint: dict[str, object], runs: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    timings: dict[str, list[float]] = {"timeline": [], "hybrid": [], "lexical": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(str(endpoint["open_url"]))
        page.wait_for_selector("#search-form")
        timing = "name => window.__nbTimings[name]"
        for run in range(runs + 1):  # the first run warms the server (model, caches)
            page.click("a[data-tab=timeline]")
            page.wait_for_selector("#timeline[data-state=ready]")
            ms = page.evaluate(timing, "timeline")
            if run:
                timings["timeline"].append(ms)
            page.click("a[data-tab=search]")
            page.wait_for_selector("#search-form")
        for mode in ("hybrid", "lexical"):
            page.select_option("select[name=mode]", mode)
            for run, query in enumerate([QUERIES[0], *QUERIES * max(1, runs // len(QUERIES) + 1)]):
                page.fill("#query", query)
                page.evaluate(
                    "() => { const r = document.getElementById('results'); "
                    "r.dataset.state = 'loading'; }"
                )
                page.click("#search-form button[type=submit]")
                page.wait_for_selector("#results[data-state=ready]")
                if run:
                    timings[mode].append(page.evaluate(timing, "search"))
        browser.close()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the store in this folder")
    args = parser.parse_args()
    home = args.keep or Path(tempfile.mkdtemp(prefix="nano-brain-bench-ui-"))
    root = home / "ws"
    env = _env(home)
    if not root.exists():
        root.mkdir(parents=True)
        seconds = build(root, args.notes, env)
        print(f"built {args.notes} notes (embedded) in {seconds:.1f} s")
    proc, endpoint = serve(root, env)
    try:
        timings = measure(endpoint, args.runs)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    for name, target in (
        ("timeline", TIMELINE_TARGET_MS),
        ("hybrid", SEARCH_TARGET_MS),
        ("lexical", SEARCH_TARGET_MS),
    ):
        values = sorted(timings[name])
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        median = statistics.median(values)
        what = "timeline render" if name == "timeline" else f"search results ({name})"
        verdict = "ok" if median <= target else "OVER"
        print(
            f"{what:<26} median {median:7.1f} ms  p95 {p95:7.1f} ms  "
            f"(n={len(values)}, target <= {target} ms: {verdict})"
        )


if __name__ == "__main__":
    main()
