"""The store interface: what the Brain, the search pipeline, the embedder, the harvester and the
views call, whichever engine holds the memory.

`MemoryStore` is the whole of it, composed of small capabilities a caller may ask for alone:

- `StoreCore`: which workspace, where it is, transactions, read connections, meta keys.
- `Documents`: documents and their versions, status, pins, access, tags.
- `Chunks`: the documents' chunks and their texts.
- `Audit`: tombstones and the audit log.
- `LexicalSearch`: the full-text index (BM25 words, substrings, word counts).
- `Vectors`: embeddings: pending chunks, writes, exact and k-NN search.
- `SharedVectors` (team mode only, not in `MemoryStore`): vectors clones reuse by text.
- `Anchors`: notes anchored to code symbols.
- `Views`: counts, the timeline, successors (`nano-brain ui`, status).
- `Consolidation`: consolidation's proposals.
- `CloneCode`: this clone's code index: its store (`local`), its HTTP routes.
- `Maintenance`: size, eviction, integrity and full-text repair (doctor).

Two implementations: `sqlite.SqliteStore` (one file per workspace, the default) and
`postgres.PostgresStore` (a team's shared database, many workspaces isolated by row-level
security), which in team mode `team.TeamStore` pairs with a local SQLite file for the code
index. Each implements a capability once (PostgreSQL all but `CloneCode`); the SQL both share
is in the mixins `documents`, `views`, `anchors`, `consolidation`. `open_store` in the
package picks from the configuration. The code index's SQL is in `sqlite.code.CodeStore`: it
is always local (README "Team memory").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..filters import Filters
from .predicate import Dialect
from .rows import (
    AnchorRow,
    AnchorView,
    AuditRow,
    ChunkRow,
    DocumentRow,
    FileWeight,
    Hit,
    LexicalKind,
    Operator,
    PendingChunk,
    ProposalRow,
    TimelineBucket,
    TimelinePoint,
    Tombstone,
)
from .spaces import Space

if TYPE_CHECKING:
    import numpy as np

    from .routes import FactRow, RouteRecord, RouteRow, StoredFact


class StoreCore(Protocol):
    """The store as a whole: its workspace, where it is, transactions, readers, meta keys."""

    workspace_id: str
    path: Path
    """Where the store is: the SQLite file, or for a server the local folder of the workspace's
    state (the code index and run locks)."""

    @property
    def read_only(self) -> bool: ...
    @property
    def location(self) -> str:
        """What to show a person: the file path, or the server URL without its password."""
        ...

    def close(self) -> None: ...
    def transaction(self) -> AbstractContextManager[None]: ...
    def reading(self) -> AbstractContextManager[None]:
        """Reads by this thread in the block run on a read-only connection of their own,
        beside the store's, seeing committed rows only (see `_readers`)."""
        ...

    def concurrent_reads(self) -> bool:
        """Whether other threads may read for this one now (not in its write transaction)."""
        ...

    def schema_version(self) -> int: ...
    def meta_get(self, key: str) -> str | None: ...
    def meta_set(self, key: str, value: str) -> None: ...


class Documents(Protocol):
    """Documents and their versions: find, list, insert, close; status, pins, access, tags."""

    keeps_history: bool
    """Whether the git history's commits are documents here (a team store keeps none)."""

    def find_by_source(self, source_path: str) -> DocumentRow | None: ...
    def find_by_hash(self, collection: str, content_hash: str) -> DocumentRow | None: ...
    def find_current(self, uid: str, *, as_of: float | None = None) -> DocumentRow | None: ...
    def get_by_id(self, doc_id: int) -> DocumentRow | None: ...
    def versions(self, uid: str) -> list[DocumentRow]: ...
    def get_many(
        self, doc_ids: Iterable[int], *, content: bool = True, as_of: float | None = None
    ) -> dict[int, DocumentRow]: ...
    def list_documents(
        self, filters: Filters, *, limit: int = 50, offset: int = 0, order: str = "updated"
    ) -> list[DocumentRow]: ...
    def count_documents(self, filters: Filters, cap: int) -> int: ...
    def insert_document(
        self,
        *,
        uid: str,
        kind: str,
        collection: str,
        title: str,
        content: str,
        content_hash: str,
        source_path: str | None,
        metadata: dict[str, Any],
        created_at: float,
        updated_at: float,
        recorded_at: float,
        valid_from: float,
        # the defaults are the implementation's (`documents.DocumentQueries.insert_document`)
        version: int = ...,
        status: str = ...,
        author: str = ...,
        access_count: int = ...,
        last_accessed_at: float | None = ...,
        pinned: bool = ...,
        thread: str | None = ...,
        thread_seq: int | None = ...,
    ) -> int: ...
    def update_metadata(self, doc_id: int, metadata: dict[str, Any]) -> None: ...
    def close_version(self, doc_id: int, at: float) -> None: ...
    def set_status(
        self, uid: str, status: str, at: float, *, actor: str, superseded_by: str | None = None
    ) -> None: ...
    def set_pinned(self, uid: str, pinned: bool) -> None: ...
    def track_access(self, uids: Sequence[str], at: float) -> None: ...
    def delete_document(self, uid: str) -> None: ...
    def copy_tags(self, from_doc: int, to_doc: int) -> None: ...
    def add_tags(self, doc_id: int, tags: Iterable[str]) -> None: ...
    def tags(self, filters: Filters) -> list[tuple[str, int]]: ...


class Chunks(Protocol):
    """The documents' chunks: their rows and texts, and a thread's neighbours."""

    def replace_chunks(self, doc_id: int, chunks: Sequence[ChunkRow]) -> None: ...
    def chunks_of(self, doc_id: int) -> list[tuple[int, ChunkRow]]: ...
    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, tuple[str, int, int]]: ...
    def vectorless(self, chunk_ids: Iterable[int]) -> set[int]: ...
    def first_chunks(self, doc_ids: Sequence[int]) -> dict[int, int]: ...
    def chunk_texts_of_first(self, doc_ids: Sequence[int]) -> dict[int, str]: ...
    def thread_neighbours(
        self, doc_ids: Sequence[int], filters: Filters, window: int
    ) -> list[tuple[int, int, int]]: ...


class Audit(Protocol):
    """What was deleted (tombstones, so a harvest does not bring it back) and the audit log."""

    def add_tombstone(
        self, source: str, uid: str | None, title: str | None, at: float, actor: str
    ) -> None: ...
    def remove_tombstone(self, source: str) -> bool: ...
    def tombstone(self, source: str) -> Tombstone | None: ...
    def tombstones(self) -> list[Tombstone]: ...
    def audit(
        self,
        *,
        at: float,
        actor: str,
        action: str,
        uid: str | None = None,
        title: str | None = None,
        prev_status: str | None = None,
        new_status: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None: ...
    def audit_rows(self, *, uid: str | None = None, limit: int = 50) -> list[AuditRow]: ...
    def prune_audit(
        self, before: float, *, at: float, actor: str, details: dict[str, Any] | None = None
    ) -> int: ...


class LexicalSearch(Protocol):
    """The full-text index: chunks by words (BM25) or substrings; how common words are."""

    def lexical(
        self,
        terms: Sequence[str],
        op: Operator,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = ...,
        *,
        kind: LexicalKind = ...,
    ) -> list[Hit]:
        """Chunks holding the terms, every one (AND) or any (OR), as whole words or as
        substrings (``trigrams``: identifier fragments, CJK), best BM25 first (negative
        scores, lower is better), filters applied."""
        ...

    def lexical_terms(
        self,
        terms: Sequence[str],
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = ...,
    ) -> tuple[list[Hit], int]:
        """Chunks holding every word of `terms`, then when those are fewer than `limit` and
        there are several words, chunks holding any; each group best BM25 first, at most
        `limit` in all. Also how many lead holding every word."""
        ...

    def term_counts(self, words: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each word (as the lexical index stems it), and about how
        many chunks there are."""
        ...


class Vectors(Protocol):
    """The embeddings: chunks waiting for one, writing them, exact and k-NN search."""

    knn_filters_in_scan: bool
    """Whether k-NN applies kind, collection and time filters inside its scan whatever
    their selectivity; else a search counts the documents such filters leave first."""

    def vector_model(self, space: Space = "text") -> tuple[str, int] | None: ...
    def reset_vectors(
        self, model: str, dim: int, *, space: Space = "text", only_if_absent: bool = False
    ) -> None: ...
    def pending_chunks(
        self, limit: int, space: Space = "text", *, max_priority: int | None = None
    ) -> list[PendingChunk]: ...
    def prioritize_pending(self, paths: Sequence[str], tier: int) -> int: ...
    def pending_count(self, space: Space | None = None) -> int: ...
    def pending_tiers(self) -> dict[int, int]: ...
    def set_test_vectors(self, wanted: bool) -> int: ...
    def pending_of(self, doc_id: int) -> list[PendingChunk]: ...
    def copy_vectors(self, from_doc: int, to_doc: int) -> int: ...
    def store_vectors(
        self, items: Sequence[tuple[int, int, np.ndarray]], *, space: Space = "text"
    ) -> int: ...
    def knn(
        self, query: np.ndarray, k: int, *, space: Space = "text", filters: Filters
    ) -> list[tuple[int, float]]: ...
    def vectors(
        self, chunk_ids: Sequence[int], filters: Filters
    ) -> tuple[list[int], list[int], np.ndarray]: ...
    def filtered_vectors(
        self, filters: Filters, limit: int, *, space: Space = "text"
    ) -> tuple[list[int], list[int], np.ndarray]: ...
    def nearest_vectors(
        self, query: np.ndarray, filters: Filters, k: int, *, space: Space = "text", cap: int
    ) -> tuple[list[int], list[int], np.ndarray]:
        """An exact search: the vectors of the `k` chunks nearest to `query` (cosine) among
        the first `cap` of a space that pass the filters."""
        ...

    def vector_counts(self) -> dict[str, Any]: ...
    def vectors_by_chunk(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]: ...


@runtime_checkable
class SharedVectors(Protocol):
    """Vectors shared by a team's clones, by model and the text embedded, so that a text one
    clone embedded is not embedded again by the next (`TeamStore`). Not part of
    `MemoryStore`: a store without them (SQLite) has none of these methods."""

    def shares_vectors(self, doc_id: int) -> bool:
        """Whether this document's chunks may reuse and publish shared vectors."""
        ...

    def shared_vectors(
        self, model: str, dim: int, digests: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]:
        """The shared vectors of these texts (SHA-256 digests of the exact text embedded)."""
        ...

    def share_vectors(self, model: str, dim: int, items: Sequence[tuple[bytes, np.ndarray]]) -> int:
        """Publish (digest, vector) pairs; a text already shared keeps its vector."""
        ...


class Anchors(Protocol):
    """Notes anchored to code symbols: kept with the notes, the symbols in `CloneCode.local`."""

    def add_anchor(
        self, doc_uid: str, path: str, qualified_name: str, sha256: str, now: float
    ) -> None: ...
    def remove_anchor(self, doc_uid: str, qualified_name: str) -> bool: ...
    def anchor_rows(
        self,
        *,
        doc_uid: str | None = None,
        path: str | None = None,
        qualified_names: Sequence[str] | None = None,
        visible: Filters | None = None,
    ) -> list[AnchorRow]: ...
    def anchor_weights(self, visible: Filters) -> list[FileWeight]: ...
    def anchor_views(
        self,
        *,
        doc_uid: str | None = None,
        path: str | None = None,
        visible: Filters | None = None,
        limit: int = 500,
    ) -> list[AnchorView]: ...


class Views(Protocol):
    """What `nano-brain ui` and status show: counts, the timeline, what superseded what."""

    def counts(self) -> dict[str, Any]: ...
    def time_span(self, filters: Filters) -> tuple[float, float] | None: ...
    def timeline_buckets(
        self, filters: Filters, origin: float, width: float
    ) -> list[TimelineBucket]: ...
    def timeline_points(self, filters: Filters, limit: int) -> list[TimelinePoint]: ...
    def successors_of(self, uids: list[str]) -> dict[str, tuple[str, str]]: ...
    def superseded_by_this(self, uid: str) -> list[tuple[str, str, str]]: ...


class Consolidation(Protocol):
    """Consolidation's proposals, and the notes' texts and anchors it weighs."""

    def add_proposal(
        self,
        *,
        at: float,
        action: str,
        members: Sequence[str],
        survivor: str | None,
        title: str | None,
        content: str | None,
        reason: str,
        score: float,
        actor: str,
    ) -> int | None: ...
    def proposed_clusters(self) -> set[str]: ...
    def proposals(
        self, *, statuses: Sequence[str] = ..., limit: int = 1000
    ) -> list[ProposalRow]: ...
    def proposal(self, proposal_id: int) -> ProposalRow | None: ...
    def decide_proposal(
        self, proposal_id: int, status: str, *, at: float, actor: str, result: str | None
    ) -> None: ...
    def note_texts(self, doc_ids: Sequence[int]) -> dict[int, str]: ...
    def anchors_by_note(self) -> dict[str, set[str]]: ...


class CloneCode(Protocol):
    """This clone's code index: its store (`local`), its HTTP routes and their facts."""

    @property
    def local(self) -> MemoryStore:
        """The store of this clone's code index: this one, or in team mode the local file."""
        ...

    def replace_route_facts(self, path: str, facts: Sequence[FactRow]) -> None: ...
    def route_fact_count(self) -> int: ...
    def route_facts(self) -> list[StoredFact]: ...
    def replace_routes(self, routes: Sequence[RouteRow]) -> None: ...
    def list_routes(
        self,
        *,
        method: str | None = None,
        path_like: str | None = None,
        framework: str | None = None,
        limit: int = 1000,
    ) -> list[RouteRecord]: ...
    def routes_of_handlers(self, handlers: Sequence[str]) -> list[RouteRecord]: ...


class Maintenance(Protocol):
    """Size, eviction and health (`nano-brain doctor`): integrity, the full-text index's repair."""

    def logical_size(self) -> int: ...
    def file_size(self) -> int: ...
    def eviction_candidates(
        self, *, by_access: bool, tier_seconds: float, protect_decisions: bool, limit: int
    ) -> list[DocumentRow]: ...
    def integrity_problems(self, limit: int = 10) -> list[str]: ...
    def fulltext_problems(self) -> dict[str, str]: ...
    def rebuild_fulltext(self) -> None: ...


class MemoryStore(
    StoreCore,
    Documents,
    Chunks,
    Audit,
    LexicalSearch,
    Vectors,
    Anchors,
    Views,
    Consolidation,
    CloneCode,
    Maintenance,
    Protocol,
):
    """One workspace's memory: every capability. Thread-safe; writes happen inside
    `transaction()`."""


class SqlStore(StoreCore, Documents, Vectors, Anchors, Protocol):
    """What the portable SQL mixins (`documents`, `views`, `anchors`, `consolidation`), the
    git history's tables (`history`) and `transfer` use of a dialect's store: its capabilities
    they call and its SQL."""

    dialect: Dialect

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
    def _planned_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """As `_rows`, for a statement whose best plan depends on its parameters."""
        ...

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def analyze(self) -> None:
        """Bring the query planner's statistics up to date after a bulk load."""
        ...

    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    def _insert_rows(self, head: str, rows: Sequence[Sequence[Any]]) -> None:
        """Many rows per INSERT statement (see `documents.DocumentQueries._insert_rows`)."""
        ...

    def _insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT of one row and return its id."""
        ...

    def _predicate(self, filters: Filters) -> tuple[str, list[Any]]: ...
    def _one(self, where: str, params: Sequence[Any]) -> DocumentRow | None: ...
    def _documents(
        self,
        where: str,
        params: Sequence[Any],
        *,
        limit: int | None = None,
        offset: int = 0,
        order: str = "",
        content: bool = True,
        all_versions: bool = False,
        as_of: float | None = None,
    ) -> list[DocumentRow]: ...
    def _tags_of(self, doc_ids: list[int]) -> dict[int, list[str]]: ...
    def commit_counts(self) -> dict[str, int]: ...


__all__ = [
    "StoreCore",
    "Documents",
    "Chunks",
    "Audit",
    "LexicalSearch",
    "Vectors",
    "SharedVectors",
    "Anchors",
    "Views",
    "Consolidation",
    "CloneCode",
    "Maintenance",
    "MemoryStore",
    "SqlStore",
]
