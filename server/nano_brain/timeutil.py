"""Time parsing shared by config and filters: durations (`7d`) and RFC 3339 instants."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from .errors import InvalidInputError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w|y)\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


def parse_duration(text: str) -> float:
    """Seconds in a duration such as `90s`, `30m`, `24h`, `7d`, `2w`, `1y`."""
    match = _DURATION.match(str(text))
    if not match:
        raise InvalidInputError(
            f"invalid duration {text!r}: expected a number and a unit (s, m, h, d, w, y), e.g. 7d"
        )
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]


def parse_instant(text: str, *, now: float | None = None) -> float:
    """Epoch seconds of an RFC 3339 time, a date, or a duration ago (`7d` = seven days ago)."""
    value = str(text).strip()
    if _DURATION.match(value):
        return (time.time() if now is None else now) - parse_duration(value)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidInputError(
            f"invalid time {text!r}: expected RFC 3339 (2024-05-01T12:00:00Z), "
            "a date (2024-05-01) or a duration ago (7d, 2w, 24h)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def iso(epoch: float | None) -> str | None:
    """RFC 3339 UTC text for epoch seconds."""
    if epoch is None:
        return None
    return (
        datetime.fromtimestamp(epoch, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )
