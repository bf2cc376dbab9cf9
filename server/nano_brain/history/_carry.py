"""A file's symbols before a commit, carried back from its symbols after it through the diff.

The history is read newest first. The symbols of a file after a commit are known (the
version at HEAD is parsed once; a newer commit's "before" is this commit's "after"), and a
zero-context diff says exactly which lines the commit removed and added: a symbol whose
first and last lines the commit did not touch was the same symbol before it, its lines
shifted by the lines added and removed above it (``git log -L`` follows a range the same
way). The older version is parsed only where that is ambiguous:

- a symbol's first line is an added or changed line (a decorator, a rename: telling a
  rename from an addition needs the real old symbols), unless it is a Python definition
  line rewritten in place under the same name (a new signature: one removed definition
  line of that name in the same hunk);
- the removed lines may hold any other definition (a symbol removed or moved away), read
  from the diff's own removed lines with a cheap per-language test;
- the diff kept too many removed lines to test, or the file was deleted (nothing to carry).

A symbol wholly inside added lines did not exist before and is dropped (unless a definition
line of its name was removed in the same hunk: then it was rewritten, as above; a definition
removed anywhere else makes the file ambiguous). A symbol whose last line was added ends,
before, where the hunk's removed lines end (or where the insertion was made).
"""

from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence

from ._git import BlobReader, FileChange
from ._pool import ParsePool, parse_blob
from ._symbols import Span

Hunk = tuple[int, int, int, int]
#: A version of a file: (blob, language).
Key = tuple[str, str]
#: Spans kept for blobs seen (an LRU by total spans: about 200 bytes each).
MAX_CACHED_SPANS = 150_000

# Python: a def, class or decorator line at any depth, or a module-level assignment (the
# code index makes those symbols too).
_PYTHON_DEF = re.compile(
    rb"^[ \t]*(?:async[ \t]+def|def|class)\b|^[ \t]*@|^[A-Za-z_]\w*[ \t]*(?::|=(?!=))|^type\b",
    re.M,
)
_PYTHON_NAMED = re.compile(
    rb"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+(\w+)|^([A-Za-z_]\w*)[ \t]*(?::|=(?!=))"
)
# Other languages: a broad test (a false "may define" only costs a parse): definition
# keywords, modifiers, arrows, annotations, and any `name(...) {` or `Type name(` line.
_ANY_DEF = re.compile(
    rb"\b(?:function|class|def|fn|func|interface|struct|enum|impl|trait|module|mod|type|"
    rb"const|let|var|static|public|private|protected|internal|export|macro_rules|record)\b"
    rb"|=>|@\w|\w[ \t]*\([^)\n]*\)[ \t]*(?:\{|->|:|throws)|^[ \t]*[\w<>\[\],.?]+[ \t]+\w+[ \t]*\(",
    re.M,
)


def may_define(language: str, removed: bytes) -> bool:
    """Whether removed lines of a file in ``language`` may hold (part of) a definition."""
    pattern = _PYTHON_DEF if language == "python" else _ANY_DEF
    return pattern.search(removed) is not None


def carry_back(
    after: Sequence[Span], hunks: Sequence[Hunk], removed: bytes | None, language: str
) -> list[Span] | None:
    """The spans of the file before the change, from ``after`` and the change's hunks and
    removed lines; None when that is ambiguous (parse the older version instead)."""
    if removed is None:
        return None
    ordered = sorted(hunks, key=lambda h: h[2])
    redefined: dict[int, tuple[int, str]] = {}
    if removed and may_define(language, removed):
        found = _redefined(ordered, removed, language)
        if found is None:
            return None
        redefined = found
    # a hunk lies before new line n when its last new line (or, for a deletion, the line
    # it follows) is above n; `shift` is what the hunks before add to a new line number
    lasts = [c + d - 1 if d > 0 else c for _, _, c, d in ordered]
    shift = [0]
    for _, b, _, d in ordered:
        shift.append(shift[-1] + b - d)
    out: list[Span] = []
    dropped, used = False, set()
    for name, kind, start, end in after:
        i = bisect.bisect_left(lasts, start)
        old_start = start + shift[i]
        if i < len(ordered) and _holds(ordered[i], start):
            _, b, c, d = ordered[i]
            rewritten = redefined.get(i, (0, ""))[1] == _leaf(name) and i not in used
            if end <= c + d - 1 and not rewritten:
                # wholly written by this commit, and no definition line removed here that
                # it could be (one removed elsewhere, a move, is checked below): new
                dropped = True
                continue
            if not rewritten:
                return None  # its first line was written by this commit, not rewritten
            used.add(i)  # its definition line rewritten in place: a new signature
            old_start = redefined[i][0]
        j = bisect.bisect_left(lasts, end)
        if j < len(ordered) and _holds(ordered[j], end):
            a, b, _, _ = ordered[j]
            old_end = a + b - 1 if b > 0 else a
        else:
            old_end = end + shift[j]
        out.append((name, kind, old_start, max(old_start, old_end)))
    for k in redefined.keys() - used:
        # a definition line rewritten under a symbol that starts above it (at a decorator
        # the commit kept); any other was a symbol removed or renamed
        line, leaf = ordered[k][2], redefined[k][1]
        if not any(_leaf(n) == leaf and s < line <= e for n, _, s, e in after):
            return None
    if dropped and any("#" in s[0] for s in after):
        return None  # a same-named sibling went: the numbering of the rest may differ
    return out


def _redefined(
    ordered: Sequence[Hunk], removed: bytes, language: str
) -> dict[int, tuple[int, str]] | None:
    """Hunks (by index) whose removed lines hold one definition line, rewritten in place: its
    old line and name. None when removed lines may hold any other definition (a decorator,
    two definitions in one hunk, or another language than Python)."""
    lines = removed.split(b"\n")[:-1]
    if language != "python" or len(lines) != sum(h[1] for h in ordered):
        return None
    out: dict[int, tuple[int, str]] = {}
    pos = 0
    for k, (a, b, _, _) in enumerate(ordered):
        chunk, pos = lines[pos : pos + b], pos + b
        found = [(n, line) for n, line in enumerate(chunk) if _PYTHON_DEF.match(line)]
        if not found:
            continue
        named = _PYTHON_NAMED.match(found[0][1]) if len(found) == 1 else None
        if named is None:
            return None
        out[k] = (a + found[0][0], (named.group(1) or named.group(2)).decode("utf-8", "replace"))
    return out


def _leaf(name: str) -> str:
    return name.rsplit(".", 1)[-1].split("#", 1)[0]


def _holds(hunk: Hunk, line: int) -> bool:
    _, _, c, d = hunk
    return d > 0 and c <= line <= c + d - 1


class SpanSource:
    """The symbols of both sides of each changed file, read newest first: cached by blob,
    carried back where a diff allows, parsed where it does not. Counts what it did.

    A version of a file is read as the "before" of the commits that changed it and then as
    the "after" of the commit that made it, which comes later (children first): that last
    read drops it from the cache. A version not cached (the other side of a merge, which
    has no diff of its own) is carried back from the newest cached version of the same
    path through a diff of the two blobs (``diff``), before it is parsed.
    """

    def __init__(
        self,
        reader: BlobReader,
        diff: Callable[[str, str], FileChange] | None = None,
        max_spans: int = MAX_CACHED_SPANS,
        pool: ParsePool | None = None,
    ) -> None:
        self.reader = reader
        self.diff = diff
        self.pool = pool
        self.max_spans = max_spans
        self.parsed = 0
        self.carried = 0
        self._cache: OrderedDict[Key, list[Span] | None] = OrderedDict()
        self._held = 0
        self._latest: dict[str, Key] = {}
        """path -> its version cached last (one entry per path of the window)"""
        self._met: set[str] = set()
        """paths whose older versions commits read ahead will cache (for :meth:`expect`)"""

    def expect(self, change: FileChange, before_lang: str | None, after_lang: str | None) -> None:
        """A change read ahead: start parsing the versions it will surely need parsed (the
        first version met of a path, a side the diff cannot carry)."""
        if self.pool is None:
            return
        if change.new_blob and after_lang and change.new_path:
            if (
                change.new_path not in self._met
                and (change.new_blob, after_lang) not in self._cache
            ):
                self._submit(change.new_blob, change.new_path)
        if change.old_path:
            self._met.add(change.old_path)
        if change.old_blob and before_lang and not _carriable(change, before_lang, after_lang):
            self._submit(change.old_blob, change.old_path or "")

    def _submit(self, blob: str, path: str) -> None:
        assert self.pool is not None
        if self.pool.submit(blob, path):
            self.parsed += 1

    def sides(
        self, change: FileChange, before_lang: str | None, after_lang: str | None
    ) -> tuple[list[Span] | None, list[Span] | None]:
        """(before, after): no symbols for a side that does not exist (an added or deleted
        file), None for one that is not source code or could not be read or parsed."""
        after = self._after(change.new_blob, after_lang, change.new_path or "")
        if change.new_blob and after_lang:
            self._drop((change.new_blob, after_lang))  # read for the last time
        if change.new_blob and self.pool is not None:
            self.pool.forget(change.new_blob)
        if after is None or not change.old_blob:
            return ([] if not change.old_blob else None), after
        if before_lang is None:
            return None, after
        key = (change.old_blob, before_lang)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key], after
        carried = None
        if change.new_blob and before_lang == after_lang and change.status in ("M", "R"):
            carried = carry_back(after, change.hunks, _bytes(change.removed), before_lang)
        if carried is not None:
            self.carried += 1
        before = carried if carried is not None else self._parse(change.old_blob, change.old_path)
        self._keep(key, before, change.old_path or "")
        if self.pool is not None:
            self.pool.forget(change.old_blob)
        return before, after

    def texts(self, change: FileChange) -> tuple[bytes | None, bytes | None]:
        """The file's bytes before and after the change (read to pair renames)."""
        old, new = change.old_blob, change.new_blob
        return (self.reader.read(old) if old else None, self.reader.read(new) if new else None)

    def _after(self, blob: str | None, language: str | None, path: str) -> list[Span] | None:
        if not blob:
            return []
        if language is None:
            return None
        key = (blob, language)
        if key in self._cache:
            return self._cache[key]
        near = self._latest.get(path)
        known = self._cache.get(near) if near is not None else None
        if near is not None and known is not None and near[1] == language and self.diff:
            change = self.diff(blob, near[0])
            carried = carry_back(known, change.hunks, _bytes(change.removed), language)
            if carried is not None:
                self.carried += 1
                return carried
        return self._parse(blob, path)

    def _parse(self, blob: str, path: str | None) -> list[Span] | None:
        future = self.pool.take(blob) if self.pool is not None else None
        if future is not None and not future.cancelled():
            return future.result()
        self.parsed += 1
        return parse_blob(path or "", blob, self.reader)

    def _keep(self, key: Key, spans: list[Span] | None, path: str) -> None:
        self._drop(key)
        self._cache[key] = spans
        self._latest[path] = key
        self._held += len(spans or ()) + 1
        while self._held > self.max_spans and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._held -= len(old or ()) + 1

    def _drop(self, key: Key) -> None:
        if key in self._cache:
            self._held -= len(self._cache.pop(key) or ()) + 1


def _carriable(change: FileChange, before_lang: str, after_lang: str | None) -> bool:
    """Whether the change's diff may carry the symbols back (False: parse the old version)."""
    if change.status not in ("M", "R") or before_lang != after_lang or change.removed is None:
        return False
    removed = bytes(change.removed)
    if not removed or not may_define(before_lang, removed):
        return True
    return _redefined(sorted(change.hunks, key=lambda h: h[2]), removed, before_lang) is not None


def _bytes(removed: bytearray | None) -> bytes | None:
    return None if removed is None else bytes(removed)
