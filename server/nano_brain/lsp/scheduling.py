"""When each folder is indexed: debounced passes, one at a time, on a thread of their own.

Changes arriving while a pass is waiting or running coalesce into one more pass; a steady
stream of them delays a pass at most `MAX_INDEX_DELAY_S`. Each pass reports work-done
progress, then `after_pass` refreshes the folder's open documents and, with ``index.embed``,
`after_pass_embed` hands the chunks it left without a vector to the brain's background
embedder (`embedwatch`): the next pass never waits for them.

A folder's first index (its store holds no source file yet) runs in a child process
(:mod:`nano_brain.indexchild`): a bulk load of a large repository would otherwise leave the
sidecar a few hundred MB bigger for the rest of the session. Later passes, a save's few
files, stay on the index thread.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from lsprotocol import types as lsp

from ..codeindex import IndexReport
from ..errors import NanoBrainError
from ..indexchild import IndexChild
from .base import ServerBase
from .progress import Progress
from .workspaces import Folder

log = logging.getLogger("nano_brain")

#: A steady stream of changes (a long checkout, a generator) delays a pass at most this much.
MAX_INDEX_DELAY_S = 3.0
#: A save is one deliberate event, not a burst to wait out: its pass starts after this long
#: (enough for the rest of a "save all" to arrive), not after index.debounce_ms. The watcher's
#: report of the same write, a moment later, does not push it back.
SAVE_DELAY_S = 0.05


class IndexScheduler:
    """The folders' pending and running index passes, and the one thread that runs them.

    That thread also runs what must come after a queued pass (a folder's MCP sidecar
    starting, a closed folder's store closing): see `submit`."""

    def __init__(
        self,
        server: ServerBase,
        after_pass: Callable[[Folder], None],
        after_pass_embed: Callable[[Folder], None] = lambda folder: None,
    ) -> None:
        self._server = server
        self._after_pass = after_pass
        self._after_pass_embed = after_pass_embed
        self._indexer = ThreadPoolExecutor(1, thread_name_prefix="nano-brain-index")
        self._timers: dict[Path, _Pending] = {}
        self._child: IndexChild | None = None
        """The first index running in a child process, for `shutdown` to stop."""
        self._child_lock = threading.Lock()
        self._stopping = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the index thread, after the passes queued before it."""
        self._indexer.submit(fn, *args)

    def schedule(
        self, folder: Folder, *, delay: float | None = None, paths: Iterable[str] | None = ()
    ) -> None:
        """Index ``folder`` soon; changes arriving meanwhile coalesce into one more pass.

        ``paths``: the files (relative) that changed, or None when that is unknown (the pass
        then walks the whole folder).
        """
        options = self._server.options.index
        if not options.enabled:
            return
        wait = options.debounce_ms / 1000 if delay is None else delay
        now = time.monotonic()
        with folder.lock:
            folder.note_changes(paths)
            if folder.indexing:
                folder.dirty = True
                return
            old = self._timers.pop(folder.root, None)
            first = now
            if old is not None:
                capped = now - old.first >= MAX_INDEX_DELAY_S
                sooner = old.wait < wait and old.due <= now + wait  # a save's short wait
                if wait > 0 and (capped or sooner):
                    self._timers[folder.root] = old  # due soon: a new event must not push it
                    return
                old.timer.cancel()
                first = old.first
            if wait <= 0:
                folder.indexing = True
                self._indexer.submit(self._index, folder)
                return
            timer = threading.Timer(wait, self._start_index, (folder,))
            timer.daemon = True
            self._timers[folder.root] = _Pending(timer, first, now + wait, wait)
            timer.start()

    def _start_index(self, folder: Folder) -> None:
        with folder.lock:
            self._timers.pop(folder.root, None)
            if folder.indexing:
                folder.dirty = True
                return
            folder.indexing = True
        self._indexer.submit(self._index, folder)

    def _index(self, folder: Folder) -> None:
        """One index pass (the code, then its history) with work-done progress; then stale
        hints, and the chunks it left without a vector to the background embedder."""
        server = self._server
        token = f"nano-brain-index-{uuid.uuid4().hex[:8]}"
        progress = Progress(server, token, f"nano-brain: indexing {folder.root.name}")
        paths = folder.take_changes()
        try:
            progress.begin()
            report = self._run_pass(folder, progress, paths)
            folder.last_report = report
            message = (
                f"{report.files} files, {report.symbols} symbols "
                f"({report.new} new, {report.changed} changed, {report.deleted} deleted)"
            )
            progress.end(message)
            server.log_to_client(lsp.MessageType.Info, f"indexed {folder.root}: {message}")
        except Exception as exc:
            with folder.lock:
                folder.note_changes(None)  # what this pass was to look at is not done
            log.exception("indexing %s failed", folder.root)
            progress.end(f"failed: {exc}")
            server.log_to_client(lsp.MessageType.Error, f"indexing {folder.root} failed: {exc}")
        finally:
            folder.indexed_once.set()
            with folder.lock:
                folder.indexing = False
                again = folder.dirty
                folder.dirty = False
            self._after_pass(folder)
        if server.options.index.embed:  # even after a failed pass: earlier ones' chunks
            self._after_pass_embed(folder)
        if again:
            self.schedule(folder)

    def _run_pass(self, folder: Folder, progress: Progress, paths: set[str] | None) -> IndexReport:
        """The pass itself: a first index in a child process, any other one here."""
        workspace = folder.workspace
        if paths is not None or folder.last_report is not None or workspace.code_indexed():
            return workspace.index(progress.phase, paths=paths)
        child = workspace.index_in_child()
        with self._child_lock:
            if self._stopping:
                raise NanoBrainError("the sidecar is shutting down")
            self._child = child
        try:
            pid = child.start()
            self._server.log_to_client(
                lsp.MessageType.Info, f"first index of {folder.root} runs in process {pid}"
            )
            return child.wait(progress.phase)
        finally:
            with self._child_lock:
                self._child = None

    def cancel_timers(self) -> None:
        """Drop the passes still waiting for their debounce (on shutdown)."""
        for pending in list(self._timers.values()):
            pending.timer.cancel()

    def shutdown(self) -> None:
        """Stop the index thread; queued work is dropped, a running pass finishes alone,
        a first index running in a child process is stopped."""
        self._indexer.shutdown(wait=False, cancel_futures=True)
        with self._child_lock:
            self._stopping = True
            child = self._child
        if child is not None:
            child.stop()


class _Pending(NamedTuple):
    """A folder's scheduled index pass: its timer, when the first event of the burst came,
    when it is due, and the wait it was scheduled with."""

    timer: threading.Timer
    first: float
    due: float
    wait: float
