"""The git CLI as the history index reads it: one ``git log`` stream, one ``cat-file`` reader.

Chosen by measurement (benchmarks/bench_git_access.py, 10,000 commits over 2,000 files): the
log with diff hunks took 3.7 s through the CLI, 11.8 s through pygit2 and 53 s through dulwich
(which has no line diff of its own); blobs 2.2 s, 1.2 s and 2.7 s. The CLI also needs no new
dependency and reads every repository git itself can (worktrees, shallow and partial clones).

Paths are relative to the workspace (``--relative`` with the workspace as working folder), so
a workspace that is a subfolder of its repository sees only its own files, named as the code
index names them.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

ZERO = "0" * 40
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: A field of the log format: NUL never occurs in a commit message or a text diff.
_FORMAT = "%x00%H %P%x00%an%x00%ae%x00%at%x00%ct%x00%B%x00"
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}  # fmt: skip
#: Messages, names and e-mails are clipped to these many characters when read.
MAX_MESSAGE_CHARS = 20_000
MAX_NAME_CHARS = 200
#: Removed lines kept per file of a commit (read to tell whether a definition went away).
MAX_REMOVED = 64 * 1024


class GitError(Exception):
    """git failed or is missing; the message says which, in one line."""


@dataclass(slots=True)
class FileChange:
    """One file of one commit: git's status letter, the paths before and after, the blobs,
    the diff hunks as (old start, old count, new start, new count), without context, and
    the lines the hunks removed (None when there were more than :data:`MAX_REMOVED` bytes)."""

    status: str
    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None
    hunks: list[tuple[int, int, int, int]] = field(default_factory=list)
    removed: bytearray | None = field(default_factory=bytearray)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


@dataclass(slots=True)
class RawCommit:
    hash: str
    parents: list[str]
    author: str
    email: str
    authored_at: float
    committed_at: float
    message: str
    files: list[FileChange] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RepoInfo:
    """What the workspace's repository is: its top folder, HEAD, whether it is shallow."""

    toplevel: Path
    head: str | None
    shallow: bool
    boundary: frozenset[str]
    """The commits a shallow clone's history starts from (their parents are missing)."""


# A repository's own .git/config can name programs git runs: `log.showSignature` with
# `gpg.program` runs one on every signed commit `git log` shows, `core.fsmonitor` on any command
# that reads the index. The folder may be a stranger's (DESIGN.md 7, "Trust"): every command
# runs with those settings overridden (`-c` wins over the repository's config), and no
# command that could reach the network, an editor or a pager is ever run.
_SAFE: tuple[str, ...] = tuple(
    arg
    for setting in (
        "log.showSignature=false",
        "gpg.program=false",
        "gpg.openpgp.program=false",
        "gpg.x509.program=false",
        "gpg.ssh.program=false",
        "core.fsmonitor=false",
        "core.hooksPath=/dev/null",
        "core.pager=cat",
        "diff.external=",
        "protocol.allow=never",
    )
    for arg in ("-c", setting)
)


def git_executable() -> str | None:
    return shutil.which("git")


class Git:
    """git commands run in one workspace folder."""

    def __init__(self, root: Path) -> None:
        self._scope: list[str] = []
        """How log and rev-list keep to the workspace when it is a subfolder of the repository
        (set by :meth:`info`)."""
        exe = git_executable()
        if exe is None:
            raise GitError("git is not installed (no `git` on PATH)")
        self.exe = exe
        self.root = root
        self._env = {
            **os.environ,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",  # a reader never takes the index lock
            "LC_ALL": "C",
        }
        for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            self._env.pop(var, None)

    def _cmd(self, *args: str) -> list[str]:
        # files over 1 MB (the code index's own cap) diff as binary: no hunks, so what one
        # commit's diff holds in memory stays bounded
        return [self.exe, *_SAFE, "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
                "-c", "core.bigFileThreshold=1m", *args]  # fmt: skip

    def run(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            self._cmd(*args),
            cwd=self.root,
            env=self._env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {err[-1] if err else proc.returncode}")
        return proc.stdout.decode("utf-8", "replace")

    def info(self) -> RepoInfo | None:
        """The repository the workspace is in, or None when it is in none."""
        proc = subprocess.run(
            self._cmd("rev-parse", "--show-toplevel", "--is-shallow-repository",
                      "--git-path", "shallow"),
            cwd=self.root, env=self._env, capture_output=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if proc.returncode != 0:
            return None
        lines = proc.stdout.decode("utf-8", "replace").splitlines()
        if len(lines) < 3:
            return None
        top, shallow, shallow_file = Path(lines[0]), lines[1] == "true", lines[2]
        # a pathspec makes git simplify history (a merge the same as one parent is dropped):
        # only a subfolder workspace needs one, and then with the full history
        inside = top.resolve() != self.root.resolve()
        self._scope = ["--full-history", "--", "."] if inside else []
        head = self.run("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False).strip()
        boundary: frozenset[str] = frozenset()
        if shallow:
            path = Path(shallow_file)
            path = path if path.is_absolute() else self.root / path
            try:
                boundary = frozenset(path.read_text().split())
            except OSError:
                boundary = frozenset()
        return RepoInfo(top, head or None, shallow, boundary)

    def is_ancestor(self, older: str, newer: str) -> bool:
        proc = subprocess.run(
            self._cmd("merge-base", "--is-ancestor", older, newer),
            cwd=self.root, env=self._env, capture_output=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return proc.returncode == 0

    def blob_diff(self, old: str, new: str) -> FileChange:
        """Two blobs compared as one file changed from ``old`` to ``new``: hunks and removed
        lines as the log gives them (no rename detection, no context)."""
        out = subprocess.run(
            self._cmd("diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", old, new),
            cwd=self.root, env=self._env, capture_output=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        change = FileChange("M", None, None, old, new)
        if out.returncode not in (0, 1):
            change.removed = None  # unreadable: nothing to carry through
            return change
        lines = out.stdout.split(b"\n")
        i = 0
        while i < len(lines):
            i = _hunk(lines, i, change)
        return change

    def rev_list(
        self, head: str, *, max_count: int, since: str | None, exclude: Sequence[str] = ()
    ) -> list[str]:
        """The commits of the window (newest first) that touch the workspace's folder: the
        same commits, in the same order, as :meth:`log` with the same arguments."""
        args = ["rev-list", f"--max-count={max_count}", "--topo-order"]
        if since:
            args.append(f"--since={since}")
        return self.run(*args, head, *(f"^{h}" for h in exclude), *self._scope).split()

    def log(
        self, head: str, *, exclude: list[str], max_count: int, since: str | None
    ) -> Iterator[RawCommit]:
        """Commits reachable from ``head`` and from none of ``exclude``, newest first
        (children before parents), streamed, each with its changed files, hunks and removed
        lines (none for merges)."""
        args = ["log", f"--max-count={max_count}", "--topo-order",
                f"--format={_FORMAT}", "--raw", "-p", "-U0", "-M", "--relative", "--no-abbrev",
                "--no-color", "--no-ext-diff", "--no-textconv", "--no-show-signature",
                "--encoding=UTF-8"]  # fmt: skip
        if since:
            args.append(f"--since={since}")
        args += [head, *(f"^{h}" for h in exclude), *self._scope]
        proc = subprocess.Popen(
            self._cmd(*args),
            cwd=self.root,
            env=self._env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        assert proc.stdout is not None and proc.stderr is not None
        errors: list[bytes] = []
        drain = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)  # type: ignore[union-attr]
        drain.start()
        try:
            yield from _parse_log(proc.stdout)
        finally:
            proc.stdout.close()
            code = proc.wait()
            drain.join(5)
        if code not in (0, -13):  # -13: we stopped reading (SIGPIPE)
            text = b"".join(errors).decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git log failed: {text[-1] if text else code}")


def _parse_log(stream: object) -> Iterator[RawCommit]:
    """Commits from the log's byte stream: fields separated by NUL, then the diff text.

    Linear in the stream: each block is split once, and a field's pieces are joined once.
    """
    pending: list[bytes] = []
    fields: list[bytes] = []
    started = False
    read = stream.read1  # type: ignore[attr-defined]
    while True:
        block = read(1 << 16)
        if not block:
            break
        pieces = block.split(b"\x00")
        pending.append(pieces[0])
        for piece in pieces[1:]:
            field, pending = b"".join(pending), [piece]
            if not started:
                started = True  # the empty text before the first commit's first NUL
                continue
            fields.append(field)
            if len(fields) == 7:  # hashes, name, e-mail, two times, message, diff
                yield _commit(fields)
                fields = []
    if started and len(fields) == 6:  # the last commit's diff runs to the end
        yield _commit([*fields, b"".join(pending)])


def _text(raw: bytes, cap: int) -> str:
    return raw.decode("utf-8", "replace")[:cap]


def _commit(fields: list[bytes]) -> RawCommit:
    head, name, email, authored, committed, message, diff = fields
    hashes = head.decode("ascii", "replace").split()
    commit = RawCommit(
        hash=hashes[0],
        parents=hashes[1:],
        author=_text(name, MAX_NAME_CHARS),
        email=_text(email, MAX_NAME_CHARS),
        authored_at=float(authored or 0),
        committed_at=float(committed or 0),
        message=_text(message, MAX_MESSAGE_CHARS).strip(),
    )
    commit.files = _files(diff)
    return commit


def _files(diff: bytes) -> list[FileChange]:
    """The raw lines give each file; the patches that follow are in the same order, one
    ``diff --git`` header per raw line, their hunks read by their counts (so a removed line
    that looks like a header is never taken for one)."""
    files: list[FileChange] = []
    lines = diff.split(b"\n")
    i, n = 0, len(lines)
    while i < n and not lines[i].startswith(b"diff --git "):
        line = lines[i]
        if line.startswith(b":"):
            change = _raw_line(line)
            if change is not None:
                files.append(change)
        i += 1
    current = -1
    while i < n:
        line = lines[i]
        if line.startswith(b"diff --git "):
            current += 1
            i += 1
            continue
        i = _hunk(lines, i, files[current] if 0 <= current < len(files) else None)
    return files


def _hunk(lines: list[bytes], i: int, change: FileChange | None) -> int:
    """Read the hunk whose header may be ``lines[i]`` into ``change``: the next line's index."""
    n = len(lines)
    line = lines[i]
    match = _HUNK.match(line) if line.startswith(b"@@ ") else None
    if match is None:
        return i + 1
    old_start, old_count, new_start, new_count = (
        int(match.group(1)),
        1 if match.group(2) is None else int(match.group(2)),
        int(match.group(3)),
        1 if match.group(4) is None else int(match.group(4)),
    )
    if change is not None:
        change.hunks.append((old_start, old_count, new_start, new_count))
    # read the hunk's own lines by count (skipping "\ No newline at end of file" markers)
    i += 1
    left = old_count + new_count
    while left > 0 and i < n:
        line = lines[i]
        if not line.startswith(b"\\"):
            left -= 1
            if line.startswith(b"-") and change is not None:
                _keep_removed(change, line)
        i += 1
    return i


def _keep_removed(change: FileChange, line: bytes) -> None:
    kept = change.removed
    if kept is None:
        return
    if len(kept) + len(line) > MAX_REMOVED:
        change.removed = None  # too much to keep: whoever reads it parses instead
        return
    kept += line[1:]
    kept += b"\n"


def _raw_line(line: bytes) -> FileChange | None:
    meta, _, rest = line.partition(b"\t")
    parts = meta.split()
    if len(parts) < 5:
        return None
    paths = [_unquote(p) for p in rest.split(b"\t")]
    status = parts[4][:1].decode("ascii", "replace")
    old_blob, new_blob = parts[2].decode("ascii"), parts[3].decode("ascii")
    if status in ("R", "C") and len(paths) >= 2:
        old_path, new_path = paths[0], paths[1]
    elif status == "A":
        old_path, new_path = None, paths[0]
    elif status == "D":
        old_path, new_path = paths[0], None
    else:
        old_path = new_path = paths[0]
    if status == "C":
        old_blob = ZERO  # a copy's source is unchanged: its symbols are new in the copy
        old_path = None
    return FileChange(
        status=status,
        old_path=old_path,
        new_path=new_path,
        old_blob=None if old_blob == ZERO else old_blob,
        new_blob=None if new_blob == ZERO else new_blob,
    )


def _unquote(raw: bytes) -> str:
    """A path as git prints it: as is, or C-quoted when it holds a tab, newline or quote."""
    text = raw.decode("utf-8", "surrogateescape")
    if not (len(text) >= 2 and text[0] == '"' and text[-1] == '"'):
        return raw.decode("utf-8", "replace")
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "replace")


class BlobReader:
    """``git cat-file --batch``, one request at a time: blob id in, content out."""

    def __init__(self, git: Git, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._proc = subprocess.Popen(
            git._cmd("cat-file", "--batch"),
            cwd=git.root,
            env=git._env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, sha: str) -> bytes | None:
        """The blob's bytes; None when it is missing, not a blob, or over ``max_bytes``."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(sha.encode("ascii") + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            return None
        size = int(header[2])
        if size > self.max_bytes:
            remaining = size + 1
            while remaining:
                remaining -= len(proc.stdout.read(min(remaining, 1 << 16)))
            return None
        data = proc.stdout.read(size + 1)
        return data[:-1]

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=10)
        if self._proc.stdout:
            self._proc.stdout.close()
