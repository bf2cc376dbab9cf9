"""Which git access the history index uses, by measurement: the git CLI, pygit2, dulwich.

Each candidate does what indexing history needs, on the same generated repository
(``_history_repo``, 10,000 commits over 2,000 files unless told otherwise):

1. *log*: the newest N commits from HEAD with author, date, message and parents, and for each
   non-merge commit its changed files (renames detected) with the line ranges of its diff
   hunks (no context lines);
2. *blobs*: the text of every changed source file after the commit (what the symbol mapping
   parses).

It prints seconds per step and the peak memory of the process. Candidates that are not
installed are skipped (pygit2 and dulwich are not nano-brain dependencies).

    python benchmarks/bench_git_access.py [--repo DIR] [--commits 10000] [--files 2000]
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _history_repo import generate  # noqa: E402

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def cli_log(repo: Path, n: int) -> tuple[int, int, list[tuple[str, str]]]:
    """One ``git log -p -U0 --raw`` stream, parsed as it arrives."""
    cmd = ["git", "-C", str(repo), "-c", "core.quotePath=false", "log", f"-n{n}", "--reverse",
           "--format=%x00%H %P%x01%an%x01%ae%x01%at%x01%B%x00", "--raw", "-p", "-U0", "-M",
           "--no-abbrev", "--no-color", "--no-ext-diff"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    commits = hunks = 0
    blobs: list[tuple[str, str]] = []
    in_header = False
    for line in proc.stdout:
        if line.startswith(b"\x00"):
            commits += 1
            in_header = not line.rstrip(b"\n").endswith(b"\x00") or line.count(b"\x00") < 2
            continue
        if in_header:
            if b"\x00" in line:
                in_header = False
            continue
        if line.startswith(b":"):
            meta, _, path = line.rstrip(b"\n").partition(b"\t")
            parts = meta.split()
            if parts[3] != b"0" * 40 and path.split(b"\t")[-1].endswith(b".py"):
                blobs.append((parts[3].decode(), path.split(b"\t")[-1].decode()))
        elif line.startswith(b"@@"):
            if _HUNK.match(line):
                hunks += 1
    proc.wait()
    return commits, hunks, blobs


def cli_blobs(repo: Path, blobs: list[tuple[str, str]]) -> int:
    proc = subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    total = 0

    import threading

    def feed() -> None:
        for sha, _ in blobs:
            proc.stdin.write(sha.encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]

    threading.Thread(target=feed, daemon=True).start()
    for _ in blobs:
        header = proc.stdout.readline().split()
        size = int(header[2])
        data = proc.stdout.read(size + 1)
        total += len(data) - 1
    proc.wait()
    return total


def pygit2_log(repo_path: Path, n: int) -> tuple[int, int, list[tuple[str, str]]]:
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    walker = repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL)
    commits = hunks = 0
    blobs: list[tuple[str, str]] = []
    for commit in walker:
        if commits >= n:
            break
        commits += 1
        _ = (commit.author.name, commit.author.email, commit.commit_time, commit.message)
        if len(commit.parents) > 1:
            continue
        if commit.parents:
            diff = repo.diff(commit.parents[0], commit, context_lines=0)
        else:
            diff = commit.tree.diff_to_tree(context_lines=0, swap=True)
        diff.find_similar()
        for patch in diff:
            delta = patch.delta
            if delta.new_file.path.endswith(".py") and not delta.new_file.id.raw == b"\0" * 20:
                blobs.append((str(delta.new_file.id), delta.new_file.path))
            for h in patch.hunks:
                _ = (h.old_start, h.old_lines, h.new_start, h.new_lines)
                hunks += 1
    return commits, hunks, blobs


def pygit2_blobs(repo_path: Path, blobs: list[tuple[str, str]]) -> int:
    import pygit2

    repo = pygit2.Repository(str(repo_path))
    return sum(len(repo[sha].data) for sha, _ in blobs)


def dulwich_log(repo_path: Path, n: int) -> tuple[int, int, list[tuple[str, str]]]:
    from dulwich.diff_tree import RenameDetector, tree_changes
    from dulwich.repo import Repo

    repo = Repo(str(repo_path))
    store = repo.object_store
    commits = hunks = 0
    blobs: list[tuple[str, str]] = []
    detector = RenameDetector(store)
    for entry in repo.get_walker(max_entries=n):
        commit = entry.commit
        commits += 1
        _ = (commit.author, commit.commit_time, commit.message)
        if len(commit.parents) > 1:
            continue
        old_tree = store[commit.parents[0]].tree if commit.parents else None
        for change in tree_changes(store, old_tree, commit.tree, rename_detector=detector):
            old, new = change.old, change.new
            a = store[old.sha].data.splitlines() if old and old.sha else []
            b = store[new.sha].data.splitlines() if new and new.sha else []
            if new and new.path and new.path.endswith(b".py"):
                blobs.append((new.sha.decode(), new.path.decode()))
            for tag, *_ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
                if tag != "equal":
                    hunks += 1
    return commits, hunks, blobs


def dulwich_blobs(repo_path: Path, blobs: list[tuple[str, str]]) -> int:
    from dulwich.repo import Repo

    store = Repo(str(repo_path)).object_store
    return sum(len(store[sha.encode()].data) for sha, _ in blobs)


CANDIDATES = {
    "git-cli": (cli_log, cli_blobs, None),
    "pygit2": (pygit2_log, pygit2_blobs, "pygit2"),
    "dulwich": (dulwich_log, dulwich_blobs, "dulwich"),
}


def measure(name: str, repo: Path, n: int) -> dict[str, object]:
    log, blobs, module = CANDIDATES[name]
    if module is not None:
        try:
            __import__(module)
        except ImportError:
            return {"skipped": f"{module} is not installed"}
    start = time.perf_counter()
    commits, hunks, found = log(repo, n)
    mid = time.perf_counter()
    size = blobs(repo, found)
    end = time.perf_counter()
    return {
        "commits": commits,
        "hunks": hunks,
        "blobs": len(found),
        "blob_bytes": size,
        "log_s": round(mid - start, 2),
        "blobs_s": round(end - mid, 2),
        "total_s": round(end - start, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=None, help="an existing repository")
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--only", choices=sorted(CANDIDATES), default=None)
    args = parser.parse_args()
    repo = args.repo
    if repo is None:
        repo = generate(Path(tempfile.mkdtemp(prefix="nb-git-")) / "repo", args.commits, args.files)
    results: dict[str, object] = {"repo": str(repo), "load_average": os.getloadavg()}
    for name in [args.only] if args.only else CANDIDATES:
        # each in a fresh process, so one's caches and peak memory do not colour another's
        if args.only:
            results[name] = measure(name, repo, args.commits)
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            results[name]["peak_rss_mb"] = round(rss / 1024, 1)  # type: ignore[index]
            rss_git = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            results[name]["peak_rss_git_mb"] = round(rss_git / 1024, 1)  # type: ignore[index]
            continue
        out = subprocess.run(
            [sys.executable, __file__, "--repo", str(repo), "--commits", str(args.commits),
             "--only", name],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        results[name] = json.loads(out.stdout)[name]
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
