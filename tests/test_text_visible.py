"""`visible` and `json_visible`: control characters shown, everything else untouched."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from nano_brain.text import json_visible, visible

# What a terminal acts on: C0 but tab and newline, DEL, C1, bidi embedding/override/isolate.
_ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROLS = st.sampled_from(
    [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F))]
    + [chr(c) for c in range(0x2066, 0x206A)]
)
_TEXT = st.text(st.characters(codec="utf-8") | _CONTROLS, max_size=80)


def test_each_kind_of_control_is_shown_as_an_escape() -> None:
    text = "a\x1b]0;t\x07\x1b[2J b\x9b31m c\u202eevil\u202c d\u2066x\u2069 e\x7f f\rg\x00"
    assert visible(text) == (
        "a\\x1b]0;t\\x07\\x1b[2J b\\x9b31m c\\u202eevil\\u202c d\\u2066x\\u2069 e\\x7f f\\x0dg\\x00"
    )
    assert visible("line one\r\nline\ttwo\n") == "line one\r\nline\ttwo\n"
    assert visible("naïve — 日本 \u200d ok") == "naïve — 日本 \u200d ok"


@given(_TEXT)
def test_nothing_a_terminal_acts_on_is_left(text: str) -> None:
    shown = visible(text)
    assert _ACTIVE.search(shown.replace("\r\n", "\n")) is None
    if _ACTIVE.search(text) is None:
        assert shown is text  # no control: the very same string, no copy


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
))  # fmt: skip
def test_json_stays_valid_and_round_trips_without_a_raw_control(data: object) -> None:
    for indent in (None, 2):
        text = json_visible(json.dumps(data, indent=indent, ensure_ascii=False))
        assert json.loads(text) == data
        assert _ACTIVE.search(text) is None and "\r" not in text
        assert visible(text) == text  # the CLI's output filter leaves JSON alone
