"""The embedding progress a front end shows: counts, rate and estimate."""

from __future__ import annotations

from nano_brain.embedprogress import RateMeter, SpaceProgress


def test_progress_of_a_partly_embedded_space() -> None:
    progress = SpaceProgress("code", embedded=250, pending=750, rate=50.0)
    assert progress.total == 1000
    assert progress.fraction == 0.25
    assert not progress.complete
    assert progress.eta_s == 15.0
    assert progress.describe() == "code vectors: 250 of 1,000 (25%), about 15 s left"
    assert progress.to_dict()["eta_s"] == 15.0


def test_long_estimates_read_in_minutes_and_hours() -> None:
    assert "about 6 min left" in SpaceProgress("code", 0, 360 * 10, 10.0).describe()
    assert "about 2.0 h left" in SpaceProgress("text", 0, 7200, 1.0).describe()


def test_unknown_rate_gives_no_estimate_and_an_empty_space_is_complete() -> None:
    assert SpaceProgress("text", 5, 5).eta_s is None
    assert SpaceProgress("text", 5, 5).describe() == "text vectors: 5 of 10 (50%)"
    empty = SpaceProgress("code", 0, 0)
    assert empty.complete and empty.fraction == 1.0 and empty.eta_s == 0.0


def test_rate_meter_follows_recent_batches() -> None:
    meter = RateMeter()
    assert meter.rate() is None
    meter.record(32, 1.0)
    assert meter.rate() == 32.0
    meter.record(64, 1.0)  # a faster batch moves the mean toward it, not all the way
    rate = meter.rate()
    assert rate is not None and 32.0 < rate < 64.0
    meter.record(0, 1.0)  # an empty batch says nothing
    assert meter.rate() == rate
