"""Regular expressions a user configures (`harvest.ticket_patterns`), run with a time limit.

The pattern comes from a config file, the text it runs on from commit messages and branch
names that a stranger may have written: a pattern that backtracks catastrophically
(`^(a+)+$` on forty `a` and a `!`) would keep an index run busy for hours. The `regex`
engine takes a timeout per call (Python's `re` has none): a pattern that exceeds it is
reported once, a warning naming it, and not run again for the rest of the run.

The config compiles patterns with `compile_pattern` too, so what it accepts is what runs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import regex

log = logging.getLogger(__name__)

TIME_LIMIT_S = 0.1
"""Longest one pattern may search one text (a ticket pattern takes microseconds)."""


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """A user's pattern, compiled; ValueError naming it when it is no valid regex."""
    try:
        return regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError, ValueError) as exc:
        raise ValueError(f"invalid regex {pattern!r}: {exc}") from None


class UserPatterns:
    """One run's user patterns (an index pass, a harvester's life): searched with a time
    limit per text; a pattern that exceeds it is skipped from then on."""

    def __init__(
        self,
        patterns: Iterable[str],
        *,
        setting: str = "harvest.ticket_patterns",
        time_limit_s: float = TIME_LIMIT_S,
    ) -> None:
        self.setting = setting
        self.time_limit_s = time_limit_s
        self._live = {p: compile_pattern(p) for p in dict.fromkeys(patterns)}
        self.timed_out: list[str] = []
        """The patterns given up on, in the order they timed out."""

    def matches(self, text: str, *, what: str = "a text") -> list[str]:
        """The whole match of each pattern in `text`, pattern by pattern; `what` names the
        text for the warning (e.g. "a commit message")."""
        found: list[str] = []
        for pattern, compiled in list(self._live.items()):
            try:
                found += [m.group(0) for m in compiled.finditer(text, timeout=self.time_limit_s)]
            except TimeoutError:
                self._give_up(pattern, what)
        return found

    def describe(self, pattern: str) -> str:
        """One line for a report: which pattern timed out, and what was done."""
        return (
            f"{self.setting}: {pattern!r} took over {self.time_limit_s * 1000:g} ms on one "
            "text (catastrophic backtracking?) and was skipped for the rest of the run"
        )

    def _give_up(self, pattern: str, what: str) -> None:
        del self._live[pattern]
        self.timed_out.append(pattern)
        log.warning("%s (on %s)", self.describe(pattern), what)
