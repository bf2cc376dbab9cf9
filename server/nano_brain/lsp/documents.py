"""The open documents: each parsed once per version and found in its folder; the stale-anchor
hints and code lenses sent for them.

Folders open on the thread pool (after ``initialized``); a request about a file of a folder
still opening waits for it (`await_folder`), so the first hover after attach is answered as
later ones are, not with nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types as lsp

from ..codeindex import Symbol
from ..errors import NanoBrainError
from . import features
from .base import ServerBase
from .text import parse_buffer, uri_to_path
from .workspaces import Folder

log = logging.getLogger("nano_brain")

#: A request about a file in a folder still being opened waits at most this long for it (the
#: first start prepares the embedding model: seconds); then it is answered as before.
OPEN_WAIT_S = 60.0


class Documents:
    """Parsed buffers by URI, the folders being opened, and what is published for both.

    ``open_folder`` opens one folder (on the thread pool, see `start_opening`)."""

    def __init__(self, server: ServerBase, open_folder: Callable[[Path], None]) -> None:
        self._server = server
        self._open_folder = open_folder
        self._buffers: dict[str, tuple[int | None, Folder, str, list[str], list[Symbol]]] = {}
        self._buffers_lock = threading.Lock()
        self._opening: dict[Path, threading.Event] = {}
        """Folders being opened (set when open, or failed), by their resolved root."""
        self._opening_lock = threading.Lock()

    def context(self, uri: str) -> features.Context | None:
        """The document's folder, path, lines and symbols (parsed once per version); a
        document in a folder still being opened waits for it (see `await_folder`)."""
        doc = self._server.workspace.get_text_document(uri)
        version = doc.version
        with self._buffers_lock:
            cached = self._buffers.get(uri)
        if cached is not None and cached[0] == version and version is not None:
            _, hit_folder, hit_rel, lines, symbols = cached
            return features.Context(hit_folder, uri, hit_rel, lines, symbols)
        path = uri_to_path(uri)
        if path is not None:
            self.await_folder(path)
        folder = self._server.folders.for_path(path) if path else None
        if folder is None or path is None:
            return None
        rel = folder.rel(path)
        if rel is None:
            return None
        try:
            source = doc.source
        except OSError:
            return None
        lines = source.splitlines()
        symbols = parse_buffer(rel, source)
        with self._buffers_lock:
            self._buffers[uri] = (version, folder, rel, lines, symbols)
        return features.Context(folder, uri, rel, lines, symbols)

    def prefetch(self, ctx: features.Context) -> None:
        """Search related memory for the file's symbols before the pointer gets there."""
        options = self._server.options
        if options.hover.enabled and options.hover.max_related:
            queued = ctx.folder.related.prefetch(features.prefetch_queries(ctx))
            log.debug("prefetching related memory for %d symbols of %s", queued, ctx.rel)

    def forget(self, uri: str) -> None:
        with self._buffers_lock:
            self._buffers.pop(uri, None)

    def await_folder(self, path: Path) -> bool:
        """Wait (up to OPEN_WAIT_S) while a folder holding ``path`` is being opened.

        Folders open on the thread pool after ``initialized``; the client may ask about a
        file at once (Neovim hovers as soon as it attached), and a request answered before
        its folder is open finds no folder and answers nothing, as if there were no memory.
        Requests come after the ``initialized`` (or folders-changed) notification that
        registered the opening, and its task was queued before theirs, so it is running.
        True when it waited."""
        with self._opening_lock:
            pending = [e for root, e in self._opening.items()
                       if root == path or root in path.parents]  # fmt: skip
        for event in pending:
            if not event.wait(OPEN_WAIT_S):
                log.warning("%s: its folder is still opening after %ss", path, OPEN_WAIT_S)
        return bool(pending)

    def start_opening(self, root: Path) -> None:
        """Open a folder on the thread pool; requests about its files wait for it."""
        key = root.expanduser().resolve()
        with self._opening_lock:
            self._opening.setdefault(key, threading.Event())
        self._server.thread_pool.submit(self._open_and_release, root, key)

    def _open_and_release(self, root: Path, key: Path) -> None:
        try:
            self._open_folder(root)
        finally:
            with self._opening_lock:
                event = self._opening.pop(key, None)
            if event is not None:
                event.set()

    def folder_for(self, uri: str | None, root: str | None) -> Folder:
        """The folder a command is about: the document's, the named root's, or the only one."""
        folders = self._server.folders
        if uri:
            path = uri_to_path(uri)
            if path is not None:
                self.await_folder(path)
            folder = folders.for_path(path) if path else None
            if folder is None:
                raise NanoBrainError(f"{uri} is in no open workspace folder")
            return folder
        if root:
            self.await_folder(Path(root).expanduser().resolve())
            folder = folders.for_path(Path(root))
            if folder is None:
                raise NanoBrainError(f"{root} is no open workspace folder")
            return folder
        every = folders.all()
        if len(every) != 1:
            raise NanoBrainError("several workspace folders are open: pass `uri` or `root`")
        return every[0]

    def refresh(self, folder: Folder) -> None:
        """Re-publish stale-anchor hints and ask for fresh code lenses after the index moved."""
        server = self._server
        for uri in list(server.workspace.text_documents):
            ctx = self.context(uri)
            if ctx is not None and ctx.folder is folder:
                self.publish(ctx)
        if self._supports_lens_refresh():
            server.post(lambda: server.workspace_code_lens_refresh(None))

    def publish(self, ctx: features.Context) -> None:
        """Send the document's stale-anchor diagnostics (when the options ask for them)."""
        if not self._server.options.diagnostics:
            return
        try:
            diags = features.stale_diagnostics(ctx)
        except NanoBrainError as exc:
            log.info("no diagnostics for %s: %s", ctx.uri, exc)
            return
        params = lsp.PublishDiagnosticsParams(uri=ctx.uri, diagnostics=diags)
        self._server.post(self._server.text_document_publish_diagnostics, params)

    def _supports_lens_refresh(self) -> bool:
        caps = self._server.client_capabilities.workspace
        lens = caps.code_lens if caps else None
        return bool(lens and lens.refresh_support)
