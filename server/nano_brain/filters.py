"""The filters every read path accepts; one object, applied by every leg and every retry."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["note", "session", "code"]
KINDS: tuple[Kind, ...] = ("note", "session", "code")


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
