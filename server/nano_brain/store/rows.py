"""What the store hands back: plain rows, the same from every dialect."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

#: How a lexical search joins its terms: every one (AND) or any (OR).
Operator = Literal["AND", "OR"]
#: Which lexical index a search reads: whole words (stemmed) or trigrams (substrings:
#: identifier fragments, CJK).
LexicalKind = Literal["words", "trigrams"]
#: bm25 column weights: a title hit counts five times a body hit (both dialects).
BM25_WEIGHTS = (5.0, 1.0)


@dataclass(slots=True)
class DocumentRow:
    id: int
    uid: str
    kind: str
    collection: str
    title: str
    content: str
    content_hash: str
    source_path: str | None
    metadata: dict[str, Any]
    created_at: float
    updated_at: float
    version: int = 1
    status: str = "active"
    status_changed_at: float | None = None
    superseded_by: str | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    recorded_at: float | None = None
    access_count: int = 0
    last_accessed_at: float | None = None
    pinned: bool = False
    author: str = "cli"
    tags: list[str] = field(default_factory=list)
    thread: str | None = None
    """Notes written one after another by one writer into one collection share a thread."""
    thread_seq: int | None = None


@dataclass(frozen=True, slots=True)
class AuditRow:
    id: int
    at: float
    actor: str
    action: str
    doc_uid: str | None
    title: str | None
    prev_status: str | None
    new_status: str | None
    details: dict[str, Any]
    person: str | None = None
    """Who made the change (config `user.name`), where the store records it (PostgreSQL)."""
    role: str | None = None
    """The database role the change came from (PostgreSQL's session_user; the writer cannot
    choose it, unlike `person`); None in SQLite and for rows older than the record."""


@dataclass(frozen=True, slots=True)
class Tombstone:
    source: str
    doc_uid: str | None
    title: str | None
    created_at: float
    actor: str


@dataclass(frozen=True, slots=True)
class ChunkRow:
    seq: int
    title: str
    body: str
    heading: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Hit:
    """One chunk found by a search leg; `score` is the leg's own (lower bm25, higher cosine)."""

    chunk_id: int
    doc_id: int
    score: float


def merge_hits(first: list[Hit], more: list[Hit], limit: int) -> list[Hit]:
    """`first`, then the hits of `more` not among them; at most `limit`."""
    seen = {h.chunk_id for h in first}
    return (first + [h for h in more if h.chunk_id not in seen])[:limit]


def every_then_any(every: list[Hit], anyone: list[Hit], limit: int) -> tuple[list[Hit], int]:
    """`MemoryStore.lexical_terms`'s answer from the hits holding every term and those
    holding any, each best first: at most `limit` in all, every term's first; and how many
    lead holding every term."""
    return merge_hits(every[:limit], anyone, limit), min(len(every), limit)


@dataclass(frozen=True, slots=True)
class PendingChunk:
    id: int
    doc_id: int
    title: str
    heading: str
    body: str
    symbol: bool = False
    """A code index symbol's chunk: title = qualified name, name words, docstring summary."""


@dataclass(frozen=True, slots=True)
class ProposalRow:
    id: int
    created_at: float
    action: str
    cluster: str
    members: list[str]
    survivor: str | None
    title: str | None
    content: str | None
    reason: str
    score: float
    status: str
    decided_at: float | None
    actor: str | None
    result: str | None


#: An anchor as its notes' store keeps it: (doc uid, note title, note status, path, qualified
#: name, the symbol's sha256 when it was anchored, created at); title and status are None
#: once the note is gone.
AnchorRow = tuple[str, str | None, str | None, str, str, str, float]


@dataclass(frozen=True, slots=True)
class TimelineBucket:
    """How many documents of one kind were created in one time bucket (index from origin)."""

    index: int
    kind: str
    count: int
    decisions: int


@dataclass(frozen=True, slots=True)
class TimelinePoint:
    """A document the timeline draws one by one: a decision, or a link of a supersede chain."""

    uid: str
    title: str
    kind: str
    collection: str
    created_at: float
    status: str
    superseded_by: str | None
    decision: bool


@dataclass(frozen=True, slots=True)
class FileWeight:
    """What a file of the workspace carries: notes anchored in it and commits that touched it."""

    path: str
    notes: int
    anchors: int
    stale: int
    commits: int = 0


@dataclass(frozen=True, slots=True)
class AnchorView:
    """One anchor with where its symbol is now (None once it vanished)."""

    doc_uid: str
    doc_title: str | None
    doc_status: str | None
    path: str
    qualified_name: str
    state: str
    start_line: int | None
    end_line: int | None
