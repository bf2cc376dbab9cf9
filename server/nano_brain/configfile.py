"""Reading one config file: bounded in size and depth, YAML's safe loader without aliases.

`config.load_config` merges what these return; `read_config_file` is also what `nano-brain
config check` and the trust commands read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from .errors import InvalidInputError

MAX_CONFIG_BYTES = 1024 * 1024
"""A config file is read only up to this size; a larger one is ignored with a warning."""
_MAX_CONFIG_DEPTH = 64


class _ConfigLoader(yaml.SafeLoader):
    """YAML's safe loader, bounded: no aliases, no nesting beyond `_MAX_CONFIG_DEPTH`.

    A handful of aliases can stand for billions of nodes ("billion laughs"; merge keys even
    expand them while loading), and every deep level costs interpreter stack; a config file
    needs neither.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    # (types-PyYAML leaves Parser.peek_event unannotated: the ignores below are for that)
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, "aliases are not allowed here", mark)
        self._depth += 1
        try:
            if self._depth > _MAX_CONFIG_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(None, None, "nested too deep", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _read_bounded(path: Path) -> bytes | None:
    """The bytes of a regular file of at most MAX_CONFIG_BYTES; None when there is none.

    Raises OSError (with a reason) for anything else: a FIFO, a device, a huge file.
    Opened without blocking, and checked again after opening, so a FIFO swapped in
    between cannot hang the load.
    """
    try:
        before = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISDIR(before.st_mode):
        return None
    if not stat.S_ISREG(before.st_mode):
        raise OSError("not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise OSError(f"larger than {MAX_CONFIG_BYTES} bytes")
    return data


def read_yaml(path: Path, warnings: list[str]) -> tuple[dict[str, Any], bytes] | None:
    """The mapping a config file holds and the bytes it was parsed from; None when there is
    no usable file (a warning says why)."""
    try:
        raw = _read_bounded(path)
        if raw is None:
            return None
        data = yaml.load(raw.decode("utf-8"), Loader=_ConfigLoader)
    except Exception as exc:  # whatever the file holds, loading the config goes on
        warnings.append(f"{path}: cannot be read ({_why(exc)}); ignored")
        return None
    if data is None:
        return {}, raw
    if not isinstance(data, dict):
        warnings.append(f"{path}: top level must be a mapping; ignored")
        return None
    return data, raw


def read_config_file(path: Path) -> tuple[dict[str, Any], bytes] | None:
    """A config file's mapping and the bytes it came from; None when there is no file.

    Raises InvalidInputError for a file that cannot be used (unreadable, not YAML, too big).
    """
    problems: list[str] = []
    read = read_yaml(path, problems)
    if problems:
        raise InvalidInputError(problems[0])
    return read


def _why(exc: Exception) -> str:
    """`ScannerError: mapping values are not allowed here (line 3)`: one line, bounded."""
    detail = ""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        detail = exc.problem + (f" (line {mark.line + 1})" if mark is not None else "")
    elif isinstance(exc, OSError):
        detail = exc.strerror or (str(exc.args[0]) if exc.args else "")
    name = exc.__class__.__name__
    return f"{name}: {detail[:200]}" if detail else name
