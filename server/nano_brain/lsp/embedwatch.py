"""A folder's background embedding, and the editor's progress for it.

Index passes leave their new chunks to the brain's background embedder (`Embedder.start`):
a large repository's first vectors take most of an hour on two cores, and a saved file must
not wait behind them. The embedder starts after the folder's first pass (the code, then its
history, have the cores to themselves) and from then on also embeds the notes written in
the editor; before it, and with ``index.embed`` false, a note is embedded as it is written.

While chunks wait, each folder's watch reports work-done progress every `REPORT_INTERVAL_S`
from `Brain.embedding_progress` (counts per space, the embedder's recent rate, the estimate)
and ends it at 100% when nothing waits. What waits is in the store, so a restarted sidecar
picks up where the last one stopped, and its watch with it.

Each watch runs on a thread of its own, started by `EmbeddingWatches.kick` (after an index
pass) and ending when nothing waits.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable
from pathlib import Path

from ..embedprogress import SpaceProgress
from ..models import Space
from .base import ServerBase
from .progress import Progress
from .workspaces import Folder

log = logging.getLogger(__name__)

#: Seconds between two progress reports of one folder's embedding.
REPORT_INTERVAL_S = 2.0


class EmbeddingWatches:
    """One watch per open folder, each on its own thread while its chunks wait."""

    def __init__(self, server: ServerBase, interval_s: float = REPORT_INTERVAL_S) -> None:
        self._server = server
        self._interval = interval_s
        self._watches: dict[Path, _Watch] = {}
        self._lock = threading.Lock()

    def kick(self, folder: Folder) -> None:
        """Chunks may be waiting in ``folder``: start (or wake) its embedder and report until
        none do."""
        folder.brain.embedder.start()
        with self._lock:
            watch = self._watches.get(folder.root)
            if watch is None or watch.folder is not folder:
                watch = self._watches[folder.root] = _Watch(self._server, folder, self._interval)
        watch.kick()

    def stop(self, root: Path) -> None:
        """Stop a closing folder's watch (its progress ends)."""
        with self._lock:
            watch = self._watches.pop(root, None)
        if watch is not None:
            watch.stop()

    def stop_all(self) -> None:
        with self._lock:
            watches, self._watches = list(self._watches.values()), {}
        for watch in watches:
            watch.stop()


class _Watch:
    """One folder's reporting thread; `kick` starts it again after it ended."""

    def __init__(self, server: ServerBase, folder: Folder, interval_s: float) -> None:
        self._server = server
        self.folder = folder
        self._interval = interval_s
        self._lock = threading.Lock()
        self._again = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def kick(self) -> None:
        with self._lock:
            self._again.set()
            if self._thread is not None or self._stop.is_set():
                return
            self._thread = threading.Thread(
                target=self._run, name=f"embed-progress:{self.folder.root.name}", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._again.clear()
                self._report_until_done()
                with self._lock:  # a kick after the last look starts another round
                    if not self._again.is_set() or self._stop.is_set():
                        self._thread = None
                        return
        except Exception:  # a closing store, a broken model: the worker logs its own
            log.debug("embedding progress of %s stopped", self.folder.root, exc_info=True)
        with self._lock:
            self._thread = None

    def _report_until_done(self) -> None:
        """One progress, from the first look that finds chunks waiting to the look that
        finds none (or the folder closing)."""
        progress: Progress | None = None
        seen: set[Space] = set()
        shown = 0
        while True:
            waiting = self._waiting()
            if not waiting:
                break
            seen.update(p.space for p in waiting)
            message, pct = _summary(waiting)
            if progress is None:
                token = f"nano-brain-embed-{uuid.uuid4().hex[:8]}"
                title = f"nano-brain: embedding {self.folder.root.name}"
                progress = Progress(self._server, token, title)
                progress.begin(message, pct)
            else:
                pct = min(max(pct, shown), 99)  # steadily rising while anything waits
                progress.report(message, pct)
            shown = pct
            if self._stop.wait(self._interval):
                break
        if progress is None:
            return
        done = self.folder.brain.embedding_progress()
        message = "; ".join(done[space].describe() for space in sorted(seen))
        if not self._stop.is_set():
            progress.report(message, 100)
        progress.end(message)

    def _waiting(self) -> list[SpaceProgress]:
        """The spaces with chunks waiting that the embedder can embed (a space whose
        provider is off or whose model does not match the store's waits for nothing)."""
        brain = self.folder.brain
        state = brain.embedding_progress()
        return [p for p in state.values() if p.pending and brain.provider(p.space)[0] is not None]


def _summary(waiting: Iterable[SpaceProgress]) -> tuple[str, int]:
    """The report's message (each waiting space's line) and its percentage (of all of
    them together)."""
    spaces = list(waiting)
    embedded = sum(p.embedded for p in spaces)
    total = sum(p.total for p in spaces)
    message = "; ".join(p.describe() for p in spaces)
    return message, int(100 * embedded / total) if total else 100
