"""JSON from a request body, its nesting bounded before it is parsed.

The standard library's parser recurses once per nesting level: ten thousand `[` in a body
smaller than any size cap end in a RecursionError (a 500 and a traceback in a server). A body
is therefore measured first, by a scan that does not recurse, and refused past `MAX_DEPTH`
levels; only then is it parsed. Size is bounded by the caller, as it reads the body.

The MCP HTTP and stdio transports parse with pydantic-core, which bounds its own recursion
(a parse error, -32700); they need no check of their own.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import InvalidInputError

MAX_DEPTH = 64
"""Nesting levels a body may have: a search, an action or a note's metadata needs a few."""

# A JSON string (escapes included), whose brackets are text, not structure.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPEN = frozenset(b"[{")


def deeper_than(data: bytes, limit: int) -> bool:
    """Whether JSON text `data` nests more than `limit` levels (linear, no recursion)."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False  # the common case: too few brackets to nest that deep
    brackets = _STRING.sub(b'""', data).translate(None, _NOT_BRACKETS)
    depth = 0
    for byte in brackets:
        if byte in _OPEN:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def loads(data: bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in `data` (UTF-8); InvalidInputError when it is not JSON or nests
    deeper than `max_depth` levels."""
    if deeper_than(data, max_depth):
        raise InvalidInputError(f"the JSON body is nested deeper than {max_depth} levels")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InvalidInputError("the body is not valid JSON") from None
