"""A ticket pattern that backtracks catastrophically on a session's git branch cannot hang the
harvester: it runs with a time limit, is reported once and skipped from then on (issue 31)."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.harvest import HarvestConfig, Harvester, HarvestLocations

from ._layout import claude

EVIL = "^(a+)+$"
#: Exponential in any backtracking engine: `regex` 2026.11 runs EVIL on 4,000 characters in
#: about 60 ms, under the time limit on a fast machine.
SLOWER = "^(a|aa)+$"
TICKET = r"\bNB-\d+\b"


def _with_branch(home: HarvestLocations, workspace: Path, branch: str) -> None:
    main = claude(home, workspace)
    main.write_text(main.read_text().replace('"analytics-v2"', json.dumps(branch)))


@pytest.mark.timeout(60)
def test_the_issue_pattern_on_the_issue_branch_harvests_at_once(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _with_branch(home, workspace, "a" * 40 + "!")
    harvester = Harvester(hbrain, home, config=HarvestConfig(ticket_patterns=[EVIL]))
    started = time.perf_counter()
    report = harvester.run_once()
    assert time.perf_counter() - started < 10
    assert report.counts() == {"added": 1} and report.errors == []


@pytest.mark.timeout(60)
def test_a_pattern_over_the_time_limit_is_reported_and_skipped(
    hbrain: Brain, home: HarvestLocations, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _with_branch(home, workspace, "a" * 3999 + "! NB-7")  # backtracks past any time limit
    config = HarvestConfig(ticket_patterns=[SLOWER, TICKET])
    harvester = Harvester(hbrain, home, config=config)
    started = time.perf_counter()
    with caplog.at_level(logging.WARNING):
        report = harvester.run_once()
    assert time.perf_counter() - started < 10
    assert report.counts() == {"added": 1}
    (error,) = report.errors
    assert repr(SLOWER) in error and "skipped" in error
    assert report.to_dict()["errors"] == [error]
    doc = hbrain.get(f"#{report.items[0].doc_id}")
    assert "ticket:NB-7" in doc.tags  # the other pattern still ran
    warned = [r.getMessage() for r in caplog.records if repr(SLOWER) in r.getMessage()]
    assert len(warned) == 1 and "git branch" in warned[0]
