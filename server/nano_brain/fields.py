"""The rules for the fields every front end accepts: tags, collection names, titles, source
paths and metadata.

Brain applies them on every write, so the CLI, MCP, the editor and the harvester get the same
answer. The MCP input models publish the same patterns and bounds in their JSON schemas
(`TAG_PATTERN`, `COLLECTION_PATTERN`, ...), so a rule is written here once.

Two kinds of text: a *one-line* field (title, tag, collection, source path, metadata key)
holds no control character at all; *free-form* text (metadata string values) may hold tab,
newline and carriage return but no other C0 control. Neither may hold a lone surrogate (it
cannot be stored as UTF-8).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, cast

from .errors import InvalidInputError
from .text import clip

# Patterns are written for three regex engines at once (Python's re here, pydantic's Rust
# regex in the MCP models, ECMAScript in a client reading the JSON schema): plain classes,
# \xHH and \uHHHH escapes only. U+FEFF is named because ECMAScript's \s includes it and
# Python's does not.
_CONTROLS = r"\x00-\x1f\x7f-\x9f"
_FREE_CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f"

MAX_TAG_CHARS = 64
_TAG_BODY = rf"[^\s,{_CONTROLS}\ufeff]{{1,{MAX_TAG_CHARS}}}"
TAG_PATTERN = rf"^{_TAG_BODY}$"
TAG_RULE = f"1-{MAX_TAG_CHARS} characters, no spaces, commas or control characters"

_COLLECTION_BODY = r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}"
COLLECTION_PATTERN = rf"^{_COLLECTION_BODY}$"
COLLECTION_RULE = "letters, digits and _ . : / - (max 64), starting with a letter or digit"

_ONE_LINE_BODY = rf"[^{_CONTROLS}]*"
ONE_LINE_PATTERN = rf"^{_ONE_LINE_BODY}$"
"""Text without control characters (titles, source paths, ids, metadata keys)."""
_FREE_TEXT_BODY = rf"[^{_FREE_CONTROLS}]*"
FREE_TEXT_PATTERN = rf"^{_FREE_TEXT_BODY}$"
"""Text that may span lines (tab, LF, CR) but holds no other C0 control."""

PATTERN_RULES = {
    TAG_PATTERN: TAG_RULE,
    COLLECTION_PATTERN: COLLECTION_RULE,
    ONE_LINE_PATTERN: "one line without control characters",
    FREE_TEXT_PATTERN: "no control characters other than tab and line breaks",
}
"""What each pattern means, for error messages (a regex is no explanation)."""

MAX_TITLE_CHARS = 200
MAX_SOURCE_PATH_CHARS = 4096
MAX_METADATA_KEY_CHARS = 256
MAX_METADATA_DEPTH = 16
MAX_METADATA_ITEMS = 10_000
"""Keys and list items in one metadata object, all levels together."""
_INT64 = 2**63

_BOM = "\ufeff"
_TAG = re.compile(_TAG_BODY)
_COLLECTION = re.compile(_COLLECTION_BODY)
_ONE_LINE = re.compile(_ONE_LINE_BODY)
_FREE_TEXT = re.compile(_FREE_TEXT_BODY)


def strip_bom(text: str) -> str:
    """`text` without a leading UTF-8 byte order mark (editors on Windows add one)."""
    return text[1:] if text.startswith(_BOM) else text


def is_tag(text: str) -> bool:
    """True when `text` is a valid tag as it stands (no trimming)."""
    return isinstance(text, str) and _TAG.fullmatch(text) is not None


def clean_tag(tag: object) -> str:
    """A tag trimmed of surrounding spaces; InvalidInputError when it breaks the tag rule."""
    if not isinstance(tag, str):
        raise InvalidInputError(f"tag {_shown(tag)} is not text")
    cleaned = tag.strip()
    if not is_tag(cleaned):
        raise InvalidInputError(f"invalid tag {_shown(tag)}: {TAG_RULE}")
    return cleaned


def clean_tags(tags: Iterable[object]) -> list[str]:
    """Every tag cleaned, duplicates dropped, first-seen order kept."""
    if isinstance(tags, str):  # a lone string would otherwise become one tag per character
        raise InvalidInputError("tags must be a list of strings, not one string")
    return list(dict.fromkeys(clean_tag(tag) for tag in tags))


def check_collection(name: object) -> str:
    if not isinstance(name, str) or _COLLECTION.fullmatch(name) is None:
        raise InvalidInputError(f"invalid collection {_shown(name)}: {COLLECTION_RULE}")
    return name


def clean_title(title: object) -> str | None:
    """A caller's title without BOM and surrounding spaces; None when nothing is left."""
    if title is None:
        return None
    if not isinstance(title, str):
        raise InvalidInputError("title must be text")
    cleaned = strip_bom(title).strip()
    _check_one_line("title", cleaned, MAX_TITLE_CHARS)
    return cleaned or None


def check_source_path(path: object) -> str | None:
    """A source path as given (it is a key: never trimmed); None for none or empty."""
    if path is None or path == "":
        return None
    if not isinstance(path, str):
        raise InvalidInputError("source_path must be text")
    if not path.strip():
        raise InvalidInputError("source_path is blank")
    _check_one_line("source_path", path, MAX_SOURCE_PATH_CHARS)
    return path


def check_metadata(metadata: object) -> dict[str, Any]:
    """A JSON object of bounded size: text keys, finite numbers, text without NUL."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError("metadata must be a JSON object")
    budget = [MAX_METADATA_ITEMS]
    # a Mapping comes back as a dict
    return cast("dict[str, Any]", _check_value(metadata, "metadata", 0, budget))


def _check_value(value: object, where: str, depth: int, budget: list[int]) -> Any:
    if depth > MAX_METADATA_DEPTH:
        raise InvalidInputError(f"{where}: nested deeper than {MAX_METADATA_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise InvalidInputError(f"{where}: integer out of the 64-bit range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{where}: numbers must be finite (no NaN or Infinity)")
        return value
    if isinstance(value, str):
        if _FREE_TEXT.fullmatch(value) is None:
            raise InvalidInputError(f"{where}: text holds a control character such as NUL")
        _check_encodable(where, value)
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            _spend(budget, where)
            if not isinstance(key, str):
                raise InvalidInputError(f"{where}: keys must be text")
            _check_one_line(f"{where} key", key, MAX_METADATA_KEY_CHARS, allow_empty=False)
            out[key] = _check_value(item, f"{where}.{clip(key, 40)}", depth + 1, budget)
        return out
    if isinstance(value, list | tuple):
        items = []
        for i, item in enumerate(value):
            _spend(budget, where)
            items.append(_check_value(item, f"{where}[{i}]", depth + 1, budget))
        return items
    raise InvalidInputError(f"{where}: {type(value).__name__} is not a JSON value")


def _spend(budget: list[int], where: str) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidInputError(f"{where}: more than {MAX_METADATA_ITEMS} keys and items")


def _check_one_line(what: str, text: str, limit: int, *, allow_empty: bool = True) -> None:
    if len(text) > limit:
        raise InvalidInputError(f"{what} is {len(text)} characters, over the {limit} limit")
    if not text and not allow_empty:
        raise InvalidInputError(f"{what} is empty")
    if _ONE_LINE.fullmatch(text) is None:
        raise InvalidInputError(f"{what} {_shown(text)} holds a control character (one line)")
    _check_encodable(what, text)


def _check_encodable(what: str, text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(f"{what} is not valid Unicode (lone surrogate)") from None


def _shown(value: object) -> str:
    """A value for an error message: repr (control characters escaped), bounded."""
    return clip(repr(value), 80)
