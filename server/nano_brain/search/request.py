"""What a search asks: `SearchRequest`, the query with its filters as every front end
receives it, and `validate_request`, which turns bad input into one clear error."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import InvalidInputError
from ..filters import Filters, Kind, Status
from ..relevance import Level
from ..timeutil import parse_instant

Mode = Literal["hybrid", "lexical", "vector"]
MAX_QUERY_CHARS = 4000


class SearchRequest(BaseModel):
    """A query with its filters, as every front end receives it."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    mode: Mode = "hybrid"
    limit: int = Field(10, ge=1, le=200)
    collection: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    kind: list[Kind] = Field(default_factory=list)
    created_after: str | None = None
    created_before: str | None = None
    updated_after: str | None = None
    updated_before: str | None = None
    status: list[Status] = Field(default_factory=list)
    include_superseded: bool = False
    as_of: str | None = Field(None, description="read the store as it was at this time")
    include_content: bool = False
    explain: bool = False
    track: bool = Field(True, description="count returned documents as accessed")
    expand: bool = Field(
        True,
        description="hybrid only: also search the best matches' distinctive words and lend "
        "relevance to notes written next to a match (off for quick internal lookups)",
    )
    floor: Level = Field(
        "list",
        description="the relevance floor a list must clear, or show nothing: `list` for what "
        "was asked (hybrid searches), `related` (stricter, any mode) for what is offered "
        "unasked, `off`",
    )
    depth: int | None = Field(
        None,
        ge=1,
        le=2000,
        description="candidates each leg brings to fusion (default: search.candidates for "
        "words, 30 for meaning); quick lookups that show a few results need fewer",
    )

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is empty")
        return value

    @property
    def as_of_time(self) -> float | None:
        """`as_of` as an instant (a bare date: the end of that day), or None."""
        return instant(self.as_of, upper=True)

    def filters(self) -> Filters:
        """The store filters; time bounds parsed (raises InvalidInputError on bad times)."""
        return Filters(
            collections=tuple(self.collection),
            tags=tuple(self.tags),
            kinds=tuple(self.kind),
            created_after=instant(self.created_after),
            created_before=instant(self.created_before, upper=True),
            updated_after=instant(self.updated_after),
            updated_before=instant(self.updated_before, upper=True),
            statuses=tuple(self.status),
            include_superseded=self.include_superseded,
            as_of=self.as_of_time,
        )


def instant(value: str | None, *, upper: bool = False) -> float | None:
    """`upper`: a bound from above, where a bare date means the end of that day."""
    return None if value is None else parse_instant(value, upper=upper)


def validate_request(**kwargs: object) -> SearchRequest:
    """Build a SearchRequest, turning pydantic errors into one clear InvalidInputError."""
    from pydantic import ValidationError

    try:
        request = SearchRequest.model_validate(kwargs)
        request.filters()
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "input"
        raise InvalidInputError(f"{where}: {err['msg']}") from None
    return request
