"""Public result models shared by every front end (CLI JSON, MCP structured output, LSP)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .store import DocumentRow
from .timeutil import iso


class Document(BaseModel):
    id: str = Field(description="short id; refer to it as `#id`")
    kind: str
    collection: str
    title: str
    tags: list[str]
    source_path: str | None
    metadata: dict[str, Any]
    created_at: str
    updated_at: str
    content: str | None = None

    @classmethod
    def from_row(cls, row: DocumentRow, *, content: bool = True) -> Document:
        return cls(
            id=row.uid,
            kind=row.kind,
            collection=row.collection,
            title=row.title,
            tags=row.tags,
            source_path=row.source_path,
            metadata=row.metadata,
            created_at=iso(row.created_at) or "",
            updated_at=iso(row.updated_at) or "",
            content=row.content if content else None,
        )


class WriteResult(BaseModel):
    document: Document
    created: bool = Field(description="false when identical content was already stored")
    updated: bool = False
    chunks: int
    embedded: bool = Field(description="the note's vectors are stored (vector search sees it)")


class SearchHit(BaseModel):
    id: str
    title: str
    kind: str
    collection: str
    tags: list[str]
    source_path: str | None
    created_at: str
    updated_at: str
    score: float
    snippet: str
    lines: tuple[int, int]
    content: str | None = None
    explain: dict[str, Any] | None = None


class SearchResponse(BaseModel):
    query: str
    mode: str
    legs: dict[str, str] = Field(description="each leg: ok, empty, unavailable: why, failed: why")
    fallback: list[str] = Field(default_factory=list, description="lexical retries that ran")
    results: list[SearchHit]
