"""The first index of a real repository, as a user runs it: phases, embedding rate, peak RSS.

Issue 35's measure. A real git repository (``--repo PATH``, indexed where it is: the store
lives under the benchmark's own XDG folders; or ``--clone SRC``, any path or URL ``git clone``
takes, cloned with its full history into the benchmark's folder), never generated code. One
run of ``nano-brain index --workspace REPO --json`` in a subprocess, with the default config
(embedding on unless ``--no-embed``) and a fresh store, prints:

- each phase's seconds from the command's own JSON report (``timings``: start-up, code index,
  git history, embedding, total), the files, symbols, commits and past file versions parsed;
- texts embedded per second (``embedded / timings.embedding``);
- the peak RSS of the run (``ru_maxrss`` of the child from ``wait4``: exact, the largest of
  the index process and of the parse workers it waited for) and the index process's own
  VmHWM as last polled (every 50 ms);
- verdicts against the issue's targets, set for a repository of about 700 Python files, 30k
  symbols and 10k commits on 2 cores: lexical search and hovers ready (start-up + code index)
  <= 30 s, history and `why` (+ history) <= 2 min, code and semantic search complete (total)
  <= 5 min, peak RSS of `nano-brain index` <= 400 MB.

With ``--sidecar`` the same first index is then made again by the editor's sidecar: a fresh
store, the real ``nano-brain lsp`` started on the repository by pygls's LanguageClient with
the default config, as an editor opening the folder does. It prints when a symbol of the
repository is found by workspace-symbol search and first hovered (symbol index and hovers
ready), when the first index pass (code and history) reports its end, when no chunk waits
for a vector any more (read from the store, read-only, every second), and the sidecar's
VmHWM (its peak RSS, kernel-kept) and the largest VmHWM of the processes it started and
theirs (its first index runs in a child process), as last polled.

    python benchmarks/bench_first_index.py (--repo PATH | --clone SRC) [--no-embed]
        [--max-commits N] [--sidecar [--sidecar-only]] [--keep DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXE = str(Path(sys.executable).with_name("nano-brain"))
#: The issue's targets (seconds, MB) for a repository of about 700 Python files.
LEXICAL_TARGET_S = 30.0
HISTORY_TARGET_S = 120.0
TOTAL_TARGET_S = 300.0
INDEX_RSS_TARGET_MB = 400.0
SIDECAR_RSS_TARGET_MB = 300.0
#: How often the index process's VmHWM is read while it runs.
POLL_S = 0.05


@dataclass
class IndexRun:
    """One `nano-brain index` run: its exit code, wall seconds, JSON report and memory."""

    returncode: int
    wall_s: float
    report: dict[str, Any]
    stderr: str
    peak_rss_mb: float
    hwm_polled_mb: float | None
    hwm_series: list[tuple[float, float]] = field(default_factory=list)


def _env(home: Path, max_commits: int | None) -> dict[str, str]:
    """Isolated XDG dirs (a fresh store; the model cache is shared), no NANO_BRAIN_* settings
    from the caller's shell except the history limit asked for."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    if max_commits is not None:
        env["NANO_BRAIN_HISTORY__MAX_COMMITS"] = str(max_commits)
    return env


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def prepare(args: argparse.Namespace, home: Path) -> tuple[Path, float | None]:
    """The work tree to index, and the seconds a clone took (None for --repo)."""
    if args.repo is not None:
        repo = args.repo.resolve()
        if _git(repo, "rev-parse", "--is-inside-work-tree").strip() != "true":
            raise SystemExit(f"{repo} is not a git work tree")
        return repo, None
    repo = home / "repo"
    if repo.exists():  # a --keep folder used before: clone again, the index must be a first
        shutil.rmtree(repo)
    started = time.perf_counter()
    subprocess.run(["git", "clone", "--quiet", "--", args.clone, str(repo)], check=True)
    return repo, time.perf_counter() - started


def _vmhwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


def run_index(repo: Path, env: dict[str, str], embed: bool, home: Path) -> IndexRun:
    """`nano-brain index` in a subprocess, its VmHWM polled while it runs and its exact peak
    RSS taken from wait4 (the clone, an earlier child, does not count)."""
    cmd = [EXE, "index", "--workspace", str(repo), "--json"] + ([] if embed else ["--no-embed"])
    out_path, err_path = home / "index.stdout", home / "index.stderr"
    series: list[tuple[float, float]] = []
    done = threading.Event()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=repo)

        def poll() -> None:
            while not done.is_set():
                hwm = _vmhwm_mb(proc.pid)
                if hwm is not None:
                    series.append((round(time.perf_counter() - started, 2), round(hwm, 1)))
                done.wait(POLL_S)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        done.set()
        poller.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = out_path.read_text()
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        report = {}
    return IndexRun(
        returncode=proc.returncode,
        wall_s=wall,
        report=report,
        stderr=err_path.read_text(),
        peak_rss_mb=usage.ru_maxrss / 1024,  # KiB on Linux
        hwm_polled_mb=series[-1][1] if series else None,
        hwm_series=series,
    )


def _verdict(value: float, target: float, unit: str) -> str:
    return f"target <= {target:.0f} {unit}: " + ("ok" if value <= target else "MISS")


def summarize(run: IndexRun) -> dict[str, Any]:
    """The numbers the issue asks for, from the run and its report."""
    report = run.report
    t = report["timings"]
    history = report.get("history") or {}
    embedded = int(report.get("embedded", 0))
    return {
        "files": report.get("files"),
        "source_files": report.get("source_files"),
        "symbols": report.get("symbols"),
        "commits": history.get("commits"),
        "parsed_blobs": history.get("parsed_blobs"),
        "history_s": history.get("seconds"),
        "timings": t,
        "wall_s": round(run.wall_s, 2),
        "lexical_ready_s": round(t["start_up"] + t["code_index"], 2),
        "history_ready_s": round(t["start_up"] + t["code_index"] + t["history"], 2),
        "embedded": embedded,
        "embedded_per_s": round(embedded / t["embedding"], 1) if t["embedding"] else None,
        "pending_embeddings": report.get("pending_embeddings"),
        "embedding_error": report.get("embedding_error"),
        "peak_rss_mb": round(run.peak_rss_mb, 1),
        "index_vmhwm_polled_mb": run.hwm_polled_mb,
        "hwm_samples": len(run.hwm_series),
    }


def print_report(s: dict[str, Any], embed: bool) -> None:
    t = s["timings"]
    print(
        f"indexed {s['files']} files ({s['source_files']} source), {s['symbols']} symbols; "
        f"history: {s['commits']} commits, {s['parsed_blobs']} past file versions parsed"
    )
    print(f"phases: start-up {t['start_up']:.2f} s, code index {t['code_index']:.2f} s, "
          f"history {t['history']:.2f} s, embedding {t['embedding']:.2f} s, "
          f"total {t['total']:.2f} s (wall {s['wall_s']:.2f} s)")  # fmt: skip
    if not embed:
        print("embedding: off (--no-embed)")
    elif s["embedded_per_s"] is not None:
        print(f"embedding: {s['embedded']} texts, {s['embedded_per_s']:.1f} texts/s")
    else:
        print(f"embedding: {s['embedded']} texts")
    if s["embedding_error"]:
        print(f"embedding error: {s['embedding_error']}")
    print(f"peak RSS {s['peak_rss_mb']:.1f} MB (wait4 ru_maxrss: the index process or a parse "
          f"worker); index process VmHWM as last polled {s['index_vmhwm_polled_mb']} MB "
          f"({s['hwm_samples']} samples)")  # fmt: skip
    print("targets (for about 700 Python files, 30k symbols, 10k commits, 2 cores):")
    print(f"  lexical search and hovers ready {s['lexical_ready_s']:.2f} s "
          f"({_verdict(s['lexical_ready_s'], LEXICAL_TARGET_S, 's')})")  # fmt: skip
    print(f"  history and why ready {s['history_ready_s']:.2f} s "
          f"({_verdict(s['history_ready_s'], HISTORY_TARGET_S, 's')})")  # fmt: skip
    judged = _verdict(t["total"], TOTAL_TARGET_S, "s") if embed else "embedding off: not judged"
    print(f"  code and semantic search complete {t['total']:.2f} s ({judged})")
    print(f"  peak RSS of nano-brain index {s['peak_rss_mb']:.1f} MB "
          f"({_verdict(s['peak_rss_mb'], INDEX_RSS_TARGET_MB, 'MB')})")  # fmt: skip


def run_sidecar(repo: Path, home: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The sidecar's first index of the repository, on a store of its own."""
    from _sidecar_run import measure_sidecar  # the LSP client is loaded only when asked

    side = home / "sidecar"
    shutil.rmtree(side, ignore_errors=True)
    env = _env(side, args.max_commits)
    if not args.embed:
        env["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    return measure_sidecar(repo, env, args.sidecar_timeout, embed=args.embed)


def print_sidecar(s: dict[str, Any]) -> None:
    embedded = s.get("embedded_s")
    off = embedded is None and "pending_at_timeout" not in s
    done = f"{embedded:.1f} s" if embedded is not None else "embedding off" if off else (
        f"not within the timeout ({s.get('pending_at_timeout')} chunks left)")  # fmt: skip
    print(f"sidecar (nano-brain lsp, default config) on {s['target']}:")
    ready = max(s["symbol_found_s"], s["hover_s"])
    print(f"  symbol found {s['symbol_found_s']:.2f} s, first hover {s['hover_s']:.2f} s "
          f"({_verdict(ready, LEXICAL_TARGET_S, 's')})")  # fmt: skip
    first = s.get("first_pass_s")
    print(
        f"  first index pass (code and history) ended {first} s"
        + (f" ({_verdict(first, HISTORY_TARGET_S, 's')})" if first is not None else "")
    )
    print(
        f"  every chunk embedded {done}"
        + (f" ({_verdict(embedded, TOTAL_TARGET_S, 's')})" if embedded is not None else "")
    )
    print(f"  sidecar VmHWM {s['sidecar_vmhwm_mb']:.1f} MB "
          f"({_verdict(s['sidecar_vmhwm_mb'], SIDECAR_RSS_TARGET_MB, 'MB')}); its child "
          f"processes peaked at {s['children_peak_rss_mb']:.1f} MB (VmHWM, polled)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--repo", type=Path, help="a git work tree, indexed where it is")
    source.add_argument("--clone", help="a path or URL to clone (full history) and index")
    parser.add_argument("--no-embed", dest="embed", action="store_false",
                        help="pass --no-embed to the index (quick runs)")  # fmt: skip
    parser.add_argument("--max-commits", type=int, default=None,
                        help="history.max_commits, as NANO_BRAIN_HISTORY__MAX_COMMITS")  # fmt: skip
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the clone, the store and the logs in this folder")  # fmt: skip
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    parser.add_argument("--sidecar", action="store_true",
                        help="then index again through `nano-brain lsp` (fresh store)")  # fmt: skip
    parser.add_argument("--sidecar-only", action="store_true",
                        help="only the sidecar's first index (no `index` run)")  # fmt: skip
    parser.add_argument("--sidecar-timeout", type=float, default=3600.0,
                        help="give up waiting for the sidecar after this many seconds")  # fmt: skip
    args = parser.parse_args(argv)
    args.sidecar = args.sidecar or args.sidecar_only
    home = (args.keep or Path(tempfile.mkdtemp(prefix="nano-brain-bench-first-"))).resolve()
    home.mkdir(parents=True, exist_ok=True)
    for var in ("xdg_data_home", "xdg_config_home", "xdg_state_home"):
        shutil.rmtree(home / var, ignore_errors=True)  # a first index: no store from before
    try:
        repo, clone_s = prepare(args, home)
        py_files = len(_git(repo, "ls-files", "*.py").splitlines())
        commits = int(_git(repo, "rev-list", "--count", "HEAD").strip())
        load = os.getloadavg()
        cloned = f" (cloned in {clone_s:.1f} s)" if clone_s is not None else ""
        print(f"nano-brain first index of {args.repo or args.clone}: {py_files} Python files, "
              f"{commits} commits{cloned}")  # fmt: skip
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
        numbers: dict[str, Any] = {
            "source": str(args.repo or args.clone), "python_files": py_files,
            "git_commits": commits, "clone_s": clone_s, "embed": args.embed,
            "max_commits": args.max_commits, "load_before": load,
        }  # fmt: skip
        if not args.sidecar_only:
            run = run_index(repo, _env(home, args.max_commits), args.embed, home)
            if run.returncode != 0 or "timings" not in run.report:
                print(f"nano-brain index failed (exit {run.returncode}):\n{run.stderr[-4000:]}")
                return run.returncode or 1
            summary = summarize(run)
            print_report(summary, args.embed)
            numbers.update(summary, hwm_series=run.hwm_series)
        if args.sidecar:
            numbers["sidecar"] = sidecar = run_sidecar(repo, home, args)
            print_sidecar(sidecar)
        after = os.getloadavg()
        print(f"load average after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")
        if args.json:
            args.json.write_text(json.dumps({**numbers, "load_after": after}, indent=2))
    finally:
        if args.keep is None:
            shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
