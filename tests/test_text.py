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


def test_a_clip_never_cuts_through_a_redaction_marker() -> None:
    text = "My key is [REDACTED:openai_key] and more words after it"
    start = text.index("[")
    end = text.index("]") + 1
    for width in range(start + 2, end + 1):  # every cut that would fall inside the marker
        assert clip(text, width) == "My key is…", width
    assert clip(text, end + 1) == text[:end] + "…"
    assert one_line("a\n[REDACTED:github_token] b", 10) == "a…"
