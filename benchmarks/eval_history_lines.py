"""How accurate "why" is: the commits the history index links to a symbol, against
``git log -L`` on the symbol's lines (issue 35).

For a git repository (a work tree) and stores built for it (``--db PATH...``, e.g. by
``nano-brain index --no-embed --workspace REPO``; or ``--build``: built here, in a temporary
folder, by that command), ``--symbols`` functions, methods and classes that exist at HEAD are
sampled (seeded). For each, ``git log -L<first>,<last>:<path> --no-patch`` lists the commits
that changed those lines, kept to the index's window (the newest ``--max-commits`` commits of
``git rev-list --topo-order``, merges left out as the index leaves them out), and
``History.commits_of`` lists the commits the index links to it. Printed: precision and recall
over all the pairs (micro) and per symbol (macro), how many symbols agree exactly, and the
symbols that differ most (``--show``).

    python benchmarks/eval_history_lines.py --repo DIR (--db PATH... | --build) [--symbols 100]
        [--seed 0] [--max-commits 10000] [--jobs 2] [--show 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nano_brain import Brain
from nano_brain.codeindex.languages import language_for_path
from nano_brain.config import load_config
from nano_brain.history import History
from nano_brain.history._symbols import spans_of

EXE = str(Path(sys.executable).with_name("nano-brain"))
KINDS = ("function", "method", "class")


@dataclass
class Sample:
    name: str
    path: str
    start: int
    end: int
    truth: set[str]
    found: set[str]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def head_symbols(repo: Path) -> list[tuple[str, str, int, int]]:
    """(qualified name, path, first line, last line) of every function, method and class
    of the source files at HEAD."""
    out: list[tuple[str, str, int, int]] = []
    for path in sorted(_git(repo, "ls-files", "-z").split("\0")):
        if not path or language_for_path(path) is None:
            continue
        try:
            data = (repo / path).read_bytes()
            spans = spans_of(path, data)
        except Exception:  # unreadable or unparsable at HEAD: not sampled
            continue
        out += [(f"{path}::{n}", path, s, e) for n, kind, s, e in spans if kind in KINDS]
    return out


def window(repo: Path, max_commits: int) -> tuple[set[str], str]:
    """The index's window (merges excluded) and a --since date a little before its oldest."""
    lines = _git(repo, "rev-list", f"--max-count={max_commits}", "--topo-order",
                 "--format=%H %P %ct", "--no-commit-header", "HEAD").split("\n")  # fmt: skip
    kept, oldest = set(), None
    for line in filter(None, lines):
        parts = line.split()
        if len(parts) - 2 <= 1:
            kept.add(parts[0])
        stamp = int(parts[-1])
        oldest = stamp if oldest is None else min(oldest, stamp)
    return kept, str((oldest or 0) - 86_400)


def line_log(repo: Path, path: str, start: int, end: int, since: str) -> set[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "log", f"-L{start},{end}:{path}", "--no-patch",
         "--format=%H", f"--since={since}", "HEAD"],
        capture_output=True, text=True,
    )  # fmt: skip
    return set(out.stdout.split()) if out.returncode == 0 else set()


def build(repo: Path, home: Path, max_commits: int) -> Path:
    """Index ``repo`` with the CLI (no embedding) into ``home``; the store's path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    env["NANO_BRAIN_HISTORY__MAX_COMMITS"] = str(max_commits)
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    subprocess.run([EXE, "index", "--no-embed", "--workspace", str(repo), "--json"],
                   env=env, check=True, capture_output=True)  # fmt: skip
    (found,) = (home / "xdg_data_home").rglob("brain.db")
    return found


def evaluate(args: argparse.Namespace, dbs: list[Path]) -> list[dict[str, Any]]:
    """The numbers of each store, against one `git log -L` run per sampled symbol."""
    repo = Path(args.repo).resolve()
    symbols = head_symbols(repo)
    picked = random.Random(args.seed).sample(symbols, min(args.symbols, len(symbols)))
    kept, since = window(repo, args.max_commits)
    with ThreadPoolExecutor(args.jobs) as pool:
        truths = list(pool.map(lambda s: line_log(repo, s[1], s[2], s[3], since) & kept, picked))
    out = []
    for db in dbs:
        config = load_config(repo, overrides={"embedding": {"provider": "none"}})
        brain = Brain(repo, config=config, db_path=db)
        try:
            history = History(brain)
            found = [{c.hash for c in history.commits_of(n, limit=100_000)} for n, *_ in picked]
        finally:
            brain.close()
        samples = [
            Sample(n, p, s, e, t, f)
            for (n, p, s, e), t, f in zip(picked, truths, found, strict=True)
        ]
        out.append({"db": str(db), **summarize(samples, args.show)})
    return out


def summarize(samples: list[Sample], show: int) -> dict[str, Any]:
    hit = sum(len(s.truth & s.found) for s in samples)
    predicted = sum(len(s.found) for s in samples)
    true = sum(len(s.truth) for s in samples)
    precisions = [len(s.truth & s.found) / len(s.found) for s in samples if s.found]
    recalls = [len(s.truth & s.found) / len(s.truth) for s in samples if s.truth]
    worst = sorted(samples, key=lambda s: -len(s.truth ^ s.found))[:show]
    return {
        "symbols": len(samples),
        "line_log_commits": true,
        "index_commits": predicted,
        "both": hit,
        "precision": round(hit / predicted, 4) if predicted else None,
        "recall": round(hit / true, 4) if true else None,
        "macro_precision": round(sum(precisions) / len(precisions), 4) if precisions else None,
        "macro_recall": round(sum(recalls) / len(recalls), 4) if recalls else None,
        "exact": sum(1 for s in samples if s.truth == s.found),
        "worst": [
            {"name": s.name, "lines": [s.start, s.end],
             "only_line_log": sorted(s.truth - s.found)[:5],
             "only_index": sorted(s.found - s.truth)[:5], "missed": len(s.truth - s.found),
             "extra": len(s.found - s.truth)}
            for s in worst if s.truth != s.found
        ],
    }  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="the repository's work tree")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", nargs="+", help="stores built for the repository (brain.db)")
    where.add_argument("--build", action="store_true", help="build one here with the CLI")
    ap.add_argument("--symbols", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-commits", type=int, default=10_000, help="history.max_commits")
    ap.add_argument("--jobs", type=int, default=2, help="git log -L runs at once")
    ap.add_argument("--show", type=int, default=5, help="symbols that differ most, printed")
    ap.add_argument("--json", help="also write the numbers here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="eval-history-") as tmp:
        repo = Path(args.repo).resolve()
        dbs = [build(repo, Path(tmp), args.max_commits)] if args.build else list(map(Path, args.db))
        results = evaluate(args, dbs)
    for numbers in results:
        _print(numbers)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def _print(numbers: dict[str, Any]) -> None:
    print(f"store {numbers['db']}")
    print(f"{numbers['symbols']} symbols; git log -L: {numbers['line_log_commits']} commits, "
          f"index: {numbers['index_commits']}, both: {numbers['both']}")  # fmt: skip
    print(f"precision {numbers['precision']}  recall {numbers['recall']}  (over all pairs)")
    print(f"precision {numbers['macro_precision']}  recall {numbers['macro_recall']}  (per symbol)")
    print(f"exactly the same commits: {numbers['exact']} of {numbers['symbols']}")
    for w in numbers["worst"]:
        print(f"  {w['name']} {w['lines']}: {w['missed']} only in git log -L "
              f"{[h[:10] for h in w['only_line_log']]}, {w['extra']} only in the index "
              f"{[h[:10] for h in w['only_index']]}")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
