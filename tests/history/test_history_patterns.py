"""A configured ticket pattern that backtracks catastrophically cannot hang the history index:
each pattern runs with a time limit per commit message, and one that exceeds it is reported
and skipped for the rest of the run (issue 31: `^(a+)+$` kept `nano-brain index` at
"history" until killed)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.filters import Filters
from nano_brain.history import History

from .conftest import Repo

EVIL = "^(a+)+$"
#: Exponential in any backtracking engine: `regex` 2026.11 runs EVIL on 4,000 characters in
#: about 60 ms, under the time limit on a fast machine.
SLOWER = "^(a|aa)+$"
TICKET = r"\bNB-\d+\b"


def _brain(root: Path, db: Path, patterns: list[str]) -> Brain:
    overrides = {"embedding": {"provider": "none"}, "harvest": {"ticket_patterns": patterns}}
    return Brain(root, config=load_config(root, overrides=overrides), db_path=db)


def _tickets(brain: Brain) -> list[str]:
    docs = brain.list(Filters(kinds=("commit",)), limit=100)
    return sorted(t for d in docs for t in d.tags if t.startswith("ticket:"))


@pytest.mark.timeout(60)
def test_the_issue_pattern_and_commit_index_at_once(repo: Repo, db: Path) -> None:
    repo.commit("NB-1: first")
    repo.commit("a" * 40 + "!")
    with _brain(repo.path, db, [EVIL, TICKET]) as brain:
        started = time.perf_counter()
        report = History(brain).index()
        assert time.perf_counter() - started < 10
        assert (report.state, report.added) == ("indexed", 2)
        assert _tickets(brain) == ["ticket:NB-1"]


@pytest.mark.timeout(60)
def test_a_pattern_over_the_time_limit_is_reported_and_skipped(
    repo: Repo, db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    slow = "a" * 3999 + "!"  # backtracks for longer than any time limit
    # the history is read newest first: the oldest commit is read last
    repo.commit("a" * 20)  # the pattern would tag this one, but it is skipped by then
    repo.commit(slow + "\n\nagain")
    repo.commit("NB-2: between")
    repo.commit(slow)
    repo.commit("NB-1: first")
    with _brain(repo.path, db, [SLOWER, TICKET]) as brain, caplog.at_level(logging.WARNING):
        started = time.perf_counter()
        report = History(brain).index()
        assert time.perf_counter() - started < 10
        assert (report.state, report.added) == ("indexed", 5)
        assert _tickets(brain) == ["ticket:NB-1", "ticket:NB-2"]
    (error,) = report.errors
    assert repr(SLOWER) in error and "harvest.ticket_patterns" in error and "skipped" in error
    warned = [r.getMessage() for r in caplog.records if repr(SLOWER) in r.getMessage()]
    assert len(warned) == 1 and "commit message" in warned[0]
