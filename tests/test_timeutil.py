import pytest

from nano_brain.errors import InvalidInputError
from nano_brain.timeutil import iso, parse_duration, parse_instant


@pytest.mark.parametrize(
    "text,seconds", [("7d", 604800), ("2w", 1209600), ("24h", 86400), ("90s", 90)]
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


def test_instants() -> None:
    assert parse_instant("2024-05-01T12:00:00Z") == 1714564800
    assert parse_instant("2024-05-01") == 1714521600
    assert parse_instant("7d", now=1_000_000) == 1_000_000 - 604800
    assert iso(1714564800) == "2024-05-01T12:00:00Z"


@pytest.mark.parametrize("bad", ["banana", "7x", "2024-13-45", ""])
def test_bad_times_raise_clear_errors(bad: str) -> None:
    with pytest.raises(InvalidInputError, match="invalid time"):
        parse_instant(bad)
