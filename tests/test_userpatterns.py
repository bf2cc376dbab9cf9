"""User-supplied patterns run with a time limit; the config accepts what the engine runs."""

from __future__ import annotations

import logging
import time

import pytest
from pydantic import ValidationError

from nano_brain.config import HarvestConfig
from nano_brain.userpatterns import UserPatterns, compile_pattern

EVIL = "^(a+)+$"
#: Exponential in any backtracking engine: `regex` 2026.11 runs EVIL on 4,000 characters in
#: about 60 ms, under the time limit on a fast machine.
SLOWER = "^(a|aa)+$"
#: Long enough that EVIL backtracks past any time limit (Python's `re` would never return).
SLOW_TEXT = "a" * 3999 + "!"


@pytest.mark.timeout(30)
def test_a_pattern_over_the_time_limit_is_reported_once_and_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    patterns = UserPatterns([SLOWER, r"\bNB-\d+\b"], time_limit_s=0.05)
    started = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="nano_brain.userpatterns"):
        assert patterns.matches(SLOW_TEXT + " NB-1", what="a commit message") == ["NB-1"]
        assert patterns.matches(SLOW_TEXT + " NB-2") == ["NB-2"]  # SLOWER is not run again
    assert time.perf_counter() - started < 5
    assert patterns.timed_out == [SLOWER]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert repr(SLOWER) in warnings[0] and "harvest.ticket_patterns" in warnings[0]
    assert "a commit message" in warnings[0]
    assert patterns.describe(SLOWER) in warnings[0]


@pytest.mark.timeout(30)
def test_the_issue_pattern_on_the_issue_text_returns_at_once() -> None:
    patterns = UserPatterns([EVIL])
    started = time.perf_counter()
    assert patterns.matches("a" * 40 + "!") == []
    assert patterns.matches("a" * 40) == ["a" * 40]
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?<=ticket[-: ]+)\d+",  # variable-width look-behind: Python's re refuses it
        r"\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b",
        r"\p{Lu}+-\d+",  # a Unicode property
    ],
)
def test_the_config_accepts_what_the_engine_runs(pattern: str) -> None:
    assert HarvestConfig(ticket_patterns=[pattern]).ticket_patterns == [pattern]
    compile_pattern(pattern)


@pytest.mark.parametrize("pattern", ["(unclosed", "a{2,1}", "*"])
def test_the_config_refuses_what_the_engine_cannot_compile(pattern: str) -> None:
    with pytest.raises(ValueError, match="invalid regex"):
        compile_pattern(pattern)
    with pytest.raises(ValidationError, match="invalid regex"):
        HarvestConfig(ticket_patterns=[pattern])
