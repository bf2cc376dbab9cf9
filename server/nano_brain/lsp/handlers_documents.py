"""The handlers of document events (open, change, save, close) and of the client's file
watchers: each refreshes hints, prefetches related memory or schedules an index pass."""

from __future__ import annotations

import logging

from lsprotocol import types as lsp

from ..errors import NanoBrainError
from .scheduling import SAVE_DELAY_S
from .server import NanoBrainServer
from .text import uri_to_path

log = logging.getLogger(__name__)


def register(server: NanoBrainServer) -> None:
    """Register this module's handlers on ``server``."""
    server.handle(lsp.TEXT_DOCUMENT_DID_OPEN, did_open, on_thread=True)
    server.handle(lsp.TEXT_DOCUMENT_DID_CHANGE, did_change, on_thread=True)
    server.handle(lsp.TEXT_DOCUMENT_DID_SAVE, did_save, on_thread=True)
    server.handle(lsp.TEXT_DOCUMENT_DID_CLOSE, did_close)
    server.handle(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, watched)


def did_open(ls: NanoBrainServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ctx = ls.documents.context(params.text_document.uri)
    if ctx is not None:
        ls.documents.prefetch(ctx)
        ls.documents.publish(ctx)
        try:  # its code gets vectors before the rest of the queue
            ctx.folder.brain.prioritize_embedding([ctx.rel])
        except NanoBrainError as exc:  # a busy store: the order is a preference
            log.debug("cannot move %s up the embedding queue: %s", ctx.rel, exc)


def did_change(ls: NanoBrainServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ctx = ls.documents.context(params.text_document.uri)
    if ctx is not None:
        ls.documents.publish(ctx)  # the buffer is re-parsed: unsaved edits show as stale at once


def did_save(ls: NanoBrainServer, params: lsp.DidSaveTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    folder = ls.folders.for_path(path) if path else None
    if folder is not None and path is not None:
        # unwatched, a save is also when outside changes are picked up: walk everything
        watched = ls.outside.watching(folder) in ("client", "server")
        rel = folder.rel(path) if watched else None
        delay = min(SAVE_DELAY_S, ls.options.index.debounce_ms / 1000)
        ls.scheduler.schedule(folder, delay=delay, paths=None if rel is None else (rel,))
    ctx = ls.documents.context(params.text_document.uri)
    if ctx is not None:
        ls.documents.prefetch(ctx)  # names typed since the file was opened


def did_close(ls: NanoBrainServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.documents.forget(params.text_document.uri)


def watched(ls: NanoBrainServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    ls.outside.client_reported(params.changes)
