"""The open workspace folders: one Brain and one code index per root, found by URI."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..brain import Brain
from ..codeindex import CodeIndex, IndexReport
from .options import InitializationOptions
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

    def rel(self, path: Path) -> str | None:
        return relative_to(self.root, path)

    def close(self) -> None:
        self.brain.close()


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
        brain = Brain(root, actor="lsp")
        folder = Folder(
            root,
            brain,
            CodeIndex(brain, exclude=options.index.exclude, workers=options.index.workers),
        )
        with self._lock:
            return self._by_root.setdefault(root, folder)

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
