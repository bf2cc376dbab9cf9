"""Find the files of a workspace worth indexing (what changed since the last index:
:func:`~._changes.scan_changes`).

The walk prunes early (vendored folders and ignored directories are never entered), honours
every ``.gitignore`` on the way down (plus ``.git/info/exclude`` and a configured exclude
list, all in gitignore syntax), and reports each skip with a reason so the index summary can
say why a file is missing. Given the size and mtime the previous index recorded, a file that
matches them costs one ``stat`` and is not read.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypedDict

import pathspec

from ..errors import InvalidInputError
from .languages import language_for_path

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 1_000_000

#: Version control's own folders: never entered, and never reported as a skip either (no one
#: left code out there; "1 vendored" for `.git/` in every repository's summary said nothing).
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr"})
#: Folder names never entered: dependencies, build output, caches, VCS metadata.
DEFAULT_SKIP_DIRS = VCS_DIRS | frozenset(
    {
        "node_modules", "bower_components", "vendor", "third_party",
        "dist", "build", "target", "out", "_build",
        "__pycache__", ".venv", "venv", ".tox", ".nox", ".eggs", "site-packages",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache",
        ".next", ".nuxt", ".svelte-kit", ".parcel-cache", ".turbo", ".gradle", ".idea",
        "coverage", "htmlcov",
    }
)  # fmt: skip

#: Suffixes that are binary (or generated bundles) by construction; skipped without a read.
_BINARY_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".psd",
        ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar",
        ".jar", ".war", ".class", ".pyc", ".pyo", ".so", ".dylib", ".dll", ".exe", ".o",
        ".a", ".lib", ".obj", ".wasm", ".bin", ".dat", ".db", ".sqlite", ".sqlite3",
        ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg",
        ".mov", ".avi", ".npy", ".npz", ".pkl", ".parquet", ".onnx", ".pt",
    }
)  # fmt: skip
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", ".bundle.js")
_SNIFF_BYTES = 8192

#: Reasons a walk reports for a skipped path (directories end with ``/``).
SKIP_REASONS = (
    "gitignored",
    "excluded",
    "vendored",
    "generated",
    "binary",
    "too_large",
    "symlink_outside",
    "symlink_dir",
    "special",
    "unreadable",
)
#: Most bytes of a ``.gitignore`` read (a larger one is read only this far).
_MAX_IGNORE_BYTES = 1 << 20
#: open() flags for files of the workspace: a FIFO opened without O_NONBLOCK waits for a
#: writer, and one can take a file's place between the walk's stat and the read.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """A path the walk took for a file is a FIFO, device or socket when opened."""


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file at ``path`` (more than ``limit``
    back: the file is larger than that). Opened without blocking and checked once open, so
    whatever took the file's place is refused (NotRegularFile) rather than waited on."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        parts: list[bytes] = []
        left = limit + 1
        while left > 0:
            block = os.read(fd, min(left, 1 << 20))
            if not block:
                break
            parts.append(block)
            left -= len(block)
        return b"".join(parts)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class WalkedFile:
    """An indexable file: path relative to the root (POSIX separators) and its stat."""

    path: str
    abs_path: Path
    size: int
    mtime_ns: int
    language: str | None


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file or (with a trailing ``/``) a whole folder left out, and why."""

    path: str
    reason: str


class _Ignores:
    """The ``.gitignore`` files in effect for one directory, deepest last."""

    def __init__(self, specs: list[tuple[str, pathspec.GitIgnoreSpec]]) -> None:
        self.specs = specs

    def with_dir(self, rel_dir: str, abs_dir: str) -> _Ignores:
        spec = read_ignore_file(os.path.join(abs_dir, ".gitignore"))
        return _Ignores(self.specs + [(rel_dir, spec)]) if spec is not None else self

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        for base, spec in reversed(self.specs):
            sub = rel_path[len(base) + 1 :] if base else rel_path
            result = spec.check_file(sub + "/" if is_dir else sub)
            if result.include is not None:
                return bool(result.include)
        return False


def ignore_spec(lines: list[str], where: object = "exclude") -> pathspec.GitIgnoreSpec:
    """Gitignore-style `lines` as a spec matched in linear time (RE2); a line git would not
    take, or RE2 cannot run, is left out and logged.

    The lines may be a stranger's (a repository's `.gitignore`): with Python's backtracking
    engine, `****...b` against a long file name never finishes, and one bad line would stop
    the whole walk.
    """
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines, backend="re2")
    except Exception:  # pathspec and re2 raise several types; find the lines at fault
        kept = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line], backend="re2")
            except Exception as exc:
                log.warning("%s: pattern %r ignored (%s)", where, line[:100], type(exc).__name__)
                continue
            kept.append(line)
        return pathspec.GitIgnoreSpec.from_lines(kept, backend="re2")


def read_ignore_file(path: str | os.PathLike[str]) -> pathspec.GitIgnoreSpec | None:
    """The patterns of a ``.gitignore``-style file (its first MB), or None when there is none
    or it cannot be read (logged)."""
    try:
        data = read_regular(path, _MAX_IGNORE_BYTES)[:_MAX_IGNORE_BYTES]
        lines = data.decode("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    return ignore_spec(lines, path)


def iter_workspace(
    root: str | os.PathLike[str],
    *,
    exclude: Iterable[str] = (),
    skip_dirs: Collection[str] = DEFAULT_SKIP_DIRS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    use_gitignore: bool = True,
    suffixes: Collection[str] | None = None,
    known: Mapping[str, tuple[int, int]] | None = None,
) -> Iterator[WalkedFile | SkippedFile]:
    """Yield indexable files and skipped paths under ``root``, in a stable order.

    ``exclude`` holds gitignore-style patterns relative to the root; ``suffixes`` (e.g.
    ``{".py", ".md"}``) keeps only files with those suffixes (others are not reported);
    ``known`` maps paths to a previous (size, mtime_ns): such files, already known to be text,
    are not opened for the binary sniff.
    """
    root_path, rules, ignores = _start(
        root, exclude, skip_dirs, max_bytes, use_gitignore, suffixes, known
    )
    yield from _walk_dir(str(root_path), "", ignores, rules)


@dataclass(frozen=True, slots=True)
class _Rules:
    """What decides, for every entry one walk meets, whether it is entered, read or skipped."""

    real_root: str
    excluded: pathspec.GitIgnoreSpec
    skip_dirs: frozenset[str]
    max_bytes: int
    use_gitignore: bool
    wanted: set[str] | None
    """the suffixes kept (lower case); None: every suffix"""
    known: Mapping[str, tuple[int, int]]


def _start(
    root: str | os.PathLike[str],
    exclude: Iterable[str],
    skip_dirs: Collection[str],
    max_bytes: int,
    use_gitignore: bool,
    suffixes: Collection[str] | None,
    known: Mapping[str, tuple[int, int]] | None,
) -> tuple[Path, _Rules, _Ignores]:
    """What every walk starts from: the root (checked), the walk's rules, and the ignores of
    ``.git/info/exclude``."""
    root_path = Path(root)
    if not root_path.is_dir():
        raise InvalidInputError(f"workspace {root_path} is not a directory")
    excluded = ignore_spec(list(exclude))
    wanted = {s.lower() for s in suffixes} if suffixes is not None else None
    ignores = _Ignores([])
    if use_gitignore:
        info = read_ignore_file(os.path.join(root_path, ".git", "info", "exclude"))
        if info is not None:
            ignores = _Ignores([("", info)])
    rules = _Rules(
        real_root=os.path.realpath(root_path),
        excluded=excluded,
        skip_dirs=frozenset(skip_dirs),
        max_bytes=max_bytes,
        use_gitignore=use_gitignore,
        wanted=wanted,
        known=known or {},
    )
    return root_path, rules, ignores


def check_relative(rel: str) -> list[str]:
    """The parts of a workspace-relative POSIX path; InvalidInputError for one that is
    absolute, empty, or climbs out (``..``)."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise InvalidInputError(f"not a path inside the workspace: {rel!r}")
    return parts


def iter_paths(
    root: str | os.PathLike[str],
    paths: Iterable[str],
    *,
    exclude: Iterable[str] = (),
    skip_dirs: Collection[str] = DEFAULT_SKIP_DIRS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    use_gitignore: bool = True,
    suffixes: Collection[str] | None = None,
    known: Mapping[str, tuple[int, int]] | None = None,
) -> Iterator[WalkedFile | SkippedFile]:
    """What :func:`iter_workspace` would yield for just the files ``paths`` (relative, POSIX).

    The same rules apply to each path and to the folders on its way; a path that is missing,
    a folder, or under a folder the walk would not enter yields nothing (or that folder's
    skip). Paths that leave the root are refused.
    """
    root_path, rules, top = _start(
        root, exclude, skip_dirs, max_bytes, use_gitignore, suffixes, known
    )
    # the ignores in effect inside each folder reached, None: the walk does not enter it
    inside: dict[str, _Ignores | None] = {}

    def folder(rel_dir: str) -> _Ignores | None:
        """The ignores in effect inside ``rel_dir``, its ancestors first (a loop, not
        recursion: paths may be nested thousands deep)."""
        parts = rel_dir.split("/") if rel_dir else []
        for depth in range(len(parts) + 1):
            here = "/".join(parts[:depth])
            if here not in inside:
                inside[here] = _enter(here, inside["/".join(parts[: depth - 1])] if depth else top)
        return inside[rel_dir]

    def _enter(rel_dir: str, parent: _Ignores | None) -> _Ignores | None:
        abs_dir = os.path.join(root_path, rel_dir) if rel_dir else str(root_path)
        if parent is None:
            return None
        if rel_dir:
            entry = _PathEntry(abs_dir)
            try:
                if not entry.is_dir(follow_symlinks=True):
                    return None
                is_link = entry.is_symlink()
            except OSError:
                return None
            if _dir_skip(entry, rel_dir, is_link, parent, rules) is not None:
                return None
        return parent.with_dir(rel_dir, abs_dir) if use_gitignore else parent

    for rel in sorted(set(paths)):
        parts = check_relative(rel)
        ignores = folder("/".join(parts[:-1]))
        if ignores is None or (parts[-1] == ".gitignore" and use_gitignore):
            continue
        entry = _PathEntry(os.path.join(root_path, rel))
        try:
            is_link = entry.is_symlink()
            if entry.is_dir(follow_symlinks=True):
                continue
        except OSError:
            continue  # gone: the caller's stored state says whether it was indexed
        item = _file_item(entry, rel, is_link, ignores, rules)
        if item is not None:
            yield item


def _walk_dir(
    abs_dir: str, rel_dir: str, ignores: _Ignores, rules: _Rules
) -> Iterator[WalkedFile | SkippedFile]:
    """Depth first, entries by name, a folder's files before its subfolders. A stack, not
    recursion: a tree nested thousands of folders deep must not exhaust Python's stack."""
    todo: list[tuple[str, str, _Ignores]] = [(abs_dir, rel_dir, ignores)]
    while todo:
        abs_dir, rel_dir, ignores = todo.pop()
        if rules.use_gitignore:
            ignores = ignores.with_dir(rel_dir, abs_dir)
        try:
            with os.scandir(abs_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            log.warning("cannot list %s: %s", abs_dir, exc)
            yield SkippedFile(rel_dir + "/", "unreadable")
            continue
        subdirs: list[tuple[str, str, _Ignores]] = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                yield SkippedFile(rel, "unreadable")
                continue
            if is_dir:
                skipped_dir = _dir_skip(entry, rel, is_link, ignores, rules)
                if skipped_dir is _NOT_WANTED:
                    continue
                if skipped_dir is not None:
                    yield skipped_dir
                else:
                    subdirs.append((entry.path, rel, ignores))
                continue
            if entry.name == ".gitignore" and rules.use_gitignore:
                continue
            item = _file_item(entry, rel, is_link, ignores, rules)
            if item is not None:
                yield item
        todo.extend(reversed(subdirs))


_NOT_WANTED = SkippedFile("", "")


class _Entry(Protocol):
    """What the walk reads of a directory entry (``os.DirEntry``, or :class:`_PathEntry`)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_symlink(self) -> bool: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result: ...


class _PathEntry:
    """A directory entry for one named path (what ``os.scandir`` would give for it)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = os.path.basename(path)

    def is_symlink(self) -> bool:
        return stat.S_ISLNK(os.lstat(self.path).st_mode)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        st = os.stat(self.path) if follow_symlinks else os.lstat(self.path)
        return stat.S_ISDIR(st.st_mode)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return os.stat(self.path) if follow_symlinks else os.lstat(self.path)


def _dir_skip(
    entry: _Entry, rel: str, is_link: bool, ignores: _Ignores, rules: _Rules
) -> SkippedFile | None:
    """Why the walk does not enter a folder, or None to enter it (``_NOT_WANTED``: version
    control's metadata, left out silently)."""
    shown = rel + "/"
    if entry.name in rules.skip_dirs and entry.name in VCS_DIRS:
        return _NOT_WANTED
    if entry.name in rules.skip_dirs or entry.name.endswith(".egg-info"):
        return SkippedFile(shown, "vendored")
    if rules.excluded.match_file(shown):
        return SkippedFile(shown, "excluded")
    if rules.use_gitignore and ignores.ignored(rel, True):
        return SkippedFile(shown, "gitignored")
    if is_link:
        inside = _inside(os.path.realpath(entry.path), rules.real_root)
        return SkippedFile(shown, "symlink_dir" if inside else "symlink_outside")
    return None


def _file_item(
    entry: _Entry, rel: str, is_link: bool, ignores: _Ignores, rules: _Rules
) -> WalkedFile | SkippedFile | None:
    """The walk's verdict on one file (None: not reported, e.g. a suffix not wanted)."""
    skipped = _check_file(entry, rel, is_link, ignores, rules)
    if skipped is not None:
        return None if skipped is _NOT_WANTED else skipped
    try:
        st = entry.stat(follow_symlinks=True)
    except OSError:
        return SkippedFile(rel, "unreadable")
    return WalkedFile(
        rel, Path(entry.path), st.st_size, st.st_mtime_ns, language_for_path(entry.name)
    )


def _check_file(
    entry: _Entry, rel: str, is_link: bool, ignores: _Ignores, rules: _Rules
) -> SkippedFile | None:
    """Why a file is skipped, or None to index it (``_NOT_WANTED``: filtered silently)."""
    name = entry.name.lower()
    suffix = os.path.splitext(name)[1]
    if rules.wanted is not None and suffix not in rules.wanted:
        return _NOT_WANTED
    if rules.excluded.match_file(rel):
        return SkippedFile(rel, "excluded")
    if rules.use_gitignore and ignores.ignored(rel, False):
        return SkippedFile(rel, "gitignored")
    if is_link and not _inside(os.path.realpath(entry.path), rules.real_root):
        return SkippedFile(rel, "symlink_outside")
    if suffix in _BINARY_SUFFIXES:
        return SkippedFile(rel, "binary")
    if name.endswith(_GENERATED_SUFFIXES):
        return SkippedFile(rel, "generated")
    try:
        st = entry.stat(follow_symlinks=True)
    except OSError:
        return SkippedFile(rel, "unreadable")
    if not stat.S_ISREG(st.st_mode):
        return SkippedFile(rel, "special")  # a FIFO, device or socket: never opened
    if st.st_size > rules.max_bytes:
        return SkippedFile(rel, "too_large")
    prev = rules.known.get(rel)
    if prev is not None and (prev[0], prev[1]) == (st.st_size, st.st_mtime_ns):
        return None  # indexed before as text and unchanged: no read
    try:
        head = read_regular(entry.path, _SNIFF_BYTES)
    except NotRegularFile:
        return SkippedFile(rel, "special")
    except OSError:
        return SkippedFile(rel, "unreadable")
    if b"\0" in head:
        return SkippedFile(rel, "binary")
    return None


def _inside(real_path: str, real_root: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


class WalkOptions(TypedDict, total=False):
    """The keyword options of :func:`iter_workspace` that the functions below pass on."""

    exclude: Iterable[str]
    skip_dirs: Collection[str]
    max_bytes: int
    use_gitignore: bool
    suffixes: Collection[str] | None
