"""One-time codes: each trades once, before it expires; nothing else ever trades."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nano_brain.ui.session import CODE_TTL_SECONDS, MAX_OPEN_CODES, OneTimeCodes


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_works_once_and_not_after_it_expired() -> None:
    clock = Clock()
    codes = OneTimeCodes(clock=clock)
    first, second = codes.mint(), codes.mint()
    assert first != second and len(first) >= 32
    assert codes.redeem(first) and not codes.redeem(first)
    clock.now += CODE_TTL_SECONDS + 1
    assert not codes.redeem(second)


def test_only_the_newest_codes_stay_open() -> None:
    codes = OneTimeCodes()
    minted = [codes.mint() for _ in range(MAX_OPEN_CODES + 3)]
    assert not any(codes.redeem(c) for c in minted[:3])
    assert all(codes.redeem(c) for c in minted[3:])


@given(st.text(max_size=200))
def test_no_other_text_trades(guess: str) -> None:
    codes = OneTimeCodes()
    real = codes.mint()
    if guess != real:
        assert not codes.redeem(guess)
    assert codes.redeem(real)
