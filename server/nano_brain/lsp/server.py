"""The nano-brain language server: a typed ``LanguageServer`` subclass built by a factory.

State lives on the server object (open folders, options, parsed buffers, MCP sidecars), never
in module globals, so each test builds a fresh server. Handlers are thin: they find the
document's :class:`~.features.Context` and call one function of :mod:`.features` or
:mod:`.commands`. Blocking work (SQLite, the embedding model, parsing) runs on pygls's thread
pool; indexing runs on its own single thread so hovers are answered while it works.
Folders open on the pool too (after ``initialized``); a request about a file of a folder
still opening waits for it (`await_folder`), so the first hover after attach is answered as
later ones are, not with nothing.
Nothing is ever printed: stdout carries the protocol, logs go to the client (logMessage).

Files changed outside the editor reach the index through one of two sources, chosen once at
``initialized`` (option ``index.watch``): file watchers the client registers for us
(``workspace/didChangeWatchedFiles`` dynamic registration) when it supports them, else the
server's own watchdog observer. Both feed the same debounced, incremental index pass.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, NamedTuple

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..codeindex import IndexReport, Symbol
from ..errors import NanoBrainError
from . import commands as cmd
from . import features
from .options import InitializationOptions, parse_options
from .sidecars import SidecarFactory, Sidecars
from .text import parse_buffer, uri_to_path
from .watch import PathRules, Watchers, client_globs
from .workspaces import Folder, Folders

log = logging.getLogger("nano_brain")

SEARCH_REQUEST = "nano-brain/search"
INDEX_STATUS_REQUEST = "nano-brain/indexStatus"
WATCH_REGISTRATION = "nano-brain-watched-files"
#: A steady stream of changes (a long checkout, a generator) delays a pass at most this much.
MAX_INDEX_DELAY_S = 3.0
#: A save is one deliberate event, not a burst to wait out: its pass starts after this long
#: (enough for the rest of a "save all" to arrive), not after index.debounce_ms. The watcher's
#: report of the same write, a moment later, does not push it back.
SAVE_DELAY_S = 0.05
#: A request about a file in a folder still being opened waits at most this long for it (the
#: first start prepares the embedding model: seconds); then it is answered as before.
OPEN_WAIT_S = 60.0


class NanoBrainServer(LanguageServer):
    """Typed server state; see the module docstring for the threading rules."""

    def __init__(self, mcp_sidecar: SidecarFactory | None = None) -> None:
        super().__init__("nano-brain", __version__, max_workers=4)
        self.options = InitializationOptions()
        self.folders = Folders()
        self.sidecars = Sidecars(mcp_sidecar, self.log_to_client)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.indexer = ThreadPoolExecutor(1, thread_name_prefix="nano-brain-index")
        self._buffers: dict[str, tuple[int | None, Folder, str, list[str], list[Symbol]]] = {}
        self._buffers_lock = threading.Lock()
        self._timers: dict[Path, _Pending] = {}
        self.watchers = Watchers(self._changed_on_disk)
        self.watch_source = "off"
        """Who reports outside changes: ``client``, ``server`` (watchdog), ``pending`` (asked
        the client to register watchers, no answer yet) or ``off``."""
        self._watch_lock = threading.Lock()
        self._opening: dict[Path, threading.Event] = {}
        """Folders being opened (set when open, or failed), by their resolved root."""
        self._opening_lock = threading.Lock()
        self.stopping = False
        """Set on shutdown: nothing more is sent (the client may stop reading any moment)."""

    # -- talking to the client from any thread ---------------------------------------------

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the event loop: writes to stdout happen from one thread only."""
        if self.stopping or self.loop is None or self.loop.is_closed():
            return
        if threading.current_thread() is threading.main_thread():
            fn(*args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def log_to_client(self, level: lsp.MessageType, text: str) -> None:
        self.post(self.window_log_message, lsp.LogMessageParams(type=level, message=text))

    def tell_user(self, level: lsp.MessageType, text: str) -> None:
        self.post(self.window_show_message, lsp.ShowMessageParams(type=level, message=text))

    # -- documents ---------------------------------------------------------------------------

    def context(self, uri: str) -> features.Context | None:
        """The document's folder, path, lines and symbols (parsed once per version); a
        document in a folder still being opened waits for it (see `await_folder`)."""
        doc = self.workspace.get_text_document(uri)
        version = doc.version
        with self._buffers_lock:
            cached = self._buffers.get(uri)
        if cached is not None and cached[0] == version and version is not None:
            _, hit_folder, hit_rel, lines, symbols = cached
            return features.Context(hit_folder, uri, hit_rel, lines, symbols)
        path = uri_to_path(uri)
        if path is not None:
            self.await_folder(path)
        folder = self.folders.for_path(path) if path else None
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
        if self.options.hover.enabled and self.options.hover.max_related:
            queued = ctx.folder.related.prefetch(features.prefetch_queries(ctx))
            log.debug("prefetching related memory for %d symbols of %s", queued, ctx.rel)

    def forget_buffer(self, uri: str) -> None:
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
        self.thread_pool.submit(self._open_and_release, root, key)

    def _open_and_release(self, root: Path, key: Path) -> None:
        try:
            self.open_folder(root)
        finally:
            with self._opening_lock:
                event = self._opening.pop(key, None)
            if event is not None:
                event.set()

    def folder_for(self, uri: str | None, root: str | None) -> Folder:
        if uri:
            path = uri_to_path(uri)
            if path is not None:
                self.await_folder(path)
            folder = self.folders.for_path(path) if path else None
            if folder is None:
                raise NanoBrainError(f"{uri} is in no open workspace folder")
            return folder
        if root:
            self.await_folder(Path(root).expanduser().resolve())
            folder = self.folders.for_path(Path(root))
            if folder is None:
                raise NanoBrainError(f"{root} is no open workspace folder")
            return folder
        folders = self.folders.all()
        if len(folders) != 1:
            raise NanoBrainError("several workspace folders are open: pass `uri` or `root`")
        return folders[0]

    # -- folders, indexing, MCP ---------------------------------------------------------------

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
        self.log_to_client(lsp.MessageType.Info, f"opened {root} (store {folder.brain.store.path})")
        self._watch_folder(folder)  # before the first pass, so no change falls between the two
        features.warm_up(folder, self.options)  # before the pass, which keeps the CPU busy
        _freeze_heap()
        if self.options.index.enabled:
            self.schedule_index(folder, delay=0.0, paths=None)
        else:
            folder.indexed_once.set()
        if self.options.mcp.transport != "off":
            self.indexer.submit(self.sidecars.start, folder, self.options.mcp)

    def close_folder(self, root: Path) -> None:
        folder = self.folders.close(root)
        if folder is None:
            return
        self.watchers.unwatch(folder.root)
        self.sidecars.stop(folder.root)
        self.indexer.submit(folder.close)  # after any index pass queued before it

    def schedule_index(
        self, folder: Folder, *, delay: float | None = None, paths: Iterable[str] | None = ()
    ) -> None:
        """Index ``folder`` soon; changes arriving meanwhile coalesce into one more pass.

        ``paths``: the files (relative) that changed, or None when that is unknown (the pass
        then walks the whole folder).
        """
        if not self.options.index.enabled:
            return
        wait = self.options.index.debounce_ms / 1000 if delay is None else delay
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
                self.indexer.submit(self._index, folder)
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
        self.indexer.submit(self._index, folder)

    def _index(self, folder: Folder) -> None:
        """One index pass with work-done progress; then embeddings; then stale hints."""
        token = f"nano-brain-index-{uuid.uuid4().hex[:8]}"
        progress = Progress(self, token, f"nano-brain: indexing {folder.root.name}")
        paths = folder.take_changes()
        try:
            progress.begin()
            report = folder.index.index(progress.phase, paths=paths)
            folder.last_report = report
            message = (
                f"{report.files} files, {report.symbols} symbols "
                f"({report.new} new, {report.changed} changed, {report.deleted} deleted)"
            )
            if self.options.index.embed and report.pending_embeddings:
                try:
                    folder.brain.embed_pending(progress=progress.embedding)
                except NanoBrainError as exc:
                    self.log_to_client(lsp.MessageType.Info, f"not embedding code: {exc}")
            progress.end(message)
            self.log_to_client(lsp.MessageType.Info, f"indexed {folder.root}: {message}")
        except Exception as exc:
            with folder.lock:
                folder.note_changes(None)  # what this pass was to look at is not done
            log.exception("indexing %s failed", folder.root)
            progress.end(f"failed: {exc}")
            self.log_to_client(lsp.MessageType.Error, f"indexing {folder.root} failed: {exc}")
        finally:
            folder.indexed_once.set()
            with folder.lock:
                folder.indexing = False
                again = folder.dirty
                folder.dirty = False
            self.refresh_open_documents(folder)
        if again:
            self.schedule_index(folder)

    def refresh_open_documents(self, folder: Folder) -> None:
        """Re-publish stale-anchor hints and ask for fresh code lenses after the index moved."""
        for uri in list(self.workspace.text_documents):
            ctx = self.context(uri)
            if ctx is not None and ctx.folder is folder:
                self.publish(ctx)
        if self._supports_lens_refresh():
            self.post(lambda: self.workspace_code_lens_refresh(None))

    def publish(self, ctx: features.Context) -> None:
        if not self.options.diagnostics:
            return
        try:
            diags = features.stale_diagnostics(ctx)
        except NanoBrainError as exc:
            log.info("no diagnostics for %s: %s", ctx.uri, exc)
            return
        params = lsp.PublishDiagnosticsParams(uri=ctx.uri, diagnostics=diags)
        self.post(self.text_document_publish_diagnostics, params)

    def _supports_lens_refresh(self) -> bool:
        caps = self.client_capabilities.workspace
        lens = caps.code_lens if caps else None
        return bool(lens and lens.refresh_support)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log only. pygls's default shows the error to the user with window/showMessage;
        when the error is a broken pipe that send fails too, and reports itself again,
        recursing until stderr fills and the process can no longer exit."""
        log.debug("server error (%s): %s", getattr(source, "__name__", source), error)

    # -- changes made outside the editor -------------------------------------------------------

    def start_watching(self) -> None:
        """Choose who reports outside changes (at ``initialized``, on the event loop)."""
        mode = self.options.index.watch if self.options.index.enabled else "off"
        caps = self.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        client_can = bool(watched and watched.dynamic_registration)
        if mode in ("auto", "client") and client_can:
            self._set_watch_source("pending")
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
            self.client_register_capability(register).add_done_callback(
                lambda fut: self._registered(_failure(fut), fallback=mode == "auto")
            )
        elif mode in ("auto", "server"):
            self._set_watch_source("server")
        else:
            if mode == "client":
                self.log_to_client(
                    lsp.MessageType.Warning,
                    "index.watch is `client` but the client cannot register file watchers: "
                    "changes made outside the editor are picked up on the next save",
                )
            self._set_watch_source("off")

    def _registered(self, error: BaseException | None, *, fallback: bool) -> None:
        if error is None:
            self._set_watch_source("client")
            self.log_to_client(lsp.MessageType.Info, "the client watches files for nano-brain")
            return
        source = "server" if fallback else "off"
        self.log_to_client(
            lsp.MessageType.Warning,
            f"the client refused file watchers ({error}); "
            + ("watching with watchdog instead" if fallback else "not watching files"),
        )
        self._set_watch_source(source)

    def _set_watch_source(self, source: str) -> None:
        with self._watch_lock:
            self.watch_source = source
        if source == "server":
            for folder in self.folders.all():
                self.thread_pool.submit(self._watch_folder, folder)

    def _watch_folder(self, folder: Folder) -> None:
        with self._watch_lock:
            source = self.watch_source
        if source == "server" and not self.stopping:
            self.watchers.watch(folder.root, folder.rules)

    def _changed_on_disk(self, root: Path, rel: str | None) -> None:
        """watchdog saw a relevant change under ``root`` to file ``rel`` (None: a folder or a
        ``.gitignore``), on the observer's thread."""
        folder = self.folders.for_path(root)
        if folder is not None and folder.root == root:
            self.schedule_index(folder, paths=None if rel is None else (rel,))

    def watching(self, folder: Folder) -> str:
        if self.watchers.watching(folder.root):
            return "server"
        with self._watch_lock:
            return self.watch_source if self.watch_source != "server" else "off"

    def stop_all(self) -> None:
        self.stopping = True
        self.watchers.stop()
        for pending in list(self._timers.values()):
            pending.timer.cancel()
        self.sidecars.stop_all()
        self.indexer.shutdown(wait=False, cancel_futures=True)


class _Pending(NamedTuple):
    """A folder's scheduled index pass: its timer, when the first event of the burst came,
    when it is due, and the wait it was scheduled with."""

    timer: threading.Timer
    first: float
    due: float
    wait: float


class Progress:
    """Work-done progress for one index pass: begin, report (with counts), end.

    Only used when the client announced ``window.workDoneProgress``; the token is created
    with ``window/workDoneProgress/create`` first, as the protocol requires.
    """

    def __init__(self, server: NanoBrainServer, token: str, title: str) -> None:
        self.server = server
        self.token = token
        self.title = title
        caps = server.client_capabilities.window
        self.enabled = bool(caps and caps.work_done_progress)
        self._last = ""

    def begin(self) -> None:
        if not self.enabled:
            return
        created = threading.Event()
        self.server.post(
            lambda: self.server.work_done_progress.create(self.token, lambda *_: created.set())
        )
        if not created.wait(5):
            self.enabled = False
            return
        self.server.post(
            self.server.work_done_progress.begin,
            self.token,
            lsp.WorkDoneProgressBegin(
                title=self.title, message="scanning", percentage=0, cancellable=False
            ),  # fmt: skip
        )

    def phase(self, phase: str, done: int, total: int) -> None:
        if phase == "scan" and total == 0:
            message, pct = f"scanning: {done} files", 0
        else:
            pct = int(100 * done / total) if total else 100
            message = f"{phase}: {done}/{total}"
        self._report(message, pct)

    def embedding(self, done: int, total: int) -> None:
        self._report(f"embedding: {done}/{total}", int(100 * done / total) if total else 100)

    def _report(self, message: str, pct: int) -> None:
        if not self.enabled or message == self._last:
            return
        self._last = message
        self.server.post(
            self.server.work_done_progress.report,
            self.token,
            lsp.WorkDoneProgressReport(message=message, percentage=min(100, pct)),
        )

    def end(self, message: str) -> None:
        if self.enabled:
            self.server.post(
                self.server.work_done_progress.end,
                self.token,
                lsp.WorkDoneProgressEnd(message=message),
            )


class _ClientLogHandler(logging.Handler):
    """Forwards the package's log records to the client as window/logMessage."""

    _LEVELS = {
        logging.ERROR: lsp.MessageType.Error,
        logging.WARNING: lsp.MessageType.Warning,
        logging.INFO: lsp.MessageType.Info,
        logging.DEBUG: lsp.MessageType.Log,
    }

    def __init__(self, server: NanoBrainServer) -> None:
        super().__init__()
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = self._LEVELS.get(record.levelno, lsp.MessageType.Log)
            if record.levelno >= logging.ERROR:
                level = lsp.MessageType.Error
            self.server.log_to_client(level, self.format(record))
        except Exception:  # a log line must never break the server
            pass


def build_server(mcp_sidecar: SidecarFactory | None = None) -> NanoBrainServer:
    """A fresh server with every feature registered (one per process or per test);
    `mcp_sidecar` builds each folder's MCP server for agents (none without it)."""
    server = NanoBrainServer(mcp_sidecar)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: NanoBrainServer, params: lsp.InitializeParams) -> None:
        ls.loop = asyncio.get_event_loop()
        ls.options, problems = parse_options(params.initialization_options)
        handler = _ClientLogHandler(ls)
        handler.setLevel(ls.options.log_level.upper())
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        pkg = logging.getLogger("nano_brain")
        pkg.addHandler(handler)
        pkg.setLevel(min(pkg.level or logging.WARNING, handler.level))
        for problem in problems:
            ls.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Warning, message=f"nano-brain: {problem}"
                )
            )
            ls.window_log_message(
                lsp.LogMessageParams(type=lsp.MessageType.Warning, message=problem)
            )

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: NanoBrainServer, params: lsp.InitializedParams) -> None:
        ls.start_watching()
        roots = [uri_to_path(f.uri) for f in (ls.workspace.folders or {}).values()]
        if not roots and ls.workspace.root_path:
            roots = [Path(ls.workspace.root_path)]
        for root in roots:
            if root is not None:
                ls.start_opening(root)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: NanoBrainServer, params: lsp.DidChangeWorkspaceFoldersParams) -> None:
        for removed in params.event.removed:
            path = uri_to_path(removed.uri)
            if path is not None:
                ls.thread_pool.submit(ls.close_folder, path)
        for added in params.event.added:
            path = uri_to_path(added.uri)
            if path is not None:
                ls.start_opening(path)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: NanoBrainServer, params: None) -> None:
        ls.stop_all()

    # -- documents ---------------------------------------------------------------------------

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    @server.thread()
    def did_open(ls: NanoBrainServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ctx = ls.context(params.text_document.uri)
        if ctx is not None:
            ls.prefetch(ctx)
            ls.publish(ctx)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    @server.thread()
    def did_change(ls: NanoBrainServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ctx = ls.context(params.text_document.uri)
        if ctx is not None:
            ls.publish(ctx)  # the buffer is re-parsed: unsaved edits show as stale at once

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    @server.thread()
    def did_save(ls: NanoBrainServer, params: lsp.DidSaveTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        folder = ls.folders.for_path(path) if path else None
        if folder is not None and path is not None:
            # unwatched, a save is also when outside changes are picked up: walk everything
            rel = folder.rel(path) if ls.watching(folder) in ("client", "server") else None
            delay = min(SAVE_DELAY_S, ls.options.index.debounce_ms / 1000)
            ls.schedule_index(folder, delay=delay, paths=None if rel is None else (rel,))
        ctx = ls.context(params.text_document.uri)
        if ctx is not None:
            ls.prefetch(ctx)  # names typed since the file was opened

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NanoBrainServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.forget_buffer(params.text_document.uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: NanoBrainServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        due: dict[Path, tuple[Folder, set[str] | None]] = {}
        for change in params.changes:
            path = uri_to_path(change.uri)
            folder = ls.folders.for_path(path) if path else None
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
            ls.schedule_index(folder, paths=paths)

    # -- features ----------------------------------------------------------------------------

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @server.thread()
    def hover(ls: NanoBrainServer, params: lsp.HoverParams) -> lsp.Hover | None:
        if not ls.options.hover.enabled:
            return None
        path = uri_to_path(params.text_document.uri)
        options = ls.options
        if path is not None and ls.await_folder(path):
            # asked while the folder was opening: the person has waited already, and this
            # hover's first search is not cut short by the budget (it then shows what the
            # same hover shows later, not only what was cached)
            hover_opts = options.hover.model_copy(update={"related_budget_ms": 0})
            options = options.model_copy(update={"hover": hover_opts})
        started = time.perf_counter()
        ctx = ls.context(params.text_document.uri)
        return features.hover(ctx, params.position, options, started) if ctx else None

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.Empty]),
    )
    @server.thread()
    def code_action(ls: NanoBrainServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        ctx = ls.context(params.text_document.uri)
        return features.code_actions(ctx, params.range) if ctx else []

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    @server.thread()
    def code_lens(ls: NanoBrainServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        if not ls.options.code_lens:
            return []
        ctx = ls.context(params.text_document.uri)
        return features.code_lenses(ctx) if ctx else []

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @server.thread()
    def workspace_symbol(
        ls: NanoBrainServer, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.WorkspaceSymbol]:
        return features.workspace_symbols(ls.folders.all(), params.query)

    @server.feature(SEARCH_REQUEST)
    @server.thread()
    def search_request(ls: NanoBrainServer, params: Any) -> dict[str, Any]:
        return _run(ls, cmd.SearchArgs, params, _search)

    @server.feature(INDEX_STATUS_REQUEST)
    @server.thread()
    def index_status(ls: NanoBrainServer, params: Any) -> dict[str, Any]:
        return {
            "folders": [
                {
                    "root": str(f.root),
                    "store": str(f.brain.store.path),
                    "indexing": f.indexing,
                    "indexed": f.indexed_once.is_set(),
                    "watch": ls.watching(f),
                    "model": _model(f),
                    "hover_cache": {
                        "hits": f.related.cache.hits,
                        "misses": f.related.cache.misses,
                    },
                    "counts": f.index.counts(),
                    "last_pass": _pass_summary(f.last_report),
                    "mcp": ls.sidecars.where(f.root),
                }
                for f in ls.folders.all()
            ]
        }

    # -- commands ----------------------------------------------------------------------------

    def command(name: str, model: type[Any], impl: Callable[..., dict[str, Any]]) -> None:
        @server.command(name)
        @server.thread()
        def run(ls: NanoBrainServer, *args: Any) -> dict[str, Any]:
            return _run(ls, model, args[0] if args else None, impl, announce=name)

    command(cmd.SAVE_SELECTION, cmd.SaveSelectionArgs, _save_selection)
    command(cmd.RECORD_DECISION, cmd.RecordDecisionArgs, _record_decision)
    command(cmd.SUPERSEDE, cmd.SupersedeArgs, _supersede)
    command(cmd.SEARCH_RELATED, cmd.SearchArgs, _search)
    command(cmd.RETRACT, cmd.RetractArgs, _retract)
    command(cmd.NOTES, cmd.NotesArgs, _notes)
    command(cmd.WAKE_UP, cmd.WakeUpArgs, _wake_up)
    command(cmd.WHY, cmd.WhyArgs, _why)
    return server


def _freeze_heap() -> None:
    """Move what is alive now (modules, pygls, the model, the store) out of the collector's
    reach. A full collection of the sidecar's ~150k startup objects holds the GIL for 20-75 ms,
    every thread waits meanwhile, and that was the tail of hover latency; frozen objects are
    never scanned again, so later collections only walk what requests create."""
    gc.collect()
    gc.freeze()


def _model(folder: Folder) -> dict[str, Any]:
    """The embedding model hovers and searches use (for `:checkhealth` and status bars)."""
    provider, why = folder.reader.provider()
    configured = folder.brain.config.embedding.provider
    if provider is None:
        return {"provider": configured, "name": None, "dim": None, "reason": why}
    return {"provider": configured, "name": provider.name, "dim": provider.dim}


def _failure(future: Future[None]) -> BaseException | None:
    if future.cancelled():
        return RuntimeError("the request was cancelled")
    return future.exception()


def _pass_summary(report: IndexReport | None) -> dict[str, Any] | None:
    """What the last index pass looked at and did (``paths``: files named, None: it walked
    the whole folder)."""
    if report is None:
        return None
    keys = ("paths", "new", "changed", "deleted", "touched", "unchanged", "seconds")
    return {k: getattr(report, k) for k in keys}


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


# -- command glue: resolve folder/context, validate, run, report ------------------------------


def _run(
    ls: NanoBrainServer,
    model: type[Any],
    raw: Any,
    impl: Callable[..., dict[str, Any]],
    announce: str | None = None,
) -> dict[str, Any]:
    """Validate, resolve the folder, run; errors become a JSON-RPC error with one clear line."""
    try:
        args = cmd.parse(model, _plain(raw))
        folder = ls.folder_for(args.uri, args.root)
        ctx = ls.context(args.uri) if args.uri else None
        result = impl(ls, folder, ctx, args)
    except NanoBrainError as exc:  # the caller's mistake or a missing note: one clear line
        raise JsonRpcInvalidParams(f"{type(exc).__name__}: {exc}") from None
    if announce and "note" in result:
        note = result["note"]
        anchored = result.get("anchored_to")
        where = f", anchored to {anchored}" if isinstance(anchored, str) else ""
        verb = {cmd.RETRACT: "Retracted", cmd.SUPERSEDE: "Superseded by"}.get(announce, "Saved")
        ls.tell_user(
            lsp.MessageType.Info, f"nano-brain: {verb} #{note['id']} {note['title']}{where}"
        )
    if ctx is not None and announce:
        ls.publish(ctx)
    return result


def _plain(value: Any) -> Any:
    """pygls hands custom requests' params over as namedtuples: back to plain JSON values."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _needs_ctx(ctx: features.Context | None) -> features.Context:
    if ctx is None:
        raise NanoBrainError("`uri` must name an open document in a workspace folder")
    return ctx


def _save_selection(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    folder.indexed_once.wait(60)  # anchoring needs the symbol in the index
    return _changed(ls, folder, cmd.save_selection(folder, _needs_ctx(ctx), args))


def _record_decision(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    folder.indexed_once.wait(60)
    return _changed(ls, folder, cmd.record_decision(folder, ctx, args))


def _supersede(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return _changed(ls, folder, cmd.supersede(folder, ctx, args))


def _changed(ls: NanoBrainServer, folder: Folder, result: dict[str, Any]) -> dict[str, Any]:
    """After a note changed: fresh stale hints, and the client asked to re-read code lenses
    (their "N notes" counts), instead of waiting for the next index pass."""
    ls.refresh_open_documents(folder)
    return result


def _search(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.search(folder, ctx, args)


def _retract(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return _changed(ls, folder, cmd.retract(folder, args))


def _notes(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.notes(folder, ctx, args)


def _wake_up(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.wake_up(folder, args)


def _why(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.why_view(folder, ctx, args)
