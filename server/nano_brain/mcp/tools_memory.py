"""The memory tools: write, search, read and correct the workspace's notes over MCP.

Each handler is a thin call into one method of the workspace's Brain; the input models below
are the JSON schemas the agent sees, so their bounds and descriptions are part of the product.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .. import fields
from ..anchoring import MAX_ANCHORS, Anchored, AnchoredWriteResult, anchor, unanchor, write_anchored
from ..config import StorageConfig
from ..filters import Filters, Kind, Status
from ..models import Document, DocumentVersions, SearchResponse, WakeUp
from ..search import MAX_QUERY_CHARS, Mode, validate_request
from ..timeutil import MAX_TIME_CHARS, UPPER_BOUND_HELP
from ..workspace import Workspace
from .registry import StrictInput, ToolRegistry

MAX_CONTENT_CHARS: int = StorageConfig.model_fields["max_content_bytes"].default
"""Schema bound on content; the store's configured byte cap is checked on top of it."""

Tag = Annotated[
    str,
    Field(pattern=fields.TAG_PATTERN, description=fields.TAG_RULE.replace("characters", "chars")),
]
Collection = Annotated[
    str,
    Field(
        pattern=fields.COLLECTION_PATTERN,
        description=f"{fields.COLLECTION_RULE}, e.g. memory, decisions",
    ),
]
DocRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1024,
        pattern=fields.ONE_LINE_PATTERN,
        description="a document id as returned by other tools (`#3f2a…` or `3f2a…`) or the "
        "document's source path",
    ),
]
Instant = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TIME_CHARS,
        pattern=fields.ONE_LINE_PATTERN,
        description="RFC 3339 time (2024-05-01T12:00:00Z), a date (2024-05-01) or a "
        "duration ago (7d, 2w, 24h); years 1-9999",
    ),
]
SymbolRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1024,
        pattern=fields.ONE_LINE_PATTERN,
        description="a qualified name (`pkg/mod.py::Class.method`), `Class.method`, or a bare "
        "name when it is unique",
    ),
]
MetadataKey = Annotated[
    str,
    Field(min_length=1, max_length=fields.MAX_METADATA_KEY_CHARS, pattern=fields.ONE_LINE_PATTERN),
]

_Input = StrictInput


def _key_rule_in_property_names(schema: dict[str, Any]) -> None:
    """pydantic states a key pattern as `patternProperties`, which allows any other key;
    `propertyNames` is what says every key must match."""
    patterns = schema.pop("patternProperties", {})
    names = schema.setdefault("propertyNames", {})
    for pattern in patterns:
        names["pattern"] = pattern


# -- inputs -----------------------------------------------------------------------------------


class WriteInput(_Input):
    content: str = Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARS,
        description="the note in Markdown or plain text; identical content is stored once",
    )
    title: str | None = Field(
        None,
        max_length=fields.MAX_TITLE_CHARS,
        pattern=fields.ONE_LINE_PATTERN,
        description="one line; default: the first line of content",
    )
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    collection: Collection = "memory"
    source_path: str | None = Field(
        None,
        min_length=1,
        max_length=1024,
        pattern=fields.ONE_LINE_PATTERN,
        description="a stable key (e.g. docs/adr/0007.md); writing again to it makes a new "
        "version of the same document",
    )
    metadata: dict[MetadataKey, Any] = Field(
        default_factory=dict,
        max_length=64,
        description="a JSON object stored with the note (text keys; finite numbers; nested at "
        f"most {fields.MAX_METADATA_DEPTH} levels)",
        json_schema_extra=_key_rule_in_property_names,
    )
    supersedes: DocRef | None = Field(
        None, description="id of the note this one replaces; it is marked superseded"
    )
    anchors: list[SymbolRef] = Field(
        default_factory=list,
        max_length=MAX_ANCHORS,
        description="symbols this note is about (`pkg/mod.py::Class.method`, `Class.method` "
        "or a unique name): the editor shows it when hovering them and flags it when their "
        "code changes. An unknown or ambiguous symbol is an error and nothing is written",
    )


class AnchorInput(_Input):
    id: DocRef
    symbol: SymbolRef


class UnanchorOutput(BaseModel):
    removed: bool = Field(description="false when the note was not anchored there")


class QueryInput(_Input):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    collection: list[Collection] = Field(default_factory=list, max_length=20)
    tags: list[Tag] = Field(
        default_factory=list, max_length=20, description="every tag listed must be present"
    )
    kind: list[Kind] = Field(
        default_factory=list,
        description="note, session, code and/or commit (git history); none named: all but "
        "commits, with the best few matching commits added below equal notes",
    )
    created_after: Instant | None = None
    created_before: Instant | None = Field(None, description=f"created before; {UPPER_BOUND_HELP}")
    updated_after: Instant | None = None
    updated_before: Instant | None = Field(None, description=f"updated before; {UPPER_BOUND_HELP}")
    status: list[Status] = Field(
        default_factory=list, description="default: active and unreviewed documents"
    )
    include_superseded: bool = Field(False, description="also return superseded documents")
    as_of: Instant | None = Field(
        None, description=f"read the memory as it was at this time; {UPPER_BOUND_HELP}"
    )
    max_results: int = Field(10, ge=1, le=100)
    include_content: bool = Field(False, description="return each document's full content")
    explain: bool = Field(False, description="return each score component")


class RefInput(_Input):
    id: DocRef


class GetInput(RefInput):
    start_line: int | None = Field(None, ge=1, le=10_000_000, description="first line, 1-based")
    end_line: int | None = Field(None, ge=1, le=10_000_000, description="last line, inclusive")

    @model_validator(mode="after")
    def _range(self) -> GetInput:
        if self.start_line and self.end_line and self.end_line < self.start_line:
            raise ValueError("end_line must be >= start_line")
        return self


class SupersedeInput(_Input):
    old: DocRef = Field(description="the document that is no longer true")
    new: DocRef = Field(description="the document that replaces it")


class RetractInput(RefInput):
    reason: str = Field(
        "",
        max_length=1000,
        pattern=fields.FREE_TEXT_PATTERN,
        description="why it was wrong (kept in the log)",
    )


class WakeUpInput(_Input):
    budget_chars: int = Field(4000, ge=200, le=50_000, description="size of the text digest")
    per_section: int = Field(5, ge=1, le=50)


class TagsInput(_Input):
    collection: list[Collection] = Field(default_factory=list, max_length=20)
    kind: list[Kind] = Field(default_factory=list)


class NoInput(_Input):
    pass


# -- outputs ------------------------------------------------------------------------------------


class DeleteOutput(BaseModel):
    deleted: Document = Field(description="the document as it was (content omitted)")


class TagCount(BaseModel):
    tag: str
    count: int


class TagsOutput(BaseModel):
    tags: list[TagCount] = Field(description="most used first")


class StatusOutput(BaseModel):
    """Brain.status(); keys beyond these may appear as the store grows features."""

    model_config = ConfigDict(extra="allow")

    workspace: str
    workspace_id: str
    store: str
    store_bytes: int
    documents: int
    pending_embeddings: int = Field(description="chunks waiting for a vector (embedding queue)")
    embedding: dict[str, Any]
    legs: dict[str, str] = Field(description="search legs available: ok or unavailable: why")
    embedding_progress: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="per embedding space (text, code): chunks with a vector (embedded) and "
        "waiting (pending), the share done (fraction), the recent rate (rate_per_s) and the "
        "seconds left at that rate (eta_s; null until a batch was measured)",
    )


# -- handlers -----------------------------------------------------------------------------------


def register(registry: ToolRegistry) -> None:
    """Add the memory tools to `registry`."""

    @registry.tool(
        "memory_write",
        title="Save a note",
        input=WriteInput,
        output=AnchoredWriteResult,
        read_only=False,
        idempotent=True,
    )
    def memory_write(ws: Workspace, p: WriteInput) -> AnchoredWriteResult:
        """Save a note, decision or finding to this workspace's memory so later sessions can
        find it. Use it when you learn something worth keeping: a decision and its reason, a
        convention, a gotcha, the outcome of an investigation. Pass `anchors` (the symbols
        it is about) so people see it when they read that code. To replace a note that is no
        longer true, pass its id as `supersedes`. Same content twice is stored once.
        Read `notices` in the answer and tell the user: a note a person retracted stays
        retracted when rewritten (only a person's `nano-brain confirm` makes it active), and
        writing a source a person forgot brings it back and lifts the tombstone."""
        return write_anchored(
            ws.brain,
            p.content,
            anchors=p.anchors,
            title=p.title,
            tags=p.tags,
            collection=p.collection,
            metadata=p.metadata,
            source_path=p.source_path,
            supersedes=p.supersedes,
        )

    @registry.tool(
        "memory_anchor",
        title="Anchor a note to code",
        input=AnchorInput,
        output=Anchored,
        read_only=False,
        idempotent=True,
    )
    def memory_anchor(ws: Workspace, p: AnchorInput) -> Anchored:
        """Attach an existing note or decision to a symbol of the code (function, class,
        method), so the editor shows it when hovering that symbol and flags it as possibly
        stale when the code changes. Use it when a saved note turns out to be about specific
        code; anchoring again accepts the symbol's current code."""
        return anchor(ws.brain, p.id, p.symbol)

    @registry.tool(
        "memory_unanchor",
        title="Detach a note from code",
        input=AnchorInput,
        output=UnanchorOutput,
        read_only=False,
        idempotent=True,
    )
    def memory_unanchor(ws: Workspace, p: AnchorInput) -> UnanchorOutput:
        """Detach a note from a symbol it was anchored to (the note itself is kept). Use it
        when a note is no longer about that code."""
        return UnanchorOutput(removed=unanchor(ws.brain, p.id, p.symbol))

    _search_tool(
        registry,
        "memory_query",
        "hybrid",
        "Search memory (hybrid)",
        """Search this workspace's memory by meaning and keywords together (best default).
        Use it before starting a task, or when you need past decisions, notes or session
        summaries about a topic. Filters narrow by collection, tags, kind, time and status;
        superseded and retracted notes are hidden unless asked for. Only what clears a
        relevance floor is returned: an empty list means nothing in memory relates (`note`
        says why), not a failed search. Notes and decisions come before code unless the query
        names code; each result's `origin` says who wrote it. `partial` says when vectors
        are still being computed (results found by meaning may be missing).""",
    )
    _search_tool(
        registry,
        "memory_search",
        "lexical",
        "Search memory (keywords)",
        """Keyword search over this workspace's memory (full text, exact terms, identifiers,
        error messages). Use it when you know the words that must appear; use memory_query
        for questions by meaning.""",
    )
    _search_tool(
        registry,
        "memory_vsearch",
        "vector",
        "Search memory (semantic)",
        """Semantic (vector-only) search over this workspace's memory: finds notes that mean
        the same thing in other words. Use it when keyword search finds nothing; it fails with
        a clear error if no embedding model is available.""",
    )

    @registry.tool(
        "memory_get", title="Read a document", input=GetInput, output=Document, read_only=True
    )
    def memory_get(ws: Workspace, p: GetInput) -> Document:
        """Read one document in full by its id (from a search result) or its source path,
        optionally only lines start_line..end_line. Use it after a search when the snippet
        is not enough."""
        lines = None
        if p.start_line is not None or p.end_line is not None:
            start = p.start_line or 1
            lines = (start, p.end_line or 10_000_000)
        return ws.brain.get(p.id, lines=lines)

    @registry.tool(
        "memory_delete",
        title="Delete a document",
        input=RefInput,
        output=DeleteOutput,
        read_only=False,
        destructive=True,
    )
    def memory_delete(ws: Workspace, p: RefInput) -> DeleteOutput:
        """Delete a document, all its versions and everything derived from it. Use it only
        for content that must not be kept (a mistake, a secret); to correct a note prefer
        memory_supersede or memory_retract, which keep the history."""
        return DeleteOutput(deleted=ws.brain.delete(p.id))

    @registry.tool(
        "memory_supersede",
        title="Replace a note",
        input=SupersedeInput,
        output=Document,
        read_only=False,
        destructive=True,
    )
    def memory_supersede(ws: Workspace, p: SupersedeInput) -> Document:
        """Mark an existing document `old` as replaced by the existing document `new`, so
        searches stop returning the outdated one. Use it when a decision or fact changed
        and the new note is already saved. Returns the old document, now superseded."""
        return ws.brain.supersede(p.old, p.new)

    @registry.tool(
        "memory_retract",
        title="Retract a note",
        input=RetractInput,
        output=Document,
        read_only=False,
        destructive=True,
    )
    def memory_retract(ws: Workspace, p: RetractInput) -> Document:
        """Mark a document as wrong: it stays on record but is never returned by default.
        Use it when a note turns out to be false and nothing replaces it."""
        return ws.brain.retract(p.id, reason=p.reason)

    @registry.tool(
        "memory_history",
        title="Document history",
        input=RefInput,
        output=DocumentVersions,
        read_only=True,
    )
    def memory_history(ws: Workspace, p: RefInput) -> DocumentVersions:
        """Every version of a document and its audit events (who wrote, edited, superseded
        or retracted it, and when). Use it to understand how a decision evolved."""
        return ws.brain.history(p.id)

    @registry.tool(
        "memory_wake_up",
        title="Session start digest",
        input=WakeUpInput,
        output=WakeUp,
        read_only=True,
        render=lambda w: w.text,
    )
    def memory_wake_up(ws: Workspace, p: WakeUpInput) -> WakeUp:
        """Call this once at the start of a session: a compact digest of this workspace's
        memory (recent decisions, most used and newest notes, recent session summaries,
        collection counts) within a character budget."""
        return ws.brain.wake_up(budget_chars=p.budget_chars, per_section=p.per_section)

    @registry.tool(
        "memory_tags", title="List tags", input=TagsInput, output=TagsOutput, read_only=True
    )
    def memory_tags(ws: Workspace, p: TagsInput) -> TagsOutput:
        """The tags in use with their document counts, most used first. Use it to pick
        existing tags when writing, or to find a tag to filter searches by."""
        filters = Filters(collections=tuple(p.collection), kinds=tuple(p.kind))
        return TagsOutput(tags=[TagCount(tag=t, count=n) for t, n in ws.brain.tags(filters)])

    @registry.tool(
        "memory_status", title="Memory status", input=NoInput, output=StatusOutput, read_only=True
    )
    def memory_status(ws: Workspace, p: NoInput) -> StatusOutput:
        """Health of this workspace's memory: store size, document counts, embedding model,
        embedding queue with its progress and estimate per space, and which search legs
        work. Use it when searches look wrong."""
        return StatusOutput.model_validate(ws.brain.status())


def _search_tool(registry: ToolRegistry, name: str, mode: Mode, title: str, doc: str) -> None:
    def handler(ws: Workspace, p: QueryInput) -> SearchResponse:
        request = validate_request(
            query=p.query,
            mode=mode,
            limit=p.max_results,
            collection=p.collection,
            tags=p.tags,
            kind=p.kind,
            created_after=p.created_after,
            created_before=p.created_before,
            updated_after=p.updated_after,
            updated_before=p.updated_before,
            status=p.status,
            include_superseded=p.include_superseded,
            as_of=p.as_of,
            include_content=p.include_content,
            explain=p.explain,
        )
        return ws.brain.search(request)

    handler.__doc__ = doc
    registry.tool(
        name, title=title, input=QueryInput, output=SearchResponse, read_only=True,
        notice=partial_notice,
    )(handler)  # fmt: skip


def partial_notice(response: SearchResponse) -> str:
    """The search tools' second text block: the partial note, while vectors are computed."""
    return f"note: {response.partial}" if response.partial else ""
