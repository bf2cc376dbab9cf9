"""Changes made outside the editor: which paths matter to the code index, and a watchdog watcher.

Both sources of outside changes, the client's ``workspace/didChangeWatchedFiles`` and the
server's own watchdog observer, go through :class:`PathRules` and end in the server's debounced,
incremental index pass (a pass stats every file and re-reads only changed ones: about 25 ms on
2,000 unchanged files), so a burst of events costs one pass and a change seen by both sources
costs nothing extra.

:class:`PathRules` applies the walk's rules (vendored folders, ``.gitignore`` files and
``.git/info/exclude``, the configured excludes, the indexed suffixes) to single paths, so that
events the index would ignore, such as a build writing into ``dist/`` or the store's own WAL
file, never start a pass.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

import pathspec
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from ..codeindex import DEFAULT_SKIP_DIRS, code_extensions
from ..codeindex.indexer import TEXT_SUFFIXES
from ..codeindex.walk import ignore_spec, read_ignore_file
from .text import relative_to

log = logging.getLogger(__name__)

#: watchdog event types that can change what the index holds (reads and opens cannot).
_CHANGES = frozenset({"created", "modified", "deleted", "moved"})
#: Cache key of .git/info/exclude (no folder path can be spelled so).
_INFO_EXCLUDE = "\0info/exclude"


class PathRules:
    """Whether a path under one workspace root can change the code index.

    Mirrors :func:`nano_brain.codeindex.walk.iter_workspace`: a path counts unless a folder on
    its way is vendored, excluded or gitignored, or the file itself is excluded, gitignored or
    of a suffix the index does not read. ``.gitignore`` files always count (they change what
    is indexed) and are re-read when they change. Thread-safe.
    """

    def __init__(self, root: Path, exclude: Iterable[str] = (), *, skip: Path | None = None):
        self.root = root
        self._exclude = ignore_spec(list(exclude))
        self._suffixes = frozenset(code_extensions()) | TEXT_SUFFIXES
        self._skip = relative_to(root, skip) if skip is not None else None
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}
        self._lock = threading.Lock()

    def relevant(self, rel: str, *, is_dir: bool = False) -> bool:
        """``rel``: POSIX path relative to the root (as :func:`relative_to` gives)."""
        if not rel or rel == ".":
            return False
        if self._skip and self._skip != "." and (rel + "/").startswith(self._skip + "/"):
            return False  # the store's own files, when the store lives in the workspace
        parts = PurePosixPath(rel).parts
        if any(p in DEFAULT_SKIP_DIRS or p.endswith(".egg-info") for p in parts[:-1]):
            return False
        name = parts[-1]
        if is_dir and (name in DEFAULT_SKIP_DIRS or name.endswith(".egg-info")):
            return False
        if name == ".gitignore" and not is_dir:
            self.forget_ignore_file(rel)
            return not self._ignored_dirs(parts[:-1])
        if not is_dir and PurePosixPath(name).suffix.lower() not in self._suffixes:
            return False
        if self._ignored_dirs(parts[:-1]):
            return False
        return not self._ignored(parts, is_dir)

    def relevant_path(self, path: Path, *, is_dir: bool = False) -> bool:
        rel = _relative(self.root, path)
        return rel is not None and self.relevant(rel, is_dir=is_dir)

    def changed_file(self, path: Path) -> str | None:
        """The relative path a pass limited to changed files takes for a relevant file event
        at ``path``; None when the event needs a walk of the whole folder (a ``.gitignore``
        changes what every file below it is)."""
        rel = _relative(self.root, path)
        if rel is None or PurePosixPath(rel).name == ".gitignore":
            return None
        return rel

    def forget_ignore_file(self, rel: str) -> None:
        """A ``.gitignore`` changed: read it again next time."""
        parent = PurePosixPath(rel).parent.as_posix()
        with self._lock:
            self._specs.pop("" if parent == "." else parent, None)

    # -- gitignore, as the walk applies it ---------------------------------------------------

    def _ignored_dirs(self, dirs: tuple[str, ...]) -> bool:
        """Whether one of the folders on the way is pruned by the walk."""
        return any(self._ignored(dirs[: i + 1], True) for i in range(len(dirs)))

    def _ignored(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        rel = "/".join(parts)
        shown = rel + "/" if is_dir else rel
        if self._exclude.match_file(shown):
            return True
        # the .gitignore files in effect in the parent folder, deepest first (it wins)
        for depth in range(len(parts) - 1, -1, -1):
            base = "/".join(parts[:depth])
            spec = self._spec(base)
            if spec is None:
                continue
            sub = shown[len(base) + 1 :] if base else shown
            result = spec.check_file(sub)
            if result.include is not None:
                return bool(result.include)
        info = self._spec(_INFO_EXCLUDE)
        if info is not None:
            result = info.check_file(shown)
            if result.include is not None:
                return bool(result.include)
        return False

    def _spec(self, base: str) -> pathspec.GitIgnoreSpec | None:
        with self._lock:
            if base in self._specs:
                return self._specs[base]
        if base == _INFO_EXCLUDE:
            path = self.root / ".git" / "info" / "exclude"
        else:
            path = self.root / base / ".gitignore" if base else self.root / ".gitignore"
        spec = read_ignore_file(path)
        with self._lock:
            self._specs[base] = spec
        return spec


def client_globs() -> list[str]:
    """Globs for the client's file watchers: every suffix the index reads, and .gitignore."""
    suffixes = sorted(s.lstrip(".") for s in {*code_extensions(), *TEXT_SUFFIXES})
    return ["**/*.{" + ",".join(suffixes) + "}", "**/.gitignore"]


def _relative(root: Path, path: Path) -> str | None:
    """``path`` relative to ``root``: events spell paths as the watched root, so a plain
    comparison usually does; else resolve both (symlinks)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return relative_to(root, path)


class Watchers:
    """One watchdog observer for every folder the server watches itself.

    ``on_change(root, rel)`` is called from the observer's thread for each relevant event,
    with the changed file's relative path (None: a folder or a ``.gitignore`` changed, walk
    the whole root); the caller debounces. A folder whose tree cannot be watched (inotify
    limit, permissions) is logged and left to saves and explicit re-indexing.
    """

    def __init__(self, on_change: Callable[[Path, str | None], None]) -> None:
        self._on_change = on_change
        self._observer: BaseObserver | None = None
        self._watches: dict[Path, ObservedWatch] = {}
        self._lock = threading.Lock()
        self._stopped = False

    def watch(self, root: Path, rules: PathRules) -> bool:
        """Start watching ``root`` (recursively); False if it cannot be watched."""
        with self._lock:
            if self._stopped:
                return False  # a folder opening while the server shuts down
            if root in self._watches:
                return True
            if self._observer is None:
                observer = Observer()
                observer.daemon = True
                observer.start()
                self._observer = observer
            observer = self._observer
        handler = _Handler(root, rules, self._on_change)
        try:
            watch = observer.schedule(handler, str(root), recursive=True)
        except OSError as exc:  # inotify watch limit (ENOSPC), permissions
            log.warning("cannot watch %s for changes (%s): saves still re-index", root, exc)
            return False
        with self._lock:
            self._watches[root] = watch
        log.info("watching %s for changes made outside the editor", root)
        return True

    def unwatch(self, root: Path) -> None:
        with self._lock:
            watch = self._watches.pop(root, None)
            observer = self._observer
        if watch is not None and observer is not None:
            try:
                observer.unschedule(watch)
            except (KeyError, OSError) as exc:  # the folder was deleted under us
                log.debug("unwatching %s: %s", root, exc)

    def watching(self, root: Path) -> bool:
        with self._lock:
            return root in self._watches

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            observer, self._observer = self._observer, None
            self._watches.clear()
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)


class _Handler(FileSystemEventHandler):
    """watchdog handler for one root: relevant create/modify/delete/move -> ``on_change``."""

    def __init__(
        self, root: Path, rules: PathRules, on_change: Callable[[Path, str | None], None]
    ) -> None:
        super().__init__()
        self.root = root
        self.rules = rules
        self.on_change = on_change

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _CHANGES:
            return  # opened/closed: our own indexer reading files must not start a pass
        if event.is_directory and event.event_type == "modified":
            return  # a folder's mtime moves with every entry; the entries report themselves
        for raw in (event.src_path, event.dest_path):
            if not raw:
                continue
            path = Path(os.fsdecode(raw))
            if not self.rules.relevant_path(path, is_dir=event.is_directory):
                continue
            if event.is_directory:
                self.on_change(self.root, None)
                return
            self.on_change(self.root, self.rules.changed_file(path))  # a move: both ends
