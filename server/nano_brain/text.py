"""Text shown to people in one place: clipped with a mark, flattened to one line."""

from __future__ import annotations


def clip(text: str, width: int) -> str:
    """`text` within `width` characters, a cut marked with an ellipsis."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def one_line(text: str, width: int) -> str:
    """`text` with its whitespace runs (newlines included) as single spaces, clipped."""
    return clip(" ".join(text.split()), width)
