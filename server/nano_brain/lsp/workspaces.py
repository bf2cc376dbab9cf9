"""The open workspace folders: one Brain and one code index per root, found by URI."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..brain import Brain
from ..codeindex import CodeIndex, IndexReport
from ..config import load_config
from .options import InitializationOptions, config_overrides
from .text import relative_to

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Folder:
    """One workspace folder the editor opened, and what the sidecar holds for it."""

    root: Path
    brain: Brain
    index: CodeIndex
    indexing: bool = False
    dirty: bool = False
    """A change arrived while an index pass ran: run another when it ends."""
    last_report: IndexReport | None = None
    indexed_once: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    harvest_stop: threading.Event | None = None
    harvest_thread: threading.Thread | None = None

    def rel(self, path: Path) -> str | None:
        return relative_to(self.root, path)

    def start_harvest(self) -> None:
        """Harvest this folder's agent sessions in the background, as `nano-brain watch`."""
        from ..harvest import Harvester

        self.harvest_stop = threading.Event()
        harvester = Harvester(self.brain)
        self.harvest_thread = threading.Thread(
            target=_watch, args=(harvester, self.harvest_stop, self.root),
            name=f"harvest:{self.root.name}", daemon=True,
        )  # fmt: skip
        self.harvest_thread.start()

    def close(self) -> None:
        if self.harvest_stop is not None and self.harvest_thread is not None:
            self.harvest_stop.set()
            self.harvest_thread.join(timeout=5)
        self.brain.close()


def _watch(harvester: object, stop: threading.Event, root: Path) -> None:
    try:
        harvester.watch(stop=stop)  # type: ignore[attr-defined]
    except Exception:  # a broken transcript folder must not take the editor down
        log.exception("session harvesting for %s stopped", root)


class Folders:
    """Roots by resolved path; a file belongs to the deepest root that contains it."""

    def __init__(self) -> None:
        self._by_root: dict[Path, Folder] = {}
        self._lock = threading.Lock()

    def open(self, root: Path, options: InitializationOptions) -> Folder | None:
        """Open (or return the already open) folder at ``root``; None if it is unusable."""
        root = root.expanduser().resolve()
        with self._lock:
            if root in self._by_root:
                return self._by_root[root]
        if not root.is_dir():
            log.warning("workspace folder %s is not a directory; ignored", root)
            return None
        loaded = load_config(root, overrides=config_overrides(options))
        brain = Brain(root, config=loaded, actor="lsp")
        folder = Folder(
            root,
            brain,
            CodeIndex(brain, exclude=options.index.exclude, workers=options.index.workers),
        )
        with self._lock:
            kept = self._by_root.setdefault(root, folder)
        if kept is folder and options.harvest.enabled:
            folder.start_harvest()
        elif kept is not folder:
            folder.close()
        return kept

    def close(self, root: Path) -> Folder | None:
        with self._lock:
            folder = self._by_root.pop(root.expanduser().resolve(), None)
        return folder

    def all(self) -> list[Folder]:
        with self._lock:
            return list(self._by_root.values())

    def for_path(self, path: Path) -> Folder | None:
        path = path.resolve()
        best: Folder | None = None
        for folder in self.all():
            if path == folder.root or folder.root in path.parents:
                if best is None or len(folder.root.parts) > len(best.root.parts):
                    best = folder
        return best
