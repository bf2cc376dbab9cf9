"""Files changed outside the editor: who reports them, and how they reach the index.

One of two sources, chosen once at ``initialized`` (option ``index.watch``): file watchers
the client registers for us (``workspace/didChangeWatchedFiles`` dynamic registration) when
it supports them, else the server's own watchdog observer. Both go through the folder's
`PathRules` and feed the same debounced, incremental index pass.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Literal

from lsprotocol import types as lsp

from .base import ServerBase
from .scheduling import IndexScheduler
from .text import uri_to_path
from .watch import PathRules, Watchers, client_globs
from .workspaces import Folder

WATCH_REGISTRATION = "nano-brain-watched-files"


class OutsideChanges:
    """The chosen source of outside changes, and the server's own watchers."""

    def __init__(self, server: ServerBase, scheduler: IndexScheduler) -> None:
        self._server = server
        self._scheduler = scheduler
        self.watchers = Watchers(self._changed_on_disk)
        self.source = "off"
        """Who reports outside changes: ``client``, ``server`` (watchdog), ``pending`` (asked
        the client to register watchers, no answer yet) or ``off``."""
        self._lock = threading.Lock()

    def start(self) -> None:
        """Choose who reports outside changes (at ``initialized``, on the event loop)."""
        server = self._server
        mode = server.options.index.watch if server.options.index.enabled else "off"
        caps = server.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        client_can = bool(watched and watched.dynamic_registration)
        if mode in ("auto", "client") and client_can:
            self._set_source("pending")
            register = lsp.RegistrationParams(
                registrations=[
                    lsp.Registration(
                        id=WATCH_REGISTRATION,
                        method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[lsp.FileSystemWatcher(glob_pattern=g) for g in client_globs()]
                        ),
                    )
                ]
            )
            server.client_register_capability(register).add_done_callback(
                lambda fut: self._registered(_failure(fut), fallback=mode == "auto")
            )
        elif mode in ("auto", "server"):
            self._set_source("server")
        else:
            if mode == "client":
                server.log_to_client(
                    lsp.MessageType.Warning,
                    "index.watch is `client` but the client cannot register file watchers: "
                    "changes made outside the editor are picked up on the next save",
                )
            self._set_source("off")

    def _registered(self, error: BaseException | None, *, fallback: bool) -> None:
        server = self._server
        if error is None:
            self._set_source("client")
            server.log_to_client(lsp.MessageType.Info, "the client watches files for nano-brain")
            return
        source = "server" if fallback else "off"
        server.log_to_client(
            lsp.MessageType.Warning,
            f"the client refused file watchers ({error}); "
            + ("watching with watchdog instead" if fallback else "not watching files"),
        )
        self._set_source(source)

    def _set_source(self, source: str) -> None:
        with self._lock:
            self.source = source
        if source == "server":
            for folder in self._server.folders.all():
                self._server.thread_pool.submit(self.watch_folder, folder)

    def watch_folder(self, folder: Folder) -> None:
        """Watch a newly opened folder ourselves, when the server is the source."""
        with self._lock:
            source = self.source
        if source == "server" and not self._server.stopping:
            self.watchers.watch(folder.root, folder.rules)

    def unwatch(self, root: Path) -> None:
        self.watchers.unwatch(root)

    def _changed_on_disk(self, root: Path, rel: str | None) -> None:
        """watchdog saw a relevant change under ``root`` to file ``rel`` (None: a folder or a
        ``.gitignore``), on the observer's thread."""
        folder = self._server.folders.for_path(root)
        if folder is not None and folder.root == root:
            self._scheduler.schedule(folder, paths=None if rel is None else (rel,))

    def client_reported(self, changes: Sequence[lsp.FileEvent]) -> None:
        """The client's watchers saw ``changes``: one index pass per folder they concern."""
        due: dict[Path, tuple[Folder, set[str] | None]] = {}
        for change in changes:
            path = uri_to_path(change.uri)
            folder = self._server.folders.for_path(path) if path else None
            if path is None or folder is None:
                continue
            rel = _relevant_change(folder.rules, path, change.type)
            if rel is False:
                continue
            _, paths = due.setdefault(folder.root, (folder, set()))
            if rel is None or paths is None:
                due[folder.root] = (folder, None)
            else:
                paths.add(rel)
        for folder, paths in due.values():
            self._scheduler.schedule(folder, paths=paths)

    def watching(self, folder: Folder) -> str:
        """Who reports the folder's outside changes now (for status requests)."""
        if self.watchers.watching(folder.root):
            return "server"
        with self._lock:
            return self.source if self.source != "server" else "off"

    def stop(self) -> None:
        self.watchers.stop()


def _failure(future: Future[None]) -> BaseException | None:
    if future.cancelled():
        return RuntimeError("the request was cancelled")
    return future.exception()


def _relevant_change(
    rules: PathRules, path: Path, kind: lsp.FileChangeType
) -> str | None | Literal[False]:
    """The changed file's relative path when the index must look at it, None when the whole
    folder must be walked again (a ``.gitignore``, or a folder), False when the change does
    not matter. The client's events pass the same rules as watchdog's; a deleted path
    without a suffix may have been a folder (the client cannot say): judged as one."""
    if rules.relevant_path(path):
        return rules.changed_file(path)
    if (
        kind == lsp.FileChangeType.Deleted
        and not path.suffix
        and rules.relevant_path(path, is_dir=True)
    ):
        return None
    return False
