"""The package's log, forwarded to the client as window/logMessage (never to stdout)."""

from __future__ import annotations

import logging

from lsprotocol import types as lsp

from .base import ServerBase


def forward_logs(server: ServerBase, level: str) -> None:
    """Send the package's log records at ``level`` and above to the client."""
    handler = _ClientLogHandler(server)
    handler.setLevel(level.upper())
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    pkg = logging.getLogger("nano_brain")
    pkg.addHandler(handler)
    pkg.setLevel(min(pkg.level or logging.WARNING, handler.level))


class _ClientLogHandler(logging.Handler):
    """Forwards the package's log records to the client as window/logMessage."""

    _LEVELS = {
        logging.ERROR: lsp.MessageType.Error,
        logging.WARNING: lsp.MessageType.Warning,
        logging.INFO: lsp.MessageType.Info,
        logging.DEBUG: lsp.MessageType.Log,
    }

    def __init__(self, server: ServerBase) -> None:
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
