"""One clip rule for everything shown: within the width, one line, a cut marked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nano_brain.text import clip, one_line


@given(st.text(), st.integers(min_value=0, max_value=300))
def test_one_line_is_one_line_within_the_width(text: str, width: int) -> None:
    shown = one_line(text, width)
    assert len(shown) <= width
    assert not any(ch.isspace() and ch != " " for ch in shown)
    flat = " ".join(text.split())
    if len(flat) <= width:
        assert shown == flat
    elif width == 0:
        assert shown == ""
    else:
        assert shown.endswith("…") and flat.startswith(shown[:-1])


def test_clip_marks_the_cut_and_keeps_short_text() -> None:
    assert clip("refund policy", 20) == "refund policy"
    assert clip("refund policy", 7) == "refund…"
    assert clip("refund policy", 0) == ""
