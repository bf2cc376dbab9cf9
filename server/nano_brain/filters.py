"""The filters every read path accepts; one object, applied by every leg and every retry."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .doctypes import (
    DECISION_COLLECTION,
    DECISION_TAGS,
    DEFAULT_KINDS,
    DEFAULT_STATUSES,
    KINDS,
    STATUSES,
    Kind,
    Status,
    is_decision,
)

__all__ = [
    "DECISION_COLLECTION",
    "DECISION_TAGS",
    "DEFAULT_KINDS",
    "DEFAULT_STATUSES",
    "KINDS",
    "STATUSES",
    "Filters",
    "Kind",
    "Status",
    "is_decision",
]


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
