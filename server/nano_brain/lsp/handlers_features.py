"""The handlers of what the editor shows: hover, code actions, code lenses, workspace
symbols, and the ``nano-brain/indexStatus`` request (for `:checkhealth` and status bars)."""

from __future__ import annotations

import time
from typing import Any

from lsprotocol import types as lsp

from ..codeindex import IndexReport
from . import features
from .server import NanoBrainServer
from .text import uri_to_path
from .workspaces import Folder

INDEX_STATUS_REQUEST = "nano-brain/indexStatus"


def register(server: NanoBrainServer) -> None:
    """Register this module's handlers on ``server``."""
    server.handle(lsp.TEXT_DOCUMENT_HOVER, hover, on_thread=True)
    server.handle(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        code_action,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.Empty]),
        on_thread=True,
    )
    server.handle(
        lsp.TEXT_DOCUMENT_CODE_LENS,
        code_lens,
        lsp.CodeLensOptions(resolve_provider=False),
        on_thread=True,
    )
    server.handle(lsp.WORKSPACE_SYMBOL, workspace_symbol, on_thread=True)
    server.handle(INDEX_STATUS_REQUEST, index_status, on_thread=True)


def hover(ls: NanoBrainServer, params: lsp.HoverParams) -> lsp.Hover | None:
    if not ls.options.hover.enabled:
        return None
    path = uri_to_path(params.text_document.uri)
    options = ls.options
    if path is not None and ls.documents.await_folder(path):
        # asked while the folder was opening: the person has waited already, and this
        # hover's first search is not cut short by the budget (it then shows what the
        # same hover shows later, not only what was cached)
        hover_opts = options.hover.model_copy(update={"related_budget_ms": 0})
        options = options.model_copy(update={"hover": hover_opts})
    started = time.perf_counter()
    ctx = ls.documents.context(params.text_document.uri)
    return features.hover(ctx, params.position, options, started) if ctx else None


def code_action(ls: NanoBrainServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    ctx = ls.documents.context(params.text_document.uri)
    return features.code_actions(ctx, params.range) if ctx else []


def code_lens(ls: NanoBrainServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
    if not ls.options.code_lens:
        return []
    ctx = ls.documents.context(params.text_document.uri)
    return features.code_lenses(ctx) if ctx else []


def workspace_symbol(
    ls: NanoBrainServer, params: lsp.WorkspaceSymbolParams
) -> list[lsp.WorkspaceSymbol]:
    return features.workspace_symbols(ls.folders.all(), params.query)


def index_status(ls: NanoBrainServer, params: Any) -> dict[str, Any]:
    """Each open folder: its store, index state and counts, watcher, model, embedding
    progress per space, MCP endpoint."""
    return {"folders": [_folder_status(ls, f) for f in ls.folders.all()]}


def _folder_status(ls: NanoBrainServer, f: Folder) -> dict[str, Any]:
    return {
        "root": str(f.root),
        "store": str(f.brain.store_path),
        "indexing": f.indexing,
        "indexed": f.indexed_once.is_set(),
        "watch": ls.outside.watching(f),
        "model": _model(f),
        "hover_cache": {
            "hits": f.related.cache.hits,
            "misses": f.related.cache.misses,
        },
        "counts": f.workspace.code.counts(),
        "last_pass": _pass_summary(f.last_report),
        "embedding": {s: p.to_dict() for s, p in f.brain.embedding_progress().items()},
        "mcp": ls.sidecars.where(f.root),
    }


def _model(folder: Folder) -> dict[str, Any]:
    """The embedding model hovers and searches use (for `:checkhealth` and status bars)."""
    provider, why = folder.reader.brain.provider()
    configured = folder.brain.config.embedding.provider
    if provider is None:
        return {"provider": configured, "name": None, "dim": None, "reason": why}
    return {"provider": configured, "name": provider.name, "dim": provider.dim}


def _pass_summary(report: IndexReport | None) -> dict[str, Any] | None:
    """What the last index pass looked at and did (``paths``: files named, None: it walked
    the whole folder)."""
    if report is None:
        return None
    keys = ("paths", "new", "changed", "deleted", "touched", "unchanged", "seconds")
    return {k: getattr(report, k) for k in keys}
