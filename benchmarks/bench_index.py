"""Code index throughput against its parser: cold index, no-change, one-file edit, memory.

The tree (printed): this interpreter's standard library without its test folders (``test/``,
``tests/``, ``idle_test/``, passed to the indexer as excludes) unless ``--root`` names
another. It is copied to a temporary folder so the edit step can change a file. One run
prints, for the same files:

- tree-sitter's parse-only time on one core (``Parser.parse`` of every source file the index
  parses, nothing else) and Universal Ctags' ``ctags -R`` time, when ``ctags`` is installed;
- the cold index (embeddings off) and its ratio to the parse-only time;
- a re-index with nothing changed, and re-indexes after editing the source file closest to
  500 lines (a function appended to it), both as ``nano-brain index`` runs (walking the
  tree) and as the editor's sidecar runs after a save (told which file changed): the median
  of five each;
- the peak RSS of the indexing process and of its parse workers, and the store's size.

With ``--floors`` it also times, alternating with the one-core parse, what a cold index
cannot go below with its design: tree-sitter's parse alone in a pool of ``--workers``
processes, and the parse workers' whole job (parse and extraction, the indexer's own worker
function over every file in the same order) with the results thrown away.

Finally it embeds a sample of the symbol chunks with the local model (``--embed-sample 0``
skips that).

    python benchmarks/bench_index.py [--root DIR] [--workers 2] [--embed-sample 500] [--floors]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex import DEFAULT_MAX_BYTES, _parse_worker
from nano_brain.codeindex.indexer import IndexReport
from nano_brain.codeindex.languages import code_extensions, get_parser
from nano_brain.codeindex.service import CodeIndex
from nano_brain.codeindex.walk import WalkedFile, iter_workspace
from nano_brain.config import Config, load_config

#: Edits of the ~500-line file per way of re-indexing it (the median is reported).
EDITS = 5
#: Folders left out of the default tree (the standard library's own test suites).
STDLIB_EXCLUDES = ("test/", "tests/", "idle_test/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="tree to index (default: stdlib)")
    parser.add_argument("--exclude", action="append", default=None, help="indexer exclude")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--rounds", type=int, default=3, help="cold index runs, each between two parse-only runs"
    )
    parser.add_argument("--embed-sample", type=int, default=500)
    parser.add_argument("--model", default=None, help="local embedding model key (default: ours)")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    parser.add_argument(
        "--floors", action="store_true", help="also time the parse and the workers' job alone"
    )
    args = parser.parse_args()
    root = args.root or Path(sysconfig.get_paths()["stdlib"])
    exclude = list(args.exclude if args.exclude is not None else
                   (STDLIB_EXCLUDES if args.root is None else ()))  # fmt: skip

    tmp = Path(tempfile.mkdtemp(prefix="nb-bench-index-"))
    try:
        work = tmp / "ws"
        shutil.copytree(
            root, work, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "site-packages")
        )
        results = {
            "tree": str(root),
            "exclude": exclude,
            "load_average": os.getloadavg(),
            **run(
                work,
                tmp / "brain.db",
                exclude,
                args.workers,
                args.embed_sample,
                args.model,
                args.rounds,
            ),
        }
        if args.floors:
            results["floors"] = floors(work, exclude, args.workers, args.rounds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(results, indent=2))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))


def _source_files(work: Path, exclude: list[str]) -> list[WalkedFile]:
    walked = iter_workspace(work, exclude=exclude, suffixes=code_extensions())
    return [w for w in walked if isinstance(w, WalkedFile) and w.language is not None]


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def parse_only(files: list[WalkedFile]) -> tuple[float, float]:
    """Seconds (wall, CPU) tree-sitter takes to parse every file on one core (files read
    beforehand)."""
    data = [(w.language, w.abs_path.read_bytes()) for w in files]
    started, cpu = time.perf_counter(), time.process_time()
    for language, source in data:
        get_parser(language).parse(source)
    return time.perf_counter() - started, time.process_time() - cpu


def ctags_seconds(work: Path, exclude: list[str]) -> float | None:
    """``ctags -R`` over the same tree and excludes, or None when ctags is not installed."""
    ctags = shutil.which("ctags")
    if ctags is None:
        return None
    args = [ctags, "-R", "-f", os.devnull, "--languages=Python,JavaScript,Go,Rust,Java,Ruby"]
    args += [f"--exclude={e.rstrip('/')}" for e in exclude]
    started = time.perf_counter()
    subprocess.run([*args, "."], cwd=work, check=True, capture_output=True)
    return time.perf_counter() - started


def _near_500_lines(files: list[WalkedFile]) -> Path:
    def lines(w: WalkedFile) -> int:
        return w.abs_path.read_bytes().count(b"\n")

    return min(files, key=lambda w: (abs(lines(w) - 500), w.path)).abs_path


def _cold(
    work: Path, db: Path, config: Config, workers: int, exclude: list[str]
) -> tuple[float, dict[str, float], IndexReport]:
    """One cold index into a new store: wall seconds, CPU seconds by process, the report."""
    with Brain(work, config=config, db_path=db) as brain:
        index = CodeIndex(brain, workers=workers, exclude=exclude)
        cpu0, kids0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        cold = index.index()
        cold_s = time.perf_counter() - t
        cpu = {
            "indexer": round(_cpu(resource.RUSAGE_SELF) - cpu0, 2),
            "parse_workers": round(_cpu(resource.RUSAGE_CHILDREN) - kids0, 2),
        }
    return cold_s, cpu, cold


def run(
    work: Path,
    db: Path,
    exclude: list[str],
    workers: int,
    embed_sample: int,
    model: str | None,
    n_rounds: int = 3,
) -> dict:
    files = _source_files(work, exclude)
    out: dict = {"workers": workers, "cpus": os.cpu_count(), "source_files": len(files),
                 "source_mb": round(sum(w.size for w in files) / 1e6, 1)}  # fmt: skip
    off = load_config(work, overrides={"embedding": {"provider": "none"}})
    # parse-only and cold index alternate, and each cold index is compared with the mean of
    # the parse-only runs on either side of it: this machine's speed drifts over minutes (up
    # to 1.5x between two runs), so a ratio of two measurements far apart is noise. The
    # median round is reported.
    rounds = []
    parse_s, parse_cpu = parse_only(files)
    for r in range(max(1, n_rounds)):
        store = db if r == n_rounds - 1 else db.with_name(f"round{r}.db")
        cold_s, cpu, cold = _cold(work, store, off, workers, exclude)
        after_s, after_cpu = parse_only(files)
        wall, core = (parse_s + after_s) / 2, (parse_cpu + after_cpu) / 2
        rounds.append({
            "parse_only_s": round(wall, 2),
            "parse_only_before_after_s": [round(parse_s, 2), round(after_s, 2)],
            "cold_s": round(cold_s, 2),
            "cold_cpu_s": cpu,
            "cold_over_parse_only": round(cold_s / wall, 2),
            # the wall time two idle cores would need at best (all CPU spread evenly)
            "cold_cpu_over_2_cores_over_parse_only": round(sum(cpu.values()) / 2 / core, 2),
        })  # fmt: skip
        parse_s, parse_cpu = after_s, after_cpu
    out["rounds"] = rounds
    for key in ("parse_only_s", "cold_over_parse_only", "cold_cpu_over_2_cores_over_parse_only"):
        out[key if key != "parse_only_s" else "parse_only_1_core_s"] = statistics.median(
            r[key] for r in rounds
        )
    out["peak_rss_mb"] = {
        "indexer": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "parse_worker": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
    }
    out["cold"] = {
        "seconds": round(cold_s, 2),
        "files": cold.files,
        "files_per_s": round(cold.parsed / cold_s, 1),
        "symbols": cold.symbols,
        "edges": cold.edges,
        "calls": cold.calls,
        "resolved_calls": cold.resolved_calls,
        "skipped": cold.skipped,
        "phases": cold.phase_seconds,
    }
    with Brain(work, config=off, db_path=db) as brain:
        index = CodeIndex(brain, workers=workers, exclude=exclude)
        out["store_mb"] = round(brain.store.file_size() / 1e6, 1)
        t = time.perf_counter()
        again = index.index()
        out["no_change_reindex_s"] = round(time.perf_counter() - t, 3)
        assert again.parsed == 0 and not again.resolved, again
        target = _near_500_lines(files)
        out["edited_file"] = {
            "path": str(target.relative_to(work)),
            "lines": target.read_bytes().count(b"\n"),
        }
        rel = str(target.relative_to(work))
        walked: list[tuple[float, dict]] = []
        named: list[tuple[float, dict]] = []
        for i in range(EDITS):
            # alternately as `nano-brain index` runs (walks the tree) and as the editor's
            # sidecar runs after a save (told the saved file)
            for paths, into in ((None, walked), ([rel], named)):
                with open(target, "a", encoding="utf-8") as fh:
                    name = f"_bench_added_{i}_{len(into)}"
                    fh.write(f"\n\ndef {name}():\n    return {name}()\n")
                t = time.perf_counter()
                edited = index.index(paths=paths)
                into.append((time.perf_counter() - t, edited.phase_seconds))
                assert edited.parsed == 1 and edited.paths == (None if paths is None else 1)
        for key, runs in (("edit_one_file", walked), ("edit_saved_file", named)):
            ordered = sorted(runs, key=lambda r: r[0])
            out[f"{key}_s"] = round(ordered[len(ordered) // 2][0], 3)
            out[f"{key}_runs_s"] = [round(r[0], 3) for r in runs]
            out[f"{key}_phases"] = ordered[len(ordered) // 2][1]
        os.utime(target, ns=(time.time_ns(), time.time_ns()))
        t = time.perf_counter()
        touched = index.index()
        out["touched_one_file_s"] = round(time.perf_counter() - t, 3)
        assert touched.touched == 1 and touched.parsed == 0, touched
    tags = ctags_seconds(work, exclude)
    out["ctags_s"] = round(tags, 2) if tags is not None else "ctags not installed"
    if tags:
        out["cold_over_ctags"] = round(statistics.median(r["cold_s"] for r in rounds) / tags, 1)
    if embed_sample:
        out["embedding"] = _embed(work, db, embed_sample, model)
    return out


def _parse_job(job: tuple[str, str]) -> None:
    language, path = job
    with open(path, "rb") as fh:
        get_parser(language).parse(fh.read())


def _pool_seconds(fn: object, jobs: list, workers: int, initializer: object = None) -> float:
    """Wall seconds of a pool of ``workers`` processes mapping ``fn`` over ``jobs`` as the
    indexer's pool does (forked, four jobs at a time), results dropped."""
    started = time.perf_counter()
    with ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=initializer
    ) as pool:
        for _ in pool.map(fn, jobs, chunksize=4):  # type: ignore[arg-type]
            pass
    return time.perf_counter() - started


def floors(work: Path, exclude: list[str], workers: int, n_rounds: int) -> dict:
    """The parse alone and the parse workers' whole job alone on ``workers`` cores, each over
    the mean of the one-core parse-only runs either side of it (median of the rounds)."""
    files = sorted(_source_files(work, exclude), key=lambda w: -w.size)  # the indexer's order
    parse_jobs = [(w.language, str(w.abs_path)) for w in files]
    # the indexer's own worker function and setup: the floor is exactly what its workers do
    chunking = load_config(work).config.chunking
    work_jobs = [
        (w.path, str(w.abs_path), w.language, None, chunking.max_chars, chunking.overlap_chars,
         DEFAULT_MAX_BYTES)
        for w in files
    ]  # fmt: skip
    rows = []
    before, _ = parse_only(files)
    for _ in range(max(1, n_rounds)):
        parse_s = _pool_seconds(_parse_job, parse_jobs, workers)
        job_s = _pool_seconds(_parse_worker.work, work_jobs, workers, _parse_worker.worker_start)
        after, _ = parse_only(files)
        one_core = (before + after) / 2
        rows.append((parse_s / one_core, job_s / one_core, parse_s, job_s))
        before = after
    return {
        "parse_alone_on_workers_over_parse_only": round(statistics.median(r[0] for r in rows), 2),
        "workers_job_alone_over_parse_only": round(statistics.median(r[1] for r in rows), 2),
        "rounds": [
            {"parse_alone_s": round(r[2], 2), "workers_job_alone_s": round(r[3], 2)} for r in rows
        ],
    }


def _embed(work: Path, db: Path, sample: int, model: str | None) -> dict:
    overrides: dict = {"embedding": {"provider": "local"}}
    if model:
        overrides["embedding"]["model"] = model
    on = load_config(work, overrides=overrides)
    with Brain(work, config=on, db_path=db) as brain:
        provider, why = brain.provider()
        if provider is None:
            return {"error": why}
        t = time.perf_counter()
        n = brain.embed_pending(limit=sample)
        secs = time.perf_counter() - t
        return {
            "model": provider.name,
            "chunks": n,
            "seconds": round(secs, 2),
            "chunks_per_s": round(n / secs, 1),
            "pending_after": brain.store.pending_count(),
        }


if __name__ == "__main__":
    main()
