"""How far a workspace's embedding is, and about how long the rest will take.

The embedder measures its own rate (texts per second over its recent batches); the counts
come from the store. Front ends show :meth:`SpaceProgress.describe` (the CLI's status and
index lines, the editor's progress, a search made while vectors are still missing).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .store.spaces import Space

#: The rate follows recent batches: a batch's weight in the running mean.
_WEIGHT = 0.2
#: A rate measured longer ago than this says nothing about now (the worker was idle).
_STALE_S = 300.0


@dataclass(frozen=True, slots=True)
class SpaceProgress:
    """One embedding space: chunks with a vector, chunks waiting, and the recent rate."""

    space: Space
    embedded: int
    pending: int
    rate: float | None = None
    """Texts embedded per second lately; None before the first measured batch."""

    @property
    def total(self) -> int:
        return self.embedded + self.pending

    @property
    def complete(self) -> bool:
        return self.pending == 0

    @property
    def fraction(self) -> float:
        """The share of the space's chunks that have a vector (1.0 for an empty space)."""
        return self.embedded / self.total if self.total else 1.0

    @property
    def eta_s(self) -> float | None:
        """Seconds until every waiting chunk has a vector at the recent rate; None unknown."""
        if not self.pending:
            return 0.0
        return self.pending / self.rate if self.rate else None

    def describe(self) -> str:
        """One line, e.g. ``code vectors: 12,345 of 42,092 (29%), about 6 min left``."""
        if self.complete:
            return f"{self.space} vectors: all {self.total:,}"
        line = (
            f"{self.space} vectors: {self.embedded:,} of {self.total:,} "
            f"({int(self.fraction * 100)}%)"
        )
        left = self.estimate()
        return f"{line}, {left}" if left else line

    def estimate(self) -> str | None:
        """``about 6 min left`` (``done`` when nothing waits); None before a rate is known."""
        eta = self.eta_s
        if eta is None:
            return None
        return f"{_duration(eta)} left" if self.pending else "done"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpaceProgress:
        """Back from `to_dict` (a front end that was handed a status as JSON)."""
        return cls(data["space"], data["embedded"], data["pending"], data["rate_per_s"])

    def to_dict(self) -> dict[str, object]:
        eta = self.eta_s
        return {
            "space": self.space,
            "embedded": self.embedded,
            "pending": self.pending,
            "fraction": round(self.fraction, 4),
            "rate_per_s": round(self.rate, 2) if self.rate else None,
            "eta_s": round(eta, 1) if eta is not None else None,
        }


class RateMeter:
    """Texts per second over recent batches (thread-safe; one per space)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rate: float | None = None
        self._at = 0.0

    def record(self, texts: int, seconds: float) -> None:
        """One batch: ``texts`` embedded in ``seconds`` of wall time."""
        if texts <= 0 or seconds <= 0:
            return
        sample = texts / seconds
        with self._lock:
            now = time.monotonic()
            fresh = self._rate is not None and now - self._at < _STALE_S
            self._rate = sample if not fresh else _WEIGHT * sample + (1 - _WEIGHT) * self._rate  # type: ignore[operator]
            self._at = now

    def rate(self) -> float | None:
        with self._lock:
            if self._rate is None or time.monotonic() - self._at >= _STALE_S:
                return None
            return self._rate


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h"
