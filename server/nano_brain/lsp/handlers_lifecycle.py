"""The handlers of the server's life: initialize, initialized, folders added or removed,
shutdown."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp

from .client_log import forward_logs
from .options import parse_options
from .server import NanoBrainServer
from .text import uri_to_path


def register(server: NanoBrainServer) -> None:
    """Register this module's handlers on ``server``."""
    server.handle(lsp.INITIALIZE, initialize)
    server.handle(lsp.INITIALIZED, initialized)
    server.handle(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, folders_changed)
    server.handle(lsp.SHUTDOWN, shutdown)


def initialize(ls: NanoBrainServer, params: lsp.InitializeParams) -> None:
    """Read the options (bad ones are reported and replaced by defaults); start forwarding
    the package's log to the client."""
    ls.loop = asyncio.get_event_loop()
    ls.options, problems = parse_options(params.initialization_options)
    forward_logs(ls, ls.options.log_level)
    for problem in problems:
        ls.window_show_message(
            lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=f"nano-brain: {problem}")
        )
        ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Warning, message=problem))


def initialized(ls: NanoBrainServer, params: lsp.InitializedParams) -> None:
    """Choose who watches files, and start opening the workspace's folders."""
    ls.outside.start()
    roots = [uri_to_path(f.uri) for f in (ls.workspace.folders or {}).values()]
    if not roots and ls.workspace.root_path:
        roots = [Path(ls.workspace.root_path)]
    for root in roots:
        if root is not None:
            ls.documents.start_opening(root)


def folders_changed(ls: NanoBrainServer, params: lsp.DidChangeWorkspaceFoldersParams) -> None:
    for removed in params.event.removed:
        path = uri_to_path(removed.uri)
        if path is not None:
            ls.thread_pool.submit(ls.close_folder, path)
    for added in params.event.added:
        path = uri_to_path(added.uri)
        if path is not None:
            ls.documents.start_opening(path)


def shutdown(ls: NanoBrainServer, params: None) -> None:
    ls.stop_all()
