"""Page sessions: a code trades once, before it expires, for a page token of its own; a code
presented twice ends the session it opened; nothing else ever trades."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nano_brain.ui.session import CODE_TTL_SECONDS, MAX_OPEN_CODES, MAX_SESSIONS, PageSessions


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_works_once_and_not_after_it_expired() -> None:
    clock = Clock()
    sessions = PageSessions(clock=clock)
    first, second = sessions.mint(), sessions.mint()
    assert first != second and len(first) >= 32
    opened = sessions.redeem(first)
    assert opened.outcome == "opened" and opened.token is not None
    assert len(opened.token) >= 43 and opened.token not in (first, second)
    assert sessions.valid(opened.token)
    clock.now += CODE_TTL_SECONDS + 1
    assert sessions.redeem(second).outcome == "refused"
    assert sessions.valid(opened.token)  # a session outlives its code


def test_each_code_opens_its_own_session_and_a_replay_ends_it() -> None:
    sessions = PageSessions()
    a, b = sessions.mint(), sessions.mint()
    token_a, token_b = sessions.redeem(a).token, sessions.redeem(b).token
    assert token_a and token_b and token_a != token_b
    replay = sessions.redeem(a)
    assert replay.outcome == "replayed" and replay.token is None
    assert not sessions.valid(token_a) and sessions.valid(token_b)
    assert sessions.redeem(a).outcome == "refused"  # told once; then it is just used


def test_only_the_newest_codes_and_sessions_stay_open() -> None:
    sessions = PageSessions()
    minted = [sessions.mint() for _ in range(MAX_OPEN_CODES + 3)]
    assert all(sessions.redeem(c).outcome == "refused" for c in minted[:3])
    tokens = [sessions.redeem(c).token for c in minted[3:]]
    tokens += [sessions.redeem(sessions.mint()).token for _ in range(MAX_SESSIONS)]
    assert all(isinstance(t, str) for t in tokens)
    live = [t for t in tokens if t is not None and sessions.valid(t)]
    assert live == tokens[-MAX_SESSIONS:]


@given(st.text(max_size=200))
def test_no_other_text_trades_or_passes_for_a_token(guess: str) -> None:
    sessions = PageSessions()
    real = sessions.mint()
    if guess != real:
        assert sessions.redeem(guess).outcome == "refused"
    assert not sessions.valid(guess)
    token = sessions.redeem(real).token
    assert token is not None and sessions.valid(token)
