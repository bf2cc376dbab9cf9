"""The Brain: one workspace's memory. Every front end (CLI, MCP, LSP) calls these methods.

The Brain opens the store, the `Embedder` and the `SearchPipeline` together, and hands the
work to services over the same store: `writing.Writer` (the write path),
`lifecycle.Lifecycle` (status changes, deletion, eviction) and `wakeup` (the wake-up digest);
`ledger.Ledger` finds documents by reference and audits every change for them.
"""

from __future__ import annotations

import builtins
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import paths
from .config import Config, LoadedConfig, load_config
from .embedder import UNSET as _UNSET_PROVIDER
from .embedder import Embedder
from .embedding import EmbeddingProvider
from .embedprogress import SpaceProgress
from .errors import InvalidInputError
from .filters import Filters
from .ledger import Ledger
from .lifecycle import Lifecycle
from .models import (
    AuditEntry,
    Document,
    DocumentVersions,
    SearchResponse,
    WakeUp,
    WriteResult,
)
from .search import SearchPipeline, SearchRequest, VectorAccess
from .store import open_store, recover_interrupted_index
from .store.code import FULLTEXT_PENDING_KEY
from .store.spaces import Space
from .store.views import AnchorView, FileWeight, TimelineBucket, TimelinePoint
from .timeutil import parse_instant
from .trust import WorkspaceTrust
from .wakeup import wake_up
from .writing import Draft, Writer

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


class Brain(VectorAccess):
    """A workspace's store, embedding provider and search pipeline, opened together."""

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        config: Config | LoadedConfig | None = None,
        db_path: str | Path | None = None,
        provider: EmbeddingProvider | None = _UNSET_PROVIDER,
        code_provider: EmbeddingProvider | None = _UNSET_PROVIDER,
        actor: str = "cli",
    ) -> None:
        self.root = paths.workspace_root(root)
        if not self.root.is_dir():
            raise InvalidInputError(f"workspace {self.root} is not a directory")
        if config is None:
            config = load_config(self.root)
        loaded = config if isinstance(config, LoadedConfig) else None
        self.config: Config = config.config if isinstance(config, LoadedConfig) else config
        self.config_warnings: list[str] = loaded.warnings if loaded else []
        self.config_trust: WorkspaceTrust | None = loaded.trust if loaded else None
        """The verdict on the workspace's own config file, when it sets anything needing trust."""
        self.workspace_id = paths.workspace_id(self.root)
        path = db_path or self.config.storage.db_path or paths.default_db_path(self.root)
        self.store = open_store(self.config, Path(path).expanduser(), self.workspace_id, self.root)
        self.embedder = Embedder(
            self.store, self.config.embedding, text=provider, code=code_provider
        )
        """Providers per embedding space, the pending queue and its background worker."""
        self._ledger = Ledger(self.store, actor)
        self._lifecycle = Lifecycle(self._ledger, self.config)
        self._writer = Writer(self._ledger, self.config, self.embedder, self._lifecycle)
        self._search = SearchPipeline(self.store, self.config, self)
        if not self.store.read_only and self.store.meta_get(FULLTEXT_PENDING_KEY) == "1":
            # an index run was killed (or is running) mid bulk load
            recover_interrupted_index(self.store)

    @property
    def actor(self) -> str:
        """Who mutations are attributed to in the audit log: cli, mcp, lsp or harvest."""
        return self._ledger.actor

    @actor.setter
    def actor(self, actor: str) -> None:
        self._ledger.actor = actor

    def close(self) -> None:
        """Stop the embedding worker and close the store."""
        self.embedder.stop()
        self.store.close()

    def __enter__(self) -> Brain:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- embedding provider -------------------------------------------------------------

    def provider(self, space: Space = "text") -> tuple[EmbeddingProvider | None, str]:
        """A space's provider when its vectors match the store's; else None and the reason."""
        return self.embedder.provider(space)

    def providers(self) -> tuple[EmbeddingProvider | None, EmbeddingProvider | None]:
        """The loaded (text, code) providers, to share with other Brains of one process."""
        return self.embedder.loaded("text"), self.embedder.loaded("code")

    # -- writing ----------------------------------------------------------------------------

    def write(
        self,
        content: str,
        *,
        title: str | None = None,
        tags: Iterable[str] = (),
        collection: str = "memory",
        kind: str = "note",
        metadata: dict[str, Any] | None = None,
        source_path: str | None = None,
        created_at: float | None = None,
        supersedes: str | None = None,
        pinned: bool = False,
        respect_tombstone: bool = False,
        actor: str | None = None,
    ) -> WriteResult:
        """Store a note; lexically searchable on return.

        Identical content is idempotent. Writing new content to an existing source path makes
        a new version and keeps the old one. `supersedes` marks another document superseded
        by this one (an unknown target or a cycle is an error and nothing is written).
        With `respect_tombstone`, a source the user deleted is not written again. `actor`
        overrides who the audit log names (a shared sidecar Brain writing for the harvester).
        A source key an indexer owns (see `sourcekeys`) is refused: see `write_derived`.
        With `redact.enabled`, every text stored is redacted: content, title, tags,
        metadata and source path.
        """
        return self._writer.write(
            Draft(
                content, title, tags, collection, kind, metadata, source_path,
                created_at=created_at, supersedes=supersedes, pinned=pinned,
                respect_tombstone=respect_tombstone, actor=actor,
            )
        )  # fmt: skip

    def write_derived(
        self,
        content: str,
        *,
        source_path: str,
        title: str | None = None,
        tags: Iterable[str] = (),
        collection: str = "memory",
        kind: str = "note",
        metadata: dict[str, Any] | None = None,
        created_at: float | None = None,
        actor: str | None = None,
    ) -> WriteResult:
        """Store what an indexer derived, under a source key it owns (`sourcekeys`).

        For the indexers only (the harvester's summaries and decisions): every field is
        redacted whatever `redact.enabled` says (the text may come from a stranger), and a
        source the user deleted raises TombstonedError.
        """
        return self._writer.write_derived(
            Draft(
                content, title, tags, collection, kind, metadata, source_path,
                created_at=created_at, actor=actor,
            )
        )  # fmt: skip

    def title_from(self, text: str, width: int = 80) -> str:
        """`text` as a one-line title of at most `width` characters, cut after redaction (a
        cut made first could leave part of a secret too short to be recognised)."""
        return self._writer.title_from(text, width)

    # -- reading ----------------------------------------------------------------------------

    def get(self, ref: str, *, lines: tuple[int, int] | None = None) -> Document:
        """A document by `#id`, id, or source path; `lines` keeps only that 1-based range."""
        doc = Document.from_row(self._ledger.resolve(ref))
        if lines is not None and doc.content is not None:
            start, end = lines
            if start < 1 or end < start:
                raise InvalidInputError(f"invalid line range {start}-{end}")
            doc.content = "\n".join(doc.content.splitlines()[start - 1 : end])
        return doc

    def list(
        self, filters: Filters | None = None, *, limit: int = 50, offset: int = 0
    ) -> builtins.list[Document]:
        """Documents the filters select (without content), most recently updated first."""
        if limit < 1 or offset < 0:
            raise InvalidInputError("limit must be >= 1 and offset >= 0")
        rows = self.store.list_documents(filters or Filters(), limit=limit, offset=offset)
        return [Document.from_row(r, content=False) for r in rows]

    def tags(self, filters: Filters | None = None) -> builtins.list[tuple[str, int]]:
        """Each tag of the documents the filters select, with its count; most used first."""
        return self.store.tags(filters or Filters())

    def wake_up(self, *, budget_chars: int = 4000, per_section: int = 5) -> WakeUp:
        """The newest and most-used active notes, decisions, recent sessions, counts."""
        return wake_up(self.store, budget_chars=budget_chars, per_section=per_section)

    def history(self, ref: str) -> DocumentVersions:
        """Every version of a document (oldest first) and its audit events."""
        row = self._ledger.resolve(ref)
        versions = [Document.from_row(v) for v in self.store.versions(row.uid)]
        events = [AuditEntry.from_row(a) for a in self.store.audit_rows(uid=row.uid, limit=1000)]
        return DocumentVersions(id=row.uid, versions=versions, events=events)

    def log(self, *, ref: str | None = None, limit: int = 50) -> builtins.list[AuditEntry]:
        """The audit log, newest first (optionally for one document id)."""
        if limit < 1:
            raise InvalidInputError("limit must be >= 1")
        uid = ref.lstrip("#") if ref else None
        return [AuditEntry.from_row(a) for a in self.store.audit_rows(uid=uid, limit=limit)]

    def prune_log(self, *, older_than: str) -> int:
        """Delete audit entries older than a duration (e.g. `365d`); the prune is logged."""
        cutoff = parse_instant(older_than)
        return self.store.prune_audit(
            cutoff, at=time.time(), actor=self.actor, details={"older_than": older_than}
        )

    # -- lifecycle ----------------------------------------------------------------------------

    def supersede(self, old_ref: str, new_ref: str) -> Document:
        """Mark `old_ref` superseded by `new_ref`; returns the old document, updated."""
        return self._lifecycle.supersede(old_ref, new_ref)

    def retract(self, ref: str, *, reason: str = "") -> Document:
        """Mark a document as wrong: kept for the record, never returned by default."""
        return self._lifecycle.change_status(
            ref, "retracted", action="retract", details={"reason": reason}
        )

    def confirm(self, ref: str) -> Document:
        """A person confirms an unreviewed (or retracted) document: it becomes active."""
        return self._lifecycle.change_status(ref, "active", action="confirm")

    def pin(self, ref: str, pinned: bool = True) -> Document:
        """Pinned documents are never evicted by the storage limit."""
        return self._lifecycle.pin(ref, pinned)

    def delete(
        self, ref: str, *, tombstone: bool | None = None, actor: str | None = None
    ) -> Document:
        """Delete a document, all its versions and everything derived from them.

        A document that a harvest or the code index would re-create (kind session or code,
        with a source) leaves a tombstone so it stays deleted; `tombstone=True` forces one.
        """
        return self._lifecycle.delete(ref, tombstone=tombstone, actor=actor)

    def forget(self, ref: str) -> Document:
        """Delete a document and leave a tombstone on its source, whatever its kind."""
        return self.delete(ref, tombstone=True)

    def unforget(self, source: str) -> bool:
        """Remove the tombstone on a source, so it may be derived again."""
        return self._lifecycle.unforget(source)

    def tombstones(self) -> builtins.list[dict[str, Any]]:
        """The sources deleted for good: source, document id and title, when, by whom."""
        return self._lifecycle.tombstones()

    def enforce_storage_limit(self) -> builtins.list[Document]:
        """Evict documents until the store is under `storage.max_size` (if set)."""
        return self._lifecycle.enforce_storage_limit()

    # -- search -----------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResponse:
        """Hybrid, lexical or vector search, per `request.mode`.

        Each document returned is counted as accessed once (one batched update), unless the
        request says `track=False` (internal lookups).
        """
        # what is offered unasked (a hover's related memory) keeps to its few milliseconds
        if request.mode != "lexical" and request.as_of is None and request.floor != "related":
            self._embed_waiting_notes()
        response = self._search.run(request)
        track = request.track and self.config.search.track_access
        if track and response.results and request.as_of is None:
            self.store.track_access([hit.id for hit in response.results], time.time())
        return response

    def _embed_waiting_notes(self) -> None:
        """What was just written is found by its meaning: the notes still waiting for their
        vector (another process wrote them, or this one's worker has not come to them) are
        embedded before the search reads the vectors. Never fails a search."""
        try:
            self.embedder.embed_waiting_notes()
        except Exception as exc:  # the search runs on what has vectors, and says partial
            log.debug("notes not embedded before the search: %s", exc)

    # -- embeddings -------------------------------------------------------------------------

    def embed_pending(
        self,
        *,
        progress: Progress | None = None,
        limit: int | None = None,
        space: Space | None = None,
    ) -> int:
        """Embed chunks that have no vector yet, in batches; returns how many were stored."""
        return self.embedder.embed_pending(progress=progress, limit=limit, space=space)

    def prioritize_embedding(self, paths: Iterable[str]) -> int:
        """Embed the code of these files (workspace-relative POSIX paths: the files open in
        an editor) before the rest of the pending code; returns how many chunks moved up."""
        return self.embedder.prioritize(list(paths))

    def embedding_progress(self) -> dict[Space, SpaceProgress]:
        """Per space: chunks with a vector, chunks waiting, the recent rate and an estimate."""
        return self.embedder.progress()

    def pending_embeddings(self, space: Space | None = None) -> int:
        """Chunks still waiting for a vector (of one space, or all)."""
        return self.store.pending_count(space)

    def reembed(self, *, progress: Progress | None = None, space: Space | None = None) -> int:
        """Drop the vectors (of one space, or all) and embed the chunks again."""
        return self.embedder.reembed(progress=progress, space=space)

    # -- views (the memory page) --------------------------------------------------------------

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only (it refuses writes)."""
        return self.store.read_only

    @property
    def store_path(self) -> Path:
        """The store's file; in team mode, this clone's local file (the code index)."""
        return self.store.path

    def counts(self) -> dict[str, Any]:
        """Current documents (in all, by kind, collection and status), versions, chunks, vectors."""
        return self.store.counts()

    def time_span(self, filters: Filters) -> tuple[float, float] | None:
        """The first and last creation time of the documents `filters` selects, if any."""
        return self.store.time_span(filters)

    def timeline_buckets(
        self, filters: Filters, origin: float, width: float
    ) -> builtins.list[TimelineBucket]:
        """Documents per kind in buckets of `width` seconds from `origin`."""
        return self.store.timeline_buckets(filters, origin, width)

    def timeline_points(self, filters: Filters, limit: int) -> builtins.list[TimelinePoint]:
        """Decisions and the documents of supersede chains, newest first, at most `limit`."""
        return self.store.timeline_points(filters, limit)

    def successors_of(self, uids: builtins.list[str]) -> dict[str, tuple[str, str]]:
        """The current title and status of each document named that exists, by id."""
        return self.store.successors_of(uids)

    def superseded_by_this(self, uid: str) -> builtins.list[tuple[str, str, str]]:
        """(id, title, status) of the documents `uid` superseded."""
        return self.store.superseded_by_this(uid)

    def anchor_weights(self) -> builtins.list[FileWeight]:
        """Per file: the visible notes anchored in it, their anchors, how many are stale."""
        return self.store.anchor_weights(Filters())

    def note_anchors(self, uid: str) -> builtins.list[AnchorView]:
        """The anchors of one note, whatever its status."""
        return self.store.anchor_views(doc_uid=uid)

    def file_anchors(self, path: str) -> builtins.list[AnchorView]:
        """The anchors in one file of the notes a default search may show."""
        return self.store.anchor_views(path=path, visible=Filters())

    # -- status -------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Counts, models and which search legs can run (loads no model to say so)."""
        counts = self.store.counts()
        text, code = self.embedder.describe("text"), self.embedder.describe("code")
        return {
            "workspace": str(self.root),
            "workspace_id": self.workspace_id,
            "store": str(self.store.path),
            "store_bytes": self.store.file_size(),
            "schema_version": self.store.schema_version(),
            **counts,
            "embedding": {
                "provider": self.config.embedding.provider,
                "model": text["model"],
                "store_model": text["store_model"],
                "store_dim": text["store_dim"],
                "code_model": code["model"],
                "code_store_model": code["store_model"],
                "code_pending": code["pending"],
            },
            "legs": {"lexical": "ok", "vector": text["state"], "code_vector": code["state"]},
            "embedding_progress": {s: p.to_dict() for s, p in self.embedding_progress().items()},
            "config_warnings": self.config_warnings,
            **self._team_and_code_index(),
        }

    def _team_and_code_index(self) -> dict[str, Any]:
        """In team mode, the server, the team's workspace and its schema, and this clone's
        code index file with its own schema; both None for a local store."""
        store = self.store
        local = store.local
        if local is store:
            return {"team": None, "code_index": None}
        return {
            "team": {
                "server": store.location,  # without a password, parameters masked
                "workspace": store.workspace_id,
                "schema_version": store.schema_version(),
            },
            "code_index": {
                "path": str(local.path),
                "bytes": local.file_size(),
                "schema_version": local.schema_version(),
            },
        }
