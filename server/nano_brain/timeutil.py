"""Time parsing shared by config and filters: durations (`7d`) and RFC 3339 instants.

Every instant is bounded to years 1-9999 (what `datetime` can show), so a parsed time can
always be printed back and compared; anything outside is a clear error, not an overflow later.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime

from .errors import InvalidInputError

_DURATION = re.compile(r"^\s*([0-9]{1,12}(?:\.[0-9]{1,9})?)\s*(s|m|h|d|w|y)\s*$", re.I | re.A)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
MAX_TIME_CHARS = 64
"""Longer text is no time anyone means; refused before it is parsed."""
MIN_EPOCH = datetime(1, 1, 1, tzinfo=UTC).timestamp()
MAX_EPOCH = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp()
MAX_DURATION = MAX_EPOCH - MIN_EPOCH
"""The longest span between two instants that can be shown (about 9999 years)."""


def parse_duration(text: str) -> float:
    """Seconds in a duration such as `90s`, `30m`, `24h`, `7d`, `2w`, `1y`."""
    value = _bounded(text, "duration")
    match = _DURATION.match(value)
    if not match:
        raise InvalidInputError(
            f"invalid duration {value!r}: expected a number and a unit (s, m, h, d, w, y), e.g. 7d"
        )
    seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
    if seconds > MAX_DURATION:
        raise InvalidInputError(f"invalid duration {value!r}: longer than 9999 years")
    return seconds


def parse_instant(text: str, *, now: float | None = None, upper: bool = False) -> float:
    """Epoch seconds of an RFC 3339 time, a date, or a duration ago (`7d` = seven days ago).

    A bare date is a whole day, in UTC: its first instant, or with `upper` (the text bounds a
    range from above: `created_before`, `updated_before`, `as_of`) its last, so that
    "before 2026-12-03" and "as of 2026-12-03" include what was written that day. A time
    without a zone is UTC too.
    """
    value = _bounded(text, "time").strip()
    if _DURATION.match(value):
        epoch = (time.time() if now is None else now) - parse_duration(value)
    else:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise InvalidInputError(
                f"invalid time {value!r}: expected RFC 3339 (2024-05-01T12:00:00Z), "
                "a date (2024-05-01) or a duration ago (7d, 2w, 24h)"
            ) from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        epoch = parsed.timestamp()
        if upper and _is_date(value):
            epoch = min(epoch + _LAST_OF_DAY, MAX_EPOCH)
    if not MIN_EPOCH <= epoch <= MAX_EPOCH:
        raise InvalidInputError(f"invalid time {value!r}: before year 1 or after year 9999 (UTC)")
    return epoch


#: From a day's first instant to its last (the store keeps microseconds).
_LAST_OF_DAY = 86400 - 1e-6
#: Words for `--help` and the MCP schema: what a bare date means as each kind of bound.
LOWER_BOUND_HELP = "a bare date means the start of that day (UTC)"
UPPER_BOUND_HELP = "a bare date means the end of that day (UTC)"


def _is_date(value: str) -> bool:
    """True for a date without a time of day (2026-12-03, 20261203)."""
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def iso(epoch: float | None) -> str | None:
    """RFC 3339 UTC text for epoch seconds."""
    if epoch is None:
        return None
    return (
        datetime.fromtimestamp(epoch, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def _bounded(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid {what} {text!r}: expected text such as 7d")
    if len(text) > MAX_TIME_CHARS:
        raise InvalidInputError(
            f"invalid {what}: {len(text)} characters, over the {MAX_TIME_CHARS} limit"
        )
    return text
