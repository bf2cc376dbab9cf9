"""Hunks onto symbols, against what was done to the file: random files of functions, random
edits (a body line changed, a function removed, renamed or added), hunks as a zero-context
diff gives them; the symbols reported are exactly the ones edited."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from nano_brain.history._symbols import changed_symbols, spans_of

ACTIONS = ("keep", "keep", "modify", "remove", "rename")


def _render(funcs: list[tuple[str, int, int]]) -> str:
    """Functions (name, unique id, version): every line names the id, so a diff aligns
    each function with itself."""
    out = []
    for name, fid, version in funcs:
        out += [f"def {name}(x):", f"    a{fid} = x + {fid}", f"    b{fid} = a{fid} * {version}",
                f"    return b{fid}", ""]  # fmt: skip
    return "\n".join(out) + "\n"


def _hunks(old: str, new: str) -> list[tuple[int, int, int, int]]:
    a, b = old.splitlines(), new.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append((i1 + 1 if i2 > i1 else i1, i2 - i1, j1 + 1 if j2 > j1 else j1, j2 - j1))
    return out


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(1, 8),
    actions=st.lists(st.sampled_from(ACTIONS), min_size=8, max_size=8),
    added=st.lists(st.integers(0, 8), max_size=3),
)
def test_reported_symbols_are_the_edited_ones(
    count: int, actions: list[str], added: list[int]
) -> None:
    before = [(f"f{i}", i, 1) for i in range(count)]
    after: list[tuple[str, int, int]] = []
    expected: dict[str, str] = {}
    renames: list[tuple[str, str]] = []
    for (name, fid, version), action in zip(before, actions, strict=False):
        if action == "keep":
            after.append((name, fid, version))
        elif action == "modify":
            after.append((name, fid, version + 1))
            expected[name] = "modified"
        elif action == "remove":
            expected[name] = "removed"
        else:
            after.append((f"renamed{fid}", fid, version))
            expected[f"renamed{fid}"] = "renamed"
            renames.append((name, f"renamed{fid}"))
    for k, where in enumerate(added):
        fid = 100 + k
        after.insert(min(where, len(after)), (f"new{fid}", fid, 1))
        expected[f"new{fid}"] = "added"
    old, new = _render(before), _render(after)
    found, renamed = changed_symbols(
        _hunks(old, new),
        spans_of("m.py", old.encode()),
        spans_of("m.py", new.encode()),
        lambda: (old.encode(), new.encode()),
    )
    assert dict(found) == expected
    assert renamed == sorted(renames)
