"""The filters every read path accepts; one object, applied by every leg and every retry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["note", "session", "code", "commit"]
KINDS: tuple[Kind, ...] = ("note", "session", "code", "commit")
DEFAULT_KINDS: tuple[Kind, ...] = ("note", "session", "code")
"""What a read returns when it names no kind: commits are many (thousands for a repository's
history) and are read when asked for, or through the history leg of a search."""
Status = Literal["active", "superseded", "retracted", "unreviewed"]
STATUSES: tuple[Status, ...] = ("active", "superseded", "retracted", "unreviewed")
DEFAULT_STATUSES: tuple[Status, ...] = ("active", "unreviewed")
"""What a read returns when it names no status: never superseded or retracted documents."""
DECISION_COLLECTION = "decisions"
DECISION_TAGS: tuple[str, ...] = ("decision", "auto:architecture-decision")
"""A person's tag, and the category the automatic tagger gives architecture decisions."""


def is_decision(collection: str, tags: Iterable[str]) -> bool:
    """The one rule for what a decision is (the store's SQL for it uses the same constants):
    a document in the decisions collection or tagged as one."""
    return collection == DECISION_COLLECTION or any(t in DECISION_TAGS for t in tags)


class Filters(BaseModel):
    """Restrictions on which documents a query may return (times are epoch seconds)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    collections: tuple[str, ...] = ()
    tags: tuple[str, ...] = Field((), description="every tag listed must be on the document")
    kinds: tuple[Kind, ...] = ()
    created_after: float | None = None
    created_before: float | None = None
    updated_after: float | None = None
    updated_before: float | None = None
    statuses: tuple[Status, ...] = ()
    """Only these statuses; empty means DEFAULT_STATUSES (plus superseded if included)."""
    include_superseded: bool = False
    as_of: float | None = None
    """Read the store as it was at this time: the versions then in force, their status then."""

    def has_user_filters(self) -> bool:
        """True when anything beyond the default visibility restricts the documents."""
        return bool(
            self.collections
            or self.tags
            or self.kinds
            or self.statuses
            or self.include_superseded
            or self.as_of is not None
            or any(
                t is not None
                for t in (
                    self.created_after,
                    self.created_before,
                    self.updated_after,
                    self.updated_before,
                )
            )
        )

    def allowed_kinds(self) -> tuple[Kind, ...]:
        return self.kinds or DEFAULT_KINDS

    def allowed_statuses(self) -> tuple[Status, ...]:
        if self.statuses:
            return self.statuses
        extra: tuple[Status, ...] = ("superseded",) if self.include_superseded else ()
        return DEFAULT_STATUSES + extra
