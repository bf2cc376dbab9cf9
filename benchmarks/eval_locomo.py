#!/usr/bin/env python3
"""LoCoMo retrieval eval: recall@k of evidence turns, per category and mode.

Ingests each conversation turn by turn (one document per dialog turn, dated by its session)
into one nano-brain store, one collection per conversation, then asks every category 1-4
question within its conversation and measures which evidence turns come back.

    python benchmarks/eval_locomo.py [PATH] [--modes hybrid,lexical,vector] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from nano_brain import Brain, SearchRequest
from nano_brain.config import load_config

DEFAULT_PATH = (
    Path(__file__).resolve().parents[2] / "shared" / "eval" / "locomo" / "locomo-dev.json"
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


def turn_documents(sample: dict, context: int) -> list[dict]:
    """One document per turn: speaker and text (with image caption), plus preceding turns."""
    conv = sample["conversation"]
    docs = []
    session_numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for number in session_numbers:
        date_text = conv.get(f"session_{number}_date_time", "")
        when = _session_time(date_text)
        turns = conv[f"session_{number}"]
        for i, turn in enumerate(turns):
            line = _turn_line(turn)
            before = [_turn_line(t) for t in turns[max(0, i - context) : i]]
            content = "\n".join([*before, line])
            if date_text:
                content = f"{content}\n({date_text})"
            docs.append(
                {
                    "dia_id": _norm(turn["dia_id"]),
                    "title": f"{turn['speaker']} {turn['dia_id']}",
                    "content": content,
                    "created_at": when,
                }
            )
    return docs


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--modes", default="hybrid,lexical,vector")
    parser.add_argument(
        "--context", type=int, default=1, help="preceding turns indexed with a turn"
    )
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    data = json.loads(args.path.read_text())
    modes = args.modes.split(",")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = load_config(root, overrides={"embedding": {"embed_on_write": False}})
        with Brain(root, config=config, db_path=root / "locomo.db") as brain:
            t0 = time.perf_counter()
            by_source: dict[str, dict[str, str]] = {}
            n_docs = 0
            for sample in data:
                sid = sample["sample_id"]
                for doc in turn_documents(sample, args.context):
                    res = brain.write(
                        doc["content"],
                        title=doc["title"],
                        collection=sid,
                        source_path=f"locomo/{sid}/{doc['dia_id']}",
                        created_at=doc["created_at"],
                    )
                    by_source.setdefault(sid, {})[res.document.id] = doc["dia_id"]
                    n_docs += 1
            ingest_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            embedded = brain.embed_pending() if "vector" in modes or "hybrid" in modes else 0
            embed_s = time.perf_counter() - t0
            model = brain.status()["embedding"]["model"]
            print(
                f"ingested {n_docs} turns in {ingest_s:.1f}s; embedded {embedded} chunks in "
                f"{embed_s:.1f}s with {model}",
                file=sys.stderr,
            )

            report: dict = {"model": model, "turns": n_docs, "context": args.context, "modes": {}}
            for mode in modes:
                recall = defaultdict(lambda: defaultdict(list))
                latencies = []
                for sample in data:
                    sid = sample["sample_id"]
                    known = set(by_source[sid].values())
                    for item in sample["qa"]:
                        cat = item.get("category")
                        if cat not in CATEGORIES:
                            continue
                        gold = evidence_ids(item, known)
                        if not gold:
                            continue
                        t = time.perf_counter()
                        response = brain.search(
                            SearchRequest(
                                query=str(item["question"])[:4000],
                                mode=mode,
                                limit=max(KS),
                                collection=[sid],
                            track=False,  # questions are independent: no usage feedback
                            )
                        )
                        latencies.append(time.perf_counter() - t)
                        got = [by_source[sid].get(h.id) for h in response.results]
                        for k in KS:
                            found = len(set(got[:k]) & set(gold)) / len(gold)
                            recall[k][cat].append(found)
                            recall[k]["all"].append(found)
                table = {
                    f"R@{k}": {str(c): round(sum(v) / len(v), 4) for c, v in recall[k].items()}
                    for k in KS
                }
                latencies.sort()
                table["questions"] = len(recall[KS[0]]["all"])
                table["query_ms_p50"] = round(1000 * latencies[len(latencies) // 2], 2)
                report["modes"][mode] = table
    _print(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


def _print(report: dict) -> None:
    print(
        f"LoCoMo retrieval recall, model {report['model']}, {report['turns']} turns, "
        f"context {report['context']}"
    )
    header = f"{'mode':<8} {'k':>4} " + " ".join(f"{CATEGORIES[c][:11]:>11}" for c in CATEGORIES)
    print(header + f" {'overall':>8}")
    for mode, table in report["modes"].items():
        for k in KS:
            row = table[f"R@{k}"]
            cells = " ".join(f"{row.get(str(c), 0):>11.3f}" for c in CATEGORIES)
            print(f"{mode:<8} {k:>4} {cells} {row['all']:>8.3f}")
        print(f"{mode:<8} questions {table['questions']}, query p50 {table['query_ms_p50']} ms")


if __name__ == "__main__":
    sys.exit(main())
