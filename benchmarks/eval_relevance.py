#!/usr/bin/env python3
"""The relevance floor on LoCoMo dev: on-topic recall kept, off-topic lists empty.

Each conversation is its own workspace (its turns written over MCP by `nano-brain mcp`, one
note per turn, default config). Through the MCP SDK client, each workspace is asked its own
conversation's questions (`memory_query`: recall@10 of the evidence turns, as
`eval_locomo.py` measures it) and the previous conversation's questions (off-topic: how many
come back empty, and how many results the others show). The related lists offered unasked are
measured on the same off-topic questions with the functions the sidecar and `why` use (the
hover's `related_memories`, `why.related_to`), in the same workspaces.

    python benchmarks/eval_relevance.py [PATH] [--work DIR] [--code-tree DIR] [--json OUT]

`--code-tree DIR` copies a code tree into every workspace and indexes it (`nano-brain index`)
before the questions: notes must keep their recall beside the code.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eval_locomo as locomo  # noqa: E402
from _mcp_stdio import call, isolated_env, mcp_session  # noqa: E402


def _ingest(sample: dict, ws: Path, db: Path, env: dict[str, str]) -> dict[str, str]:
    """Every turn of one conversation, written over MCP: {doc id: turn id}."""

    async def run() -> dict[str, str]:
        ids: dict[str, str] = {}
        async with mcp_session(ws, db, env) as client:
            for note in locomo.turn_notes(sample, 0):
                res = await call(client, "memory_write", {"content": note["content"]})
                ids[res["document"]["id"]] = note["dia_id"]
            await locomo._wait_embedded(client)
        return ids

    return anyio.run(run)


def _ask(ws: Path, db: Path, env: dict[str, str], questions: list[str]) -> list[list[str]]:
    async def run() -> list[list[str]]:
        out = []
        async with mcp_session(ws, db, env) as client:
            for question in questions:
                res = await call(
                    client, "memory_query", {"query": question[:4000], "max_results": 10}
                )
                out.append([h["id"] for h in res["results"]])
        return out

    return anyio.run(run)


def _related(ws: Path, db: Path, env: dict[str, str], questions: list[str]) -> dict[str, Any]:
    """How many off-topic questions the hover's and `why`'s related lists leave empty."""
    import os
    from unittest import mock

    from nano_brain import Brain
    from nano_brain.config import load_config
    from nano_brain.lsp.related import related_memories
    from nano_brain.why import related_to

    # the related lists run in this process, which must see the workspaces' isolated dirs
    isolated = {k: v for k, v in env.items() if k.startswith(("XDG_", "NANO_BRAIN_"))}
    with mock.patch.dict(os.environ, isolated):
        with Brain(ws, config=load_config(ws), db_path=db, actor="lsp") as brain:
            hover = [
                related_memories(brain, q, limit=3, min_similarity=0.45, snippet_chars=160)
                for q in questions
            ]
            why = [related_to(brain, q, limit=3, seen=set(), snippet_chars=160) for q in questions]
    return {
        "hover_empty": sum(not h for h in hover),
        "why_empty": sum(not w for w in why),
        "questions": len(questions),
    }


def _checkpointed_copy(source: Path, target: Path) -> None:
    from nano_brain.store.sqlite._driver import sqlite_module

    db = sqlite_module().connect(str(source))
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(source, target)


def _index_code(tree: Path, ws: Path, db: Path, env: dict[str, str]) -> float:
    shutil.copytree(tree, ws / "code", dirs_exist_ok=True)
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nano_brain", "index", "--workspace", str(ws), "--db", str(db)],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=locomo.DEFAULT_PATH)
    parser.add_argument("--work", type=Path, required=True, help="workspaces and stores here")
    parser.add_argument("--code-tree", type=Path, help="a code tree copied into each workspace")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument(
        "--no-floor", action="store_true", help="search.relevance_floor off: the baseline"
    )
    args = parser.parse_args(argv)
    data = json.loads(args.path.read_text())
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    env = isolated_env(
        work / "home", {"NANO_BRAIN_SEARCH__RELEVANCE_FLOOR": "false"} if args.no_floor else {}
    )
    sids = [s["sample_id"] for s in data]
    places: dict[str, tuple[Path, Path]] = {}
    by_id: dict[str, dict[str, str]] = {}
    t0 = time.perf_counter()
    for sample in data:
        sid = sample["sample_id"]
        ws, db = work / f"ws-{sid}", work / f"{sid}.db"
        ws.mkdir(exist_ok=True)
        places[sid] = (ws, db)
        ids_file = work / f"{sid}.ids.json"
        if ids_file.exists() and db.exists():
            by_id[sid] = json.loads(ids_file.read_text())
            continue
        by_id[sid] = _ingest(sample, ws, db, env)
        ids_file.write_text(json.dumps(by_id[sid]))
    ingest_s = time.perf_counter() - t0
    code_s = 0.0
    if args.code_tree:
        for ws, db in places.values():
            code_s += _index_code(args.code_tree, ws, db, env)
    known = {sid: set(turns.values()) for sid, turns in by_id.items()}
    qs = list(locomo.questions(data, known))
    own: dict[str, list[Any]] = {sid: [q for q in qs if q[0] == sid] for sid in sids}
    on_answers: list[list[str]] = []
    on_qs: list[Any] = []
    off_lengths: list[int] = []
    related = {"hover_empty": 0, "why_empty": 0, "questions": 0}
    t1 = time.perf_counter()
    for i, sid in enumerate(sids):
        ws, base = places[sid]
        # each run asks a fresh copy: the accesses one run counts must not rank the next
        db = base.with_suffix(".asked.db")
        _checkpointed_copy(base, db)
        stranger = sids[i - 1]  # the previous conversation's questions, off-topic here
        mine = [str(item["question"]) for _, item, _ in own[sid]]
        theirs = [str(item["question"]) for _, item, _ in own[stranger]]
        answers = _ask(ws, db, env, mine + theirs)
        on_answers += answers[: len(mine)]
        on_qs += own[sid]
        off_lengths += [len(a) for a in answers[len(mine) :]]
        for key, value in _related(ws, db, env, theirs).items():
            related[key] += value
    ask_s = time.perf_counter() - t1
    table = locomo.score(on_qs, on_answers, by_id)
    off = len(off_lengths)
    report = {
        "path": "mcp",
        "workspaces": len(sids),
        "code_tree": str(args.code_tree) if args.code_tree else None,
        "relevance_floor": not args.no_floor,
        "on_topic": {"R@10": table["R@10"]["all"], "R@5": table["R@5"]["all"],
                     "questions": table["questions"]},
        "off_topic": {
            "questions": off,
            "memory_query_empty": round(sum(n == 0 for n in off_lengths) / off, 4),
            "memory_query_mean_results": round(sum(off_lengths) / off, 2),
            "hover_related_empty": round(related["hover_empty"] / related["questions"], 4),
            "why_related_empty": round(related["why_empty"] / related["questions"], 4),
        },
        "seconds": {"ingest": round(ingest_s, 1), "code_index": round(code_s, 1),
                    "questions": round(ask_s, 1)},
    }  # fmt: skip
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
