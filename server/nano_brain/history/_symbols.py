"""Diff hunks onto symbols: which symbols a commit changed, and which it renamed.

Both sides of a changed file are parsed as they were (the blob before the commit and the blob
after it) with the code index's own parser. A symbol of the file after the commit is changed
when a hunk's added or changed lines fall inside it; a symbol of the file before is changed
when a hunk's removed lines fall inside it (this catches deletions, which add no line).
Symbols present before and not after, or after and not before, are paired as renames when
their text, with their own name taken out, is the same (or, for one pair left of a kind,
mostly the same); the rest are removed or added.
"""

from __future__ import annotations

import bisect
import difflib
import hashlib
from collections.abc import Callable, Sequence
from itertools import accumulate

from ..codeindex.parse import parse_spans

#: (local name, kind, first line, last line): ``Class.method``, not ``path::Class.method``.
Span = tuple[str, str, int, int]
#: A pair left unmatched by exact text is a rename when its lines are this similar.
_SIMILAR = 0.6
_MAX_FUZZY = 12


def spans_of(path: str, data: bytes) -> list[Span]:
    """The symbols of one version of a file (the code index's parser; errors tolerated)."""
    return parse_spans(path, data)


def _touched(spans: Sequence[Span], ranges: Sequence[tuple[int, int]]) -> list[str]:
    """The spans some range overlaps (ranges sorted once, each span found by bisection: a
    big file's thousands of symbols meet a commit's hundreds of hunks)."""
    if not ranges:
        return []
    ordered = sorted(ranges)
    reach = list(accumulate((hi for _, hi in ordered), max))  # the last line reached so far
    out: list[str] = []
    for name, _, start, end in spans:
        i = bisect.bisect_left(reach, start)  # the first range that reaches the span
        if i < len(ordered) and ordered[i][0] <= end:
            out.append(name)
    return out


def changed_symbols(
    hunks: Sequence[tuple[int, int, int, int]],
    before: Sequence[Span],
    after: Sequence[Span],
    texts: Callable[[], tuple[bytes | None, bytes | None]] | None = None,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(local name, how) for each symbol the hunks touched, and (old, new) local renames.

    ``how`` is ``added``, ``modified``, ``renamed`` (under its new name) or ``removed`` (under
    its old name). ``texts`` gives the file's bytes before and after, read only when symbols
    appeared and disappeared (to tell renames from additions and removals).
    """
    old_ranges = [(a, a + b - 1) for a, b, _, _ in hunks if b > 0]
    new_ranges = [(c, c + d - 1) for _, _, c, d in hunks if d > 0]
    old_names = {s[0] for s in before}
    new_names = {s[0] for s in after}
    gone = [s for s in before if s[0] not in new_names]
    came = [s for s in after if s[0] not in old_names]
    renames = _renames(gone, came, texts) if gone and came else {}
    renamed_to = set(renames.values())
    result: dict[str, str] = {}
    for name in _touched(after, new_ranges):
        if name in renamed_to:
            result[name] = "renamed"
        elif name not in old_names:
            result[name] = "added"
        else:
            result[name] = "modified"
    for name in renamed_to:
        result[name] = "renamed"
    removed: list[tuple[str, str]] = []
    for name in _touched(before, old_ranges):
        if name in new_names:
            result.setdefault(name, "modified")
        elif name not in renames:
            removed.append((name, "removed"))
    return [*result.items(), *removed], sorted(renames.items())


def _renames(
    gone: Sequence[Span],
    came: Sequence[Span],
    texts: Callable[[], tuple[bytes | None, bytes | None]] | None,
) -> dict[str, str]:
    if texts is None:
        return {}
    old_text, new_text = texts()
    if old_text is None or new_text is None:
        return {}
    old_lines = old_text.decode("utf-8", "replace").splitlines()
    new_lines = new_text.decode("utf-8", "replace").splitlines()

    def body(span: Span, lines: list[str]) -> list[str]:
        last = span[0].rsplit(".", 1)[-1]
        return [line.replace(last, "\x00") for line in lines[span[2] - 1 : span[3]]]

    def key(span: Span, lines: list[str]) -> tuple[str, str]:
        digest = hashlib.blake2b("\n".join(body(span, lines)).encode(), digest_size=12)
        return span[1], digest.hexdigest()

    by_key: dict[tuple[str, str], list[str]] = {}
    for span in gone:
        by_key.setdefault(key(span, old_lines), []).append(span[0])
    pairs: dict[str, str] = {}
    left: list[Span] = []
    for span in came:
        olds = by_key.get(key(span, new_lines))
        if olds:
            pairs[olds.pop(0)] = span[0]
        else:
            left.append(span)
    rest = [s for s in gone if s[0] not in pairs]
    if rest and left and len(rest) <= _MAX_FUZZY and len(left) <= _MAX_FUZZY:
        scored = []
        for old in rest:
            a = body(old, old_lines)
            for new in left:
                if new[1] != old[1]:
                    continue
                ratio = difflib.SequenceMatcher(None, a, body(new, new_lines)).ratio()
                if ratio >= _SIMILAR:
                    scored.append((ratio, old[0], new[0]))
        used_old: set[str] = set()
        used_new: set[str] = set()
        for _, old_name, new_name in sorted(scored, reverse=True):
            if old_name not in used_old and new_name not in used_new:
                pairs[old_name] = new_name
                used_old.add(old_name)
                used_new.add(new_name)
    return pairs
