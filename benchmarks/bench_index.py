"""Code index throughput: cold index, no-change re-index, one-file edit, embeddings.

Indexes a tree (default: this interpreter's standard library) into a fresh store with the
embedding provider off, so the numbers are parsing + writing + resolving only; then times a
re-index with nothing changed, one after touching (same content) and one after editing a
file, and finally embeds a sample of the symbol chunks with the configured local model to
report embedding throughput separately.

    python benchmarks/bench_index.py [--root DIR] [--workers 2] [--embed-sample 500]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sysconfig
import tempfile
import time
from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--embed-sample", type=int, default=500)
    parser.add_argument("--model", default=None, help="local embedding model key (default: ours)")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="nb-bench-index-"))
    try:
        # A copy, so the edit step can modify a file without touching the interpreter.
        work = tmp / "ws"
        shutil.copytree(
            args.root,
            work,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "site-packages"),
        )
        results = run(work, tmp / "brain.db", args.workers, args.embed_sample, args.model)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(results, indent=2))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))


def run(work: Path, db: Path, workers: int, embed_sample: int, model: str | None) -> dict:
    off = load_config(work, overrides={"embedding": {"provider": "none"}})
    out: dict = {"root": str(work), "workers": workers, "cpus": os.cpu_count()}
    with Brain(work, config=off, db_path=db) as brain:
        index = CodeIndex(brain, workers=workers)
        t = time.perf_counter()
        cold = index.index()
        cold_s = time.perf_counter() - t
        out["cold"] = {
            "seconds": round(cold_s, 2),
            "files": cold.files,
            "source_files": cold.source_files,
            "files_per_s": round(cold.parsed / cold_s, 1),
            "symbols": cold.symbols,
            "edges": cold.edges,
            "calls": cold.calls,
            "resolved_calls": cold.resolved_calls,
            "skipped": cold.skipped,
            "phases": cold.phase_seconds,
        }
        t = time.perf_counter()
        again = index.index()
        out["no_change_reindex_s"] = round(time.perf_counter() - t, 3)
        assert again.parsed == 0 and not again.resolved, again
        target = max(
            (p for p in work.rglob("*.py") if "test" not in p.parts), key=lambda p: p.stat().st_size
        )
        os.utime(target, ns=(time.time_ns(), time.time_ns()))
        t = time.perf_counter()
        touched = index.index()
        out["touched_one_file_s"] = round(time.perf_counter() - t, 3)
        assert touched.touched == 1 and touched.parsed == 0, touched
        with open(target, "a", encoding="utf-8") as fh:
            fh.write("\n\ndef _bench_added():\n    return _bench_added()\n")
        t = time.perf_counter()
        edited = index.index()
        out["edit_one_file_s"] = round(time.perf_counter() - t, 3)
        out["edit_one_file_phases"] = edited.phase_seconds
        out["edit_documents_added"] = edited.documents_added
        out["store_mb"] = round(brain.store.file_size() / 1e6, 1)
    if embed_sample:
        overrides: dict = {"embedding": {"provider": "local"}}
        if model:
            overrides["embedding"]["model"] = model
        on = load_config(work, overrides=overrides)
        with Brain(work, config=on, db_path=db) as brain:
            provider, why = brain.provider()
            if provider is None:
                out["embedding"] = {"error": why}
                return out
            t = time.perf_counter()
            n = brain.embed_pending(limit=embed_sample)
            secs = time.perf_counter() - t
            out["embedding"] = {
                "model": provider.name,
                "chunks": n,
                "seconds": round(secs, 2),
                "chunks_per_s": round(n / secs, 1),
                "pending_after": brain.store.pending_count(),
            }
    return out


if __name__ == "__main__":
    main()
