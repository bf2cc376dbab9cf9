"""Watch mode: real watchdog events on the agents' folders drive harvest ticks."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.harvest import HarvestConfig, Harvester, HarvestLocations, HarvestReport

from . import _layout

WAIT_S = 20.0


class Watching:
    def __init__(self, harvester: Harvester) -> None:
        self.reports: queue.Queue[HarvestReport] = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=harvester.watch,
            kwargs={"stop": self.stop, "on_report": self.reports.put},
            daemon=True,
        )

    def until(self, predicate, what: str) -> HarvestReport:  # type: ignore[no-untyped-def]
        """The first report that satisfies `predicate`, within a bounded wait."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            try:
                report = self.reports.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if predicate(report):
                return report
        raise AssertionError(f"no harvest tick {what} within {WAIT_S}s")


@pytest.fixture
def watching(hbrain: Brain, home: HarvestLocations) -> Iterator[Watching]:
    home.claude_projects.mkdir(parents=True)
    config = HarvestConfig(debounce_s=0.2, settle_s=0.6, rescan_s=3600)
    watch = Watching(Harvester(hbrain, home, config=config))
    yield watch
    watch.stop.set()
    watch.thread.join(timeout=10)
    assert not watch.thread.is_alive(), "watch() did not return after stop"


def test_watch_harvests_new_and_grown_transcripts(
    watching: Watching, hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _layout.gemini(home, workspace)
    time.sleep(0.7)  # older than settle_s: harvested by the first tick
    watching.thread.start()
    first = watching.until(lambda r: r.items, "at start")
    assert first.counts() == {"added": 1}

    main = _layout.claude(home, workspace)  # a new project folder and session appear
    added = watching.until(lambda r: any(i.agent == "claude-code" for i in r.changed), "new")
    assert [i.action for i in added.changed] == ["added"]

    _layout.append_claude_turn(main, workspace, "now add tests", "Tests added.")
    updated = watching.until(lambda r: r.counts().get("updated"), "grown")
    assert updated.changed[0].version == 2
    doc = hbrain.get(f"#{updated.changed[0].doc_id}")
    assert "now add tests" in (doc.content or "")


def test_watch_holds_back_a_session_until_it_settles(
    watching: Watching, home: HarvestLocations, workspace: Path
) -> None:
    watching.thread.start()
    watching.until(lambda r: True, "at start")
    started = time.monotonic()
    _layout.claude(home, workspace)
    settling = watching.until(lambda r: r.counts().get("settling"), "settling")
    assert settling.items[0].due_in_s is not None
    watching.until(lambda r: r.counts().get("added"), "after settling")
    assert time.monotonic() - started >= 0.6


def test_watch_says_what_it_waits_for(
    watching: Watching,
    home: HarvestLocations,
    workspace: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="nano_brain.harvest"):
        watching.thread.start()
        watching.until(lambda r: True, "at start")
        _layout.claude(home, workspace)
        watching.until(lambda r: r.counts().get("added"), "after settling")
    lines = [r.getMessage() for r in caplog.records]
    waits = [line for line in lines if line.startswith("waiting for")]
    assert len(waits) == 1, lines  # said once, not on every tick while it waits
    assert waits[0].startswith("waiting for 1 session still being written to be quiet for 0.6s")
    assert waits[0].endswith("claude-code 4c2ddfdc-b619-4525-8d03-1950fb1b0257")
    assert any(line.startswith("watching ") and "settle 0.6s" in line for line in lines)
