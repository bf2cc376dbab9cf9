"""Work-done progress for an index pass, reported to the client while it runs."""

from __future__ import annotations

import threading

from lsprotocol import types as lsp

from .base import ServerBase


class Progress:
    """Work-done progress for one index pass: begin, report (with counts), end.

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
