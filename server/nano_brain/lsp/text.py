"""Pure helpers between LSP positions/URIs and the code index's paths and symbols.

No server state here, so every function is unit-testable with plain values. LSP lines and
characters are 0-based; the code index's lines are 1-based. Characters are treated as code
points (exact for the ASCII identifiers hovers care about).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from pygls.uris import from_fs_path, to_fs_path

from ..codeindex import Symbol, language_for_path, parse_file

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def uri_to_path(uri: str) -> Path | None:
    """The filesystem path of a ``file:`` URI (None for other schemes)."""
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def path_to_uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def relative_to(root: Path, path: Path) -> str | None:
    """``path`` relative to ``root`` in POSIX form, as the code index names files."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def word_at(lines: Sequence[str], line: int, character: int) -> str | None:
    """The identifier under (or just before) the cursor, or None."""
    if not 0 <= line < len(lines):
        return None
    text = lines[line]
    for match in _IDENT.finditer(text):
        if match.start() <= character <= match.end():
            return match.group(0)
    return None


def slice_text(lines: Sequence[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    """The text between two (line, character) positions, end exclusive."""
    (sl, sc), (el, ec) = start, end
    if (el, ec) < (sl, sc) or not lines:
        return ""
    sl = max(0, min(sl, len(lines) - 1))
    el = max(0, min(el, len(lines) - 1))
    if sl == el:
        return lines[sl][sc:ec]
    parts = [lines[sl][sc:], *lines[sl + 1 : el], lines[el][:ec]]
    return "".join(p if p.endswith("\n") else p + "\n" for p in parts[:-1]) + parts[-1]


def parse_buffer(rel_path: str, source: str) -> list[Symbol]:
    """The symbols of an editor buffer, parsed as the index would parse the saved file.

    Parsing the buffer (not the file on disk) is what makes unsaved edits show anchored notes
    as possibly stale at once: the symbol's hash is compared to the anchored one.
    """
    if language_for_path(rel_path) is None:
        return []
    try:
        return list(parse_file(rel_path, source.encode("utf-8", "replace")).symbols)
    except Exception:  # an unparseable buffer has no symbols; never fail a request on it
        return []


def innermost(symbols: Iterable[Symbol], first_line: int, last_line: int) -> Symbol | None:
    """The smallest symbol whose 1-based line range covers ``first_line..last_line``."""
    covering = [s for s in symbols if s.start_line <= first_line and last_line <= s.end_line]
    return min(covering, key=lambda s: s.end_line - s.start_line, default=None)


def symbols_named(symbols: Iterable[Symbol], word: str, line: int) -> list[Symbol]:
    """Buffer symbols named ``word``: the one defined on ``line`` (1-based) first."""
    named = [s for s in symbols if s.name == word]
    named.sort(key=lambda s: (s.start_line != line, not (s.start_line <= line <= s.end_line)))
    return named
