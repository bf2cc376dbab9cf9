import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nano_brain.errors import InvalidInputError
from nano_brain.timeutil import MAX_EPOCH, MIN_EPOCH, iso, parse_duration, parse_instant


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("99999999999d", "longer than 9999 years"),
        ("10000y", "before year 1"),
        ("0001-01-01T00:00:00+01:00", "before year 1"),
        ("9999-12-31T23:59:59-01:00", "after year 9999"),
        ("7" * 65 + "d", "over the 64 limit"),
        ("\u0667d", "invalid time"),  # an Arabic-Indic seven is no ASCII digit
        ("1e3d", "invalid time"),
        ("nan", "invalid time"),
    ],
)
def test_times_outside_years_1_to_9999_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_instant(text, now=1_714_564_800)


def test_the_bounds_themselves_parse_and_print_back() -> None:
    first = parse_instant("0001-01-01T00:00:00Z")
    last = parse_instant("9999-12-31T23:59:59Z")
    assert iso(first) == "0001-01-01T00:00:00Z" and iso(last) == "9999-12-31T23:59:59Z"
    # The longest duration that still lands after year 1, from the far end of the range.
    assert iso(parse_instant("9998y", now=last)) is not None


def test_durations_are_bounded_too() -> None:
    assert parse_duration("9998y") == 9998 * 365 * 86400
    with pytest.raises(InvalidInputError, match="longer than 9999 years"):
        parse_duration("99999999999d")
    with pytest.raises(InvalidInputError, match="invalid duration"):
        parse_duration(7)  # type: ignore[arg-type]


@settings(max_examples=400, derandomize=True)
@given(st.text(max_size=70))
def test_any_text_is_an_instant_in_range_or_one_clear_error(text: str) -> None:
    try:
        epoch = parse_instant(text, now=1_714_564_800)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
        return
    assert MIN_EPOCH <= epoch <= MAX_EPOCH
    assert iso(epoch)
