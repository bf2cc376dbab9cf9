"""The nano-brain language server: a typed ``LanguageServer`` subclass built by a factory.

State lives on the server object (open folders, options, parsed buffers, MCP sidecars), never
in module globals, so each test builds a fresh server (`factory.build_server`). Handlers
(`handlers_*`) are thin: they find the document's :class:`~.features.Context` and call one
function of :mod:`.features` or :mod:`.commands`. Blocking work (SQLite, the embedding model,
parsing) runs on pygls's thread pool; indexing runs on its own single thread
(`scheduling`) so hovers are answered while it works, and embedding on the brain's
background embedder, its progress reported by a thread per folder (`embedwatch`). Folders
open on the pool too (after ``initialized``); a request about a file of a folder still
opening waits for it (`documents`), so the first hover after attach is answered as later
ones are, not with nothing. Nothing is ever printed: stdout carries the protocol, logs go to
the client (logMessage, `client_log`), and only from the event loop (`base.ServerBase.post`).

Files changed outside the editor reach the index through one of two sources, chosen once at
``initialized`` (`outside_changes`); both feed the same debounced, incremental index pass.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from ..errors import NanoBrainError
from . import features
from .base import ServerBase
from .documents import Documents
from .embedwatch import EmbeddingWatches
from .outside_changes import OutsideChanges
from .scheduling import IndexScheduler
from .sidecars import SidecarFactory, Sidecars


class NanoBrainServer(ServerBase):
    """The server's parts, each holding its own state; see the module docstring for the
    threading rules."""

    def __init__(self, mcp_sidecar: SidecarFactory | None = None) -> None:
        super().__init__()
        self.documents = Documents(self, self.open_folder)
        self.embedding = EmbeddingWatches(self)
        self.scheduler = IndexScheduler(
            self, after_pass=self.documents.refresh, after_pass_embed=self.embedding.kick
        )
        self.outside = OutsideChanges(self, self.scheduler)
        self.sidecars = Sidecars(mcp_sidecar, self.log_to_client)

    def handle(
        self,
        method: str,
        fn: Callable[[NanoBrainServer, Any], Any],
        options: Any = None,
        *,
        on_thread: bool = False,
    ) -> None:
        """Answer ``method`` with ``fn(server, params)``; ``on_thread``: on the thread pool
        (it blocks). Each server registers a function of its own: pygls marks what it is
        given, and a handler shared by two servers would carry the first one's marks."""

        def handler(ls: NanoBrainServer, params: Any) -> Any:
            return fn(ls, params)

        self.feature(method, options)(self.thread()(handler) if on_thread else handler)

    # -- folders ------------------------------------------------------------------------------

    def open_folder(self, root: Path) -> None:
        try:
            folder = self.folders.open(root, self.options)
        except NanoBrainError as exc:
            self.tell_user(lsp.MessageType.Error, f"nano-brain: cannot open {root}: {exc}")
            return
        if folder is None:
            return
        for warning in folder.brain.config_warnings:
            self.log_to_client(lsp.MessageType.Warning, f"{root}: {warning}")
        trust = folder.brain.config_trust
        if trust is not None and trust.ignored:  # a person must see this, not only a log
            self.tell_user(
                lsp.MessageType.Warning,
                f"nano-brain: {trust.path} is not trusted: {', '.join(trust.ignored)} ignored. "
                "Review it, then run `nano-brain trust` in the workspace "
                "(in VS Code: trust the workspace).",
            )
        self.log_to_client(lsp.MessageType.Info, f"opened {root} (store {folder.brain.store_path})")
        self.outside.watch_folder(folder)  # before the first pass: no change falls between
        features.warm_up(folder, self.options)  # before the pass, which keeps the CPU busy
        _freeze_heap()
        if self.options.index.embed and not self.options.index.enabled:
            self.embedding.kick(folder)  # else after the first pass, which then has the cores
        if self.options.index.enabled:
            self.scheduler.schedule(folder, delay=0.0, paths=None)
        else:
            folder.indexed_once.set()
        if self.options.mcp.transport != "off":
            self.scheduler.submit(self.sidecars.start, folder, self.options.mcp)

    def close_folder(self, root: Path) -> None:
        folder = self.folders.close(root)
        if folder is None:
            return
        self.outside.unwatch(folder.root)
        self.embedding.stop(folder.root)
        self.sidecars.stop(folder.root)
        self.scheduler.submit(folder.close)  # after any index pass queued before it

    def stop_all(self) -> None:
        self.stopping = True
        self.outside.stop()
        self.scheduler.cancel_timers()
        self.embedding.stop_all()
        self.sidecars.stop_all()
        self.scheduler.shutdown()


def _freeze_heap() -> None:
    """Move what is alive now (modules, pygls, the model, the store) out of the collector's
    reach. A full collection of the sidecar's ~150k startup objects holds the GIL for 20-75 ms,
    every thread waits meanwhile, and that was the tail of hover latency; frozen objects are
    never scanned again, so later collections only walk what requests create."""
    gc.collect()
    gc.freeze()
