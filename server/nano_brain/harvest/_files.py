"""Reading transcripts without trusting them: regular files only, never blocking, bounded.

A transcript folder holds whatever landed there: a FIFO would block `open()` forever,
`/dev/zero` never ends, a file can vanish or shrink while it is read, and one line can be
gigabytes of base64 or arrays nested thousands deep. So every read of a transcript here:

- opens regular files only: `stat` first, so a FIFO, device or socket is never opened, then
  `open` with O_NONBLOCK and `fstat` on the descriptor, which closes the window in which the
  path could be swapped for a FIFO between the two calls;
- reads at most `max_file_bytes` of a file and streams lines in bounded pieces: a line over
  `max_line_bytes` is skipped as it goes by (still hashed), never held whole;
- keeps what was read when the file shrinks, vanishes or fails mid-read;
- decodes JSON without letting deep nesting escape as `RecursionError`.

Skipped lines are counted by reason (the `SKIP_*` names below), so a report can say what
was lost and why.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat as stat_mod
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..config import HarvestConfig
from ..filekinds import file_kind
from .model import SourceInfo, TranscriptError

log = logging.getLogger("nano_brain.harvest")

SKIP_MALFORMED = "malformed"
"""Not JSON, not UTF-8, or not a JSON object."""
SKIP_TOO_DEEP = "too-deep"
"""JSON nested deeper than the interpreter can decode."""
SKIP_TOO_LONG = "too-long"
"""A line (or whole JSON document) longer than `max_line_bytes`."""
SKIP_UNUSABLE = "unusable"
"""A JSON object whose shape the parser cannot use."""
SKIP_TRUNCATED = "truncated"
"""A file longer than `max_file_bytes`: its tail was not read."""
SKIP_UNREADABLE = "unreadable"
"""A file of the session could not be read (gone, not a regular file, I/O error)."""

_CHUNK = 1 << 20
_BUFFER = 256 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_WARNED: set[str] = set()
_WARNED_LIMIT = 10_000
_WARNED_LOCK = threading.Lock()


class TooLargeError(TranscriptError):
    """A file read whole is larger than the limit it is read under."""


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much of a transcript is read at most (see `HarvestConfig`)."""

    max_line_bytes: int = HarvestConfig.model_fields["max_line_bytes"].default
    max_file_bytes: int = HarvestConfig.model_fields["max_file_bytes"].default

    @classmethod
    def of(cls, config: HarvestConfig) -> ReadLimits:
        return cls(config.max_line_bytes, config.max_file_bytes)

    def head(self) -> ReadLimits:
        """Limits for discovery, which reads a file's first lines only."""
        return ReadLimits(
            self.max_line_bytes, min(self.max_file_bytes, 2 * self.max_line_bytes + 1024)
        )


DEFAULT_LIMITS = ReadLimits()


def warn_once(key: str, message: str, *args: Any) -> None:
    """Log a warning the first time `key` is seen in this process, then at debug level.

    A watcher rescans every few minutes; a FIFO left in a transcript folder should be
    reported, not reported every tick.
    """
    with _WARNED_LOCK:
        first = key not in _WARNED
        if first:
            if len(_WARNED) >= _WARNED_LIMIT:
                _WARNED.clear()
            _WARNED.add(key)
    log.log(logging.WARNING if first else logging.DEBUG, message, *args)


def is_regular(path: str | Path) -> bool:
    """True for a regular file (symlinks followed). Anything else is logged once; a missing
    path is just False. Never opens the path."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    if stat_mod.S_ISREG(mode):
        return True
    if not stat_mod.S_ISDIR(mode):
        warn_once(f"kind:{path}", "skipping %s: %s, not a regular file", path, file_kind(mode))
    return False


def regular_files(paths: Iterable[Path]) -> list[Path]:
    """The regular files among `paths`, in order (others logged once and left out)."""
    return [path for path in paths if is_regular(path)]


def open_regular(path: str | Path) -> tuple[BinaryIO, os.stat_result]:
    """An open binary handle on a regular file and its `fstat`, or TranscriptError."""
    try:
        before = os.stat(path)
        if not stat_mod.S_ISREG(before.st_mode):
            raise TranscriptError(f"{path} is {file_kind(before.st_mode)}, not a regular file")
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError) as exc:
        raise TranscriptError(f"cannot read {path}: {_reason(exc)}") from exc
    try:
        info = os.fstat(fd)
        if not stat_mod.S_ISREG(info.st_mode):  # swapped after the stat above
            raise TranscriptError(f"{path} is {file_kind(info.st_mode)}, not a regular file")
        return os.fdopen(fd, "rb", buffering=_BUFFER), info
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | Path, limit: int) -> tuple[bytes, os.stat_result]:
    """A whole regular file of at most `limit` bytes; TranscriptError if larger or unreadable."""
    handle, info = open_regular(path)
    chunks: list[bytes] = []
    total = 0
    with handle:
        try:
            while total <= limit:
                block = handle.read(min(_CHUNK, limit + 1 - total))
                if not block:
                    break
                chunks.append(block)
                total += len(block)
        except OSError as exc:
            raise TranscriptError(f"cannot read {path}: {_reason(exc)}") from exc
    if total > limit:
        raise TooLargeError(f"{path} is larger than {limit} bytes (harvest.max_line_bytes)")
    return b"".join(chunks), info


class BoundedLines:
    """The lines of an open file, within `limits`; `None` stands for an over-long line.

    Every byte read is passed to `feed` (a hash), over-long lines included, so a change
    anywhere in the file changes the hash. After iterating, `truncated` says the file was
    longer than `max_file_bytes` and `error` holds an I/O error that ended the read early.
    """

    def __init__(
        self,
        handle: BinaryIO,
        limits: ReadLimits,
        feed: Callable[[bytes], object] | None = None,
    ) -> None:
        self._handle = handle
        self._limits = limits
        self._feed = feed or (lambda _: None)
        self.bytes_read = 0
        self.truncated = False
        self.error: OSError | None = None
        self._capped = False

    def _read(self, size: int) -> bytes:
        raw = self._handle.readline(size)
        self.bytes_read += len(raw)
        self._feed(raw)
        return raw

    def _at_file_cap(self) -> bool:
        """True once `max_file_bytes` were read; notes whether anything was left unread."""
        if self.bytes_read < self._limits.max_file_bytes:
            return False
        if not self._capped:
            self._capped = True
            self.truncated = bool(self._handle.read(1))
        return True

    def _line(self, cap: int) -> tuple[bytearray, bool]:
        """Up to `cap` + 1 bytes of the next line, read in pieces (a line near the cap is
        held once, never copied whole), and whether it ended with its newline."""
        line = bytearray()
        while len(line) <= cap:
            remaining = self._limits.max_file_bytes - self.bytes_read
            if remaining <= 0:
                break
            piece = self._read(min(_CHUNK, cap + 1 - len(line), remaining))
            if not piece:
                break
            line += piece
            if piece.endswith(b"\n"):
                return line, True
        return line, False

    def __iter__(self) -> Iterator[bytearray | None]:
        cap = self._limits.max_line_bytes
        try:
            while not self._at_file_cap():
                line, complete = self._line(cap)
                if not line:
                    return
                if complete:
                    yield line
                elif len(line) > cap:
                    del line  # not kept while the rest streams by
                    yield from self._skip_rest()
                elif self._at_file_cap():
                    if not self.truncated:
                        yield line  # the file ends exactly at the cap
                    return
                else:
                    yield line  # the last line, without a newline
                    return
        except OSError as exc:
            self.error = exc

    def _skip_rest(self) -> Iterator[None]:
        """Stream past the rest of an over-long line, then stand in for it with None."""
        while not self._at_file_cap():
            remaining = self._limits.max_file_bytes - self.bytes_read
            raw = self._read(min(_CHUNK, remaining))
            if not raw or raw.endswith(b"\n"):
                break
        yield None


def decode_json(raw: bytes | bytearray | str) -> tuple[Any, str | None]:
    """The JSON value in `raw` and None, or None and the reason it is not usable JSON."""
    try:
        return json.loads(raw), None
    except RecursionError:
        return None, SKIP_TOO_DEEP
    except (ValueError, UnicodeDecodeError, TypeError):
        return None, SKIP_MALFORMED


def fingerprint(
    paths: Iterable[str | Path], *, extra: str = "", limits: ReadLimits = DEFAULT_LIMITS
) -> SourceInfo:
    """Content hash, total size and newest mtime of `paths` (unreadable ones are skipped).

    Parsers that already stream a file hash it as they read and do not call this; it is
    for callers that want the version of a source without parsing it.
    """
    digest = hashlib.sha256()
    size = 0
    mtime = 0.0
    names: list[str] = []
    for raw in paths:
        path = Path(raw)
        try:
            handle, info = open_regular(path)
        except TranscriptError:
            continue
        with handle:
            digest.update(str(path).encode() + b"\0")
            total = 0
            try:
                while total < limits.max_file_bytes:
                    block = handle.read(min(_CHUNK, limits.max_file_bytes - total))
                    if not block:
                        break
                    digest.update(block)
                    total += len(block)
            except OSError:
                pass
        names.append(str(path))
        size += info.st_size
        mtime = max(mtime, info.st_mtime)
    digest.update(extra.encode())
    return SourceInfo(paths=names, version=digest.hexdigest(), size=size, mtime=mtime)


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or exc.__class__.__name__
