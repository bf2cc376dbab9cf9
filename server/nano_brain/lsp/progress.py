"""Work-done progress reported to the client: an index pass's, the background embedding's."""

from __future__ import annotations

import threading

from lsprotocol import types as lsp

from .base import ServerBase


class Progress:
    """One work-done progress: begin, report (with counts), end.

    Only used when the client announced ``window.workDoneProgress``; the token is created
    with ``window/workDoneProgress/create`` first, as the protocol requires.
    """

    def __init__(self, server: ServerBase, token: str, title: str) -> None:
        self.server = server
        self.token = token
        self.title = title
        caps = server.client_capabilities.window
        self.enabled = bool(caps and caps.work_done_progress)
        self._last = ""

    def begin(self, message: str = "scanning", percentage: int = 0) -> None:
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
                title=self.title, message=message, percentage=percentage, cancellable=False
            ),  # fmt: skip
        )
        self._last = message

    def phase(self, phase: str, done: int, total: int) -> None:
        if phase == "scan" and total == 0:
            message, pct = f"scanning: {done} files", 0
        else:
            pct = int(100 * done / total) if total else 100
            message = f"{phase}: {done}/{total}"
        self.report(message, pct)

    def report(self, message: str, pct: int) -> None:
        """Send ``message`` at ``pct`` percent, unless it is the message sent last."""
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
