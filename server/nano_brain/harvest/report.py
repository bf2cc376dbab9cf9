"""What a harvest tick did: one item per session source, and the tick's report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..config import AgentName
from ._common import describe_skipped

Action = Literal[
    "added",
    "updated",
    "unchanged",
    "tombstoned",
    "other-workspace",
    "settling",
    "empty",
    "failed",
]
SKIPPED: tuple[Action, ...] = ("unchanged", "tombstoned", "other-workspace", "settling", "empty")


@dataclass(slots=True)
class HarvestItem:
    """What one tick did with one session source."""

    action: Action
    agent: AgentName
    source: str
    """The source key, also the stored summary's `source_path` and the tombstone key."""
    session_id: str | None = None
    doc_id: str | None = None
    version: int | None = None
    title: str | None = None
    summarizer: str | None = None
    error: str | None = None
    """Why it failed, or (with a digest fallback) why the configured summariser failed."""
    warnings: int = 0
    """Malformed lines or records skipped while parsing."""
    skipped: dict[str, int] | None = None
    """The skipped lines by reason (malformed, too-long, too-deep, ...), when any."""
    redactions: int = 0
    due_in_s: float | None = None
    """For "settling": seconds until the source counts as settled."""
    decisions: int | None = None
    """Decision and lesson notes this write added (see `decisions`)."""

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def describe_skipped(self) -> str:
        """`2 lines (1 malformed, 1 too-long)`, or "" when nothing was skipped."""
        return describe_skipped(self.skipped) if self.skipped else ""


@dataclass(slots=True)
class HarvestReport:
    items: list[HarvestItem] = field(default_factory=list)
    dry_run: bool = False
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    """What went wrong beside the sessions (a ticket pattern that timed out this tick)."""

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.items:
            counts[item.action] = counts.get(item.action, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def changed(self) -> list[HarvestItem]:
        """Items that wrote (or, in a dry run, would write) a summary."""
        return [i for i in self.items if i.action in ("added", "updated")]

    @property
    def warnings(self) -> int:
        """Transcript lines skipped (malformed, too long, ...) across the sessions read."""
        return sum(item.warnings for item in self.items)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "elapsed_s": round(self.elapsed_s, 4),
            "counts": self.counts(),
            "warnings": self.warnings,
            "errors": self.errors,
            "items": [i.to_dict() for i in self.items],
        }
