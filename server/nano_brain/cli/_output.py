"""What the CLI writes passes through one filter: control characters become visible.

Commit messages, author names, notes and transcripts may come from a stranger; printed raw,
an escape sequence in them retitles the terminal, clears it, or hides text (DESIGN.md 7,
"Trust"). Rather than escape at every call site, `sys.stdout` and `sys.stderr` are wrapped
while a command runs, so command output, error lines and log lines all go through
`text.visible`. The protocol commands' stdout (`lsp`, `mcp`) is left alone: it carries
JSON-RPC byte for byte, and JSON escapes controls itself. The progress bar, which writes
its own escape sequences on a terminal, is given the raw stream (`raw_stderr`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from ..text import visible

#: Commands whose stdout is a protocol stream, written through `sys.stdout.buffer`.
PROTOCOL_COMMANDS = frozenset({"lsp", "mcp"})


class VisibleWriter(io.TextIOBase):
    """A text stream writing through to `inner` with control characters made visible."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.inner.errors

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes for a binary stream with b""
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.inner.write(visible(text))
        return len(text)

    def flush(self) -> None:
        if not self.inner.closed:
            self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()


def raw_stderr() -> TextIO:
    """stderr without the filter: for the progress bar's own escape sequences only."""
    stream = sys.stderr
    return stream.inner if isinstance(stream, VisibleWriter) else stream


@contextmanager
def streams_restored() -> Iterator[None]:
    """Whatever `show_controls_visibly` wraps is unwrapped when the command is done (a test
    or a program calling `main(args)` gets its own streams back)."""
    out, err = sys.stdout, sys.stderr
    try:
        yield
    finally:
        # only our own wrappers: a stream the command replaced itself (devnull after a
        # broken pipe) stays replaced
        if isinstance(sys.stdout, VisibleWriter):
            sys.stdout = out
        if isinstance(sys.stderr, VisibleWriter):
            sys.stderr = err


def show_controls_visibly(command: str | None) -> None:
    """Wrap stderr, and stdout unless `command` speaks a protocol on it."""
    if not isinstance(sys.stderr, VisibleWriter):
        sys.stderr = VisibleWriter(sys.stderr)
    if command not in PROTOCOL_COMMANDS and not isinstance(sys.stdout, VisibleWriter):
        sys.stdout = VisibleWriter(sys.stdout)
