"""`jsonlimits`: nesting measured without recursion, exactly, brackets in strings ignored."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nano_brain.errors import InvalidInputError
from nano_brain.jsonlimits import MAX_DEPTH, deeper_than, loads

VALUES = st.recursive(
    st.none() | st.integers() | st.text(alphabet=st.sampled_from('[]{}"\\ab\n'), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=30,
)  # fmt: skip


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@given(VALUES, st.integers(min_value=0, max_value=12))
def test_the_measured_depth_is_the_real_one(value: object, limit: int) -> None:
    data = json.dumps(value).encode()
    assert deeper_than(data, limit) == (_depth(value) > limit)


def test_deep_bodies_are_refused_before_parsing_and_others_parse() -> None:
    for deep in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000):
        with pytest.raises(InvalidInputError, match=f"deeper than {MAX_DEPTH} levels"):
            loads(deep)
    edge = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert _depth(loads(edge)) == MAX_DEPTH
    assert loads(json.dumps({"q": "[" * 10_000}).encode()) == {"q": "[" * 10_000}
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        loads(b"{")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        loads(b"\xff")
