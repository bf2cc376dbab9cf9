#!/usr/bin/env python3
"""Code search on a real repository: what it shows for questions about the code, for
questions about nothing in it, and how much of either is test code.

The repository is indexed with `nano-brain index` (default config, or with
`embedding.test_code: true` for `--test-code`), then asked through the MCP SDK client
(`code_search`, 10 results, hybrid):

- on-topic: the first sentence of each documented function, method or class outside the
  tests, read from the source with `ast` (the golden answer is that definition: recall@1
  and @10, by qualified name);
- off-topic: LoCoMo's dev questions (conversations between people: nothing a code base
  answers), the first `--off` of them: how many come back with a result at all, how many
  results they show and how many of those are test code.

    python benchmarks/eval_code_relevance.py --repo /tmp/flask [--test-code] [--json OUT]

Test code is what lives under a `test`/`tests`/`testing` folder, or in `test_*.py`,
`*_test.py` or `conftest.py` (judged here from the path, not by the product's rule).
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_locomo as locomo  # noqa: E402
from _mcp_stdio import call, isolated_env, mcp_session  # noqa: E402

_TEST_DIRS = {"test", "tests", "testing"}
_MIN_WORDS = 4


def is_test(path: str) -> bool:
    p = PurePosixPath(path)
    name = p.name
    return (
        bool(_TEST_DIRS & set(p.parts[:-1]))
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def documented(repo: Path, limit: int, seed: int) -> list[tuple[str, str]]:
    """(first docstring sentence, qualified name) of definitions outside the tests."""
    files = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True, text=True, check=True
    ).stdout.split()
    out: list[tuple[str, str]] = []
    for rel in files:
        if is_test(rel):
            continue
        try:
            tree = ast.parse((repo / rel).read_bytes())
        except (SyntaxError, ValueError):
            continue
        out += _defs(tree, rel, [])
    random.Random(seed).shuffle(out)
    return out[:limit]


def _defs(node: ast.AST, rel: str, outer: list[str]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [*outer, child.name]
            doc = ast.get_docstring(child) or ""
            sentence = doc.strip().split("\n\n")[0].replace("\n", " ").split(". ")[0].strip()
            if len(sentence.split()) >= _MIN_WORDS and not child.name.startswith("_"):
                found.append((sentence, f"{rel}::{'.'.join(names)}"))
            found += _defs(child, rel, names)
    return found


def index(repo: Path, db: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nano_brain", "index", "--workspace", str(repo), "--db", str(db)],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def ask(repo: Path, db: Path, env: dict[str, str], queries: list[str]) -> list[list[str]]:
    """The titles (qualified names) `code_search` shows for each query."""

    async def run() -> list[list[str]]:
        out = []
        async with mcp_session(repo, db, env) as client:
            for query in queries:
                res = await call(client, "code_search", {"query": query, "max_results": 10})
                out.append([str(h["title"]) for h in res["results"]])
        return out

    return anyio.run(run)


def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    extra = {"NANO_BRAIN_EMBEDDING__TEST_CODE": "true"} if args.test_code else {}
    env = isolated_env(work / "home", extra)
    db = work / "code.db"
    index_s = index(args.repo, db, env)
    on = documented(args.repo, args.on, seed=7)
    data = json.loads(args.locomo.read_text())
    off = [str(q["question"]) for s in data for q in s["qa"]][: args.off]
    started = time.perf_counter()
    answers = ask(args.repo, db, env, [q for q, _ in on] + off)
    ask_s = time.perf_counter() - started
    on_answers, off_answers = answers[: len(on)], answers[len(on) :]

    def path(title: str) -> str:
        return title.split("::", 1)[0]

    pairs = list(zip(on, on_answers, strict=True))
    on_shown = [t for a in on_answers for t in a]
    off_shown = [t for a in off_answers for t in a]
    return {
        "repo": str(args.repo),
        "test_code_embedded": args.test_code,
        "index_s": round(index_s, 1),
        "ask_s": round(ask_s, 1),
        "on_topic": {
            "queries": len(on),
            "recall@1": round(sum(a[:1] == [g] for (_, g), a in pairs) / len(on), 3),
            "recall@10": round(sum(g in a for (_, g), a in pairs) / len(on), 3),
            "empty": sum(not a for a in on_answers),
            "shown": len(on_shown),
            "test_code_shown": sum(is_test(path(t)) for t in on_shown),
        },
        "off_topic": {
            "queries": len(off),
            "answered": sum(bool(a) for a in off_answers),
            "shown": len(off_shown),
            "test_code_shown": sum(is_test(path(t)) for t in off_shown),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="a git work tree")
    parser.add_argument("--locomo", type=Path, default=locomo.DEFAULT_PATH)
    parser.add_argument("--on", type=int, default=200, help="on-topic queries (most)")
    parser.add_argument("--off", type=int, default=120, help="off-topic questions")
    parser.add_argument("--test-code", action="store_true", help="embedding.test_code: true")
    parser.add_argument("--work", type=Path, help="the store and its home (default: temporary)")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nano-brain-code-relevance-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        report = measure(args, work)
    on, off = report["on_topic"], report["off_topic"]
    print(f"code search on {report['repo']} (test code embedded: {report['test_code_embedded']})")
    print(
        f"on-topic ({on['queries']} docstring sentences): recall@1 {on['recall@1']}, "
        f"recall@10 {on['recall@10']}, {on['empty']} empty; {on['test_code_shown']} of "
        f"{on['shown']} results test code"
    )
    print(
        f"off-topic ({off['queries']} LoCoMo questions): {off['answered']} answered, "
        f"{off['shown']} results shown, {off['test_code_shown']} of them test code"
    )
    print(f"index {report['index_s']} s, questions {report['ask_s']} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
