"""A file's type in words, for the messages that refuse what is not a regular file."""

from __future__ import annotations

import stat
from collections.abc import Callable

_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What `mode` (an `st_mode`) says the file is: "a FIFO", "a directory", ..."""
    return next((name for test, name in _KINDS if test(mode)), "a special file")
