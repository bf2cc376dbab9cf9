"""Text shown to people in one place: clipped with a mark, flattened to one line, control
characters made visible."""

from __future__ import annotations

import re

# What `nano_brain.redact` puts where a secret was (`[REDACTED:github_token]`). Spelled out
# here, not imported: this module is imported by the parsers and views, which need no rules.
_MARKER = "[REDACTED:"
_MARKER_MAX = 64
"""Longer than any marker (the longest kind is about 20 characters)."""


def _marker_around(text: str, pos: int) -> tuple[int, int] | None:
    """(start, end) of the redaction marker that a cut at `pos` would split, if any."""
    start = text.rfind(_MARKER, max(0, pos - _MARKER_MAX), pos + len(_MARKER) - 1)
    if start == -1 or start >= pos:
        return None
    close = text.find("]", start, start + _MARKER_MAX)
    if close == -1:  # no marker after all, or one already cut: never leave a piece of it
        return start, start
    return (start, close + 1) if close + 1 > pos else None


def marker_safe_end(text: str, end: int) -> int:
    """`end`, or the start of the redaction marker `text[:end]` would cut in two."""
    around = _marker_around(text, end)
    return end if around is None else around[0]


def marker_safe_start(text: str, start: int) -> int:
    """`start`, or the end of the redaction marker `text[start:]` would cut in two."""
    around = _marker_around(text, start)
    return start if around is None else max(start, around[1])


def body_under_title(content: str, title: str) -> str:
    """A note's text to quote under its title: without its first line when that line is the
    title (a heading said once), else whole. A title that only begins the text (the first 80
    characters of a long first line, or a given title the text starts with) must not cut the
    quote mid-sentence."""
    text = content.strip()
    first, _, rest = text.partition("\n")
    if " ".join(first.strip().lstrip("#").split()) == " ".join(title.split()):
        return rest.strip()
    return text


def clip(text: str, width: int) -> str:
    """`text` within `width` characters, a cut marked with an ellipsis.

    A redaction marker is kept whole or dropped, never cut: half a marker reads as garbage
    and no longer says what was removed.
    """
    if width <= 0:
        return ""
    if len(text) <= width:
        return text
    return text[: marker_safe_end(text, width - 1)].rstrip() + "…"


def one_line(text: str, width: int) -> str:
    """`text` with its whitespace runs (newlines included) as single spaces, clipped."""
    return clip(" ".join(text.split()), width)


# C0 controls but tab and newline, DEL, C1 controls, and the bidi embedding, override and
# isolate controls ("Trojan Source"): a terminal acts on these instead of showing them.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A carriage return ending a line moves the cursor nowhere a newline does not: CRLF stays,
# a lone CR (which lets text overwrite what was printed before it on the line) is shown.
_SHOWN = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What JSON text may still hold raw after json.dumps(ensure_ascii=False), which escapes C0
# controls only.
_JSON_RAW = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every control character a terminal would act on written as an escape
    (`\\x1b`, `\\x9b`, `\\u202e`); newlines, tabs and CRLF line ends are kept."""
    if _CONTROL.search(text) is None:
        return text  # the common case: nothing to replace, no copy
    return _SHOWN.sub(_escaped, text)


def json_visible(text: str) -> str:
    """JSON text from json.dumps with DEL, C1 and bidi controls escaped as \\uXXXX too.

    Structural JSON is ASCII, so these can only stand inside strings, where the escape means
    the same character: the text still parses to the same data.
    """
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# Inline Markdown a quoted text could use to become a link, an image, HTML or formatting:
# memory quotes commit messages and transcripts a stranger may have written (DESIGN.md 7).
_MARKDOWN = re.compile(r"([\\`*_\[\]<>~|])")


def md(text: str) -> str:
    """`text` as literal Markdown on one line: no links, HTML or emphasis it did not mean."""
    return _MARKDOWN.sub(r"\\\1", visible(" ".join(text.split())))


def code(text: str) -> str:
    """`text` as an inline code span that no backtick inside it can end early."""
    text = visible(" ".join(text.split()))
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"
