"""The language server's shared state, and its one way to the client from any thread.

`ServerBase` holds what every part of the server reads (the options, the open folders, the
event loop, whether it is stopping) and sends to the client: always from the event loop,
because stdout is written by one thread only. `server.NanoBrainServer` builds on it; the
parts it is made of (documents, index passes, watching, progress) are handed a `ServerBase`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import __version__
from .options import InitializationOptions
from .workspaces import Folders

log = logging.getLogger("nano_brain")


class ServerBase(LanguageServer):
    """Options, folders and the channel to the client; see `server` for the threading rules."""

    def __init__(self) -> None:
        super().__init__("nano-brain", __version__, max_workers=4)
        self.options = InitializationOptions()
        self.folders = Folders()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stopping = False
        """Set on shutdown: nothing more is sent (the client may stop reading any moment)."""

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

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log only. pygls's default shows the error to the user with window/showMessage;
        when the error is a broken pipe that send fails too, and reports itself again,
        recursing until stderr fills and the process can no longer exit."""
        log.debug("server error (%s): %s", getattr(source, "__name__", source), error)
