"""The Brain: one workspace's memory. Every front end (CLI, MCP, LSP) calls these methods."""

from __future__ import annotations

import builtins
import enum
import hashlib
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import fields, paths, sourcekeys
from .categorize import categorize
from .chunking import chunk_text
from .config import Config, LoadedConfig, load_config
from .embedder import UNSET as _UNSET_PROVIDER
from .embedder import Embedder
from .embedding import EmbeddingProvider
from .errors import InvalidInputError, NanoBrainError, NotFoundError, TombstonedError
from .filters import KINDS, Filters, is_decision
from .models import (
    AuditEntry,
    Document,
    History,
    SearchResponse,
    WakeUp,
    WakeUpItem,
    WriteResult,
    origin_of,
)
from .redact import redact_json, redact_text
from .search import SearchPipeline, SearchRequest, VectorAccess
from .store import ChunkRow, DocumentRow, open_store, recover_interrupted_index
from .store.code import FULLTEXT_PENDING_KEY
from .store.spaces import Space
from .text import clip, marker_safe_end, md, one_line
from .timeutil import iso, parse_duration, parse_instant
from .trust import WorkspaceTrust

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


class _Unset(enum.Enum):
    """A default that means "not given" where None is a value."""

    UNSET = enum.auto()


_UNSET = _Unset.UNSET


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
        self.actor = actor
        """Who mutations are attributed to in the audit log: cli, mcp, lsp or harvest."""
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
        self._threads: dict[str, tuple[str, int, float]] = {}
        self._thread_lock = threading.Lock()
        self._search = SearchPipeline(self.store, self.config, self)
        if not self.store.read_only and self.store.meta_get(FULLTEXT_PENDING_KEY) == "1":
            # an index run was killed (or is running) mid bulk load
            recover_interrupted_index(self.store)

    def close(self) -> None:
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

    # -- documents ------------------------------------------------------------------------

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
        prefix = sourcekeys.reserved_prefix(source_path)
        if prefix is not None:
            raise InvalidInputError(
                f"source_path {clip(repr(source_path), 80)} is reserved: keys starting with "
                f"{prefix!r} are written by {sourcekeys.owner_of(prefix)} only"
            )
        return self._write(
            content,
            title=title,
            tags=tags,
            collection=collection,
            kind=kind,
            metadata=metadata,
            source_path=source_path,
            created_at=created_at,
            supersedes=supersedes,
            pinned=pinned,
            respect_tombstone=respect_tombstone,
            actor=actor,
            redact=self.config.redact.enabled,
        )

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
        if sourcekeys.reserved_prefix(source_path) is None:
            raise InvalidInputError(
                f"source_path {clip(repr(source_path), 80)} is no key an indexer owns"
            )
        return self._write(
            content,
            title=title,
            tags=tags,
            collection=collection,
            kind=kind,
            metadata=metadata,
            source_path=source_path,
            created_at=created_at,
            respect_tombstone=True,
            actor=actor,
            redact=True,
        )

    def _write(
        self,
        content: str,
        *,
        title: str | None,
        tags: Iterable[str],
        collection: str,
        kind: str,
        metadata: dict[str, Any] | None,
        source_path: str | None,
        created_at: float | None,
        supersedes: str | None = None,
        pinned: bool = False,
        respect_tombstone: bool,
        actor: str | None,
        redact: bool,
    ) -> WriteResult:
        content = self._check_content(content)
        user_tags = fields.clean_tags(tags)
        collection = fields.check_collection(collection)
        if kind not in KINDS or kind == "commit":
            writable = ", ".join(k for k in KINDS if k != "commit")
            raise InvalidInputError(
                f"invalid kind {kind!r}: one of {writable} (commits come from the git history)"
            )
        metadata = fields.check_metadata(metadata)
        source_path = fields.check_source_path(source_path)
        given_title = fields.clean_title(title) or ""
        # checked as given, stored redacted; before hashing: the hash is of what is stored
        if redact:
            content = redact_text(content)
            given_title, user_tags = _redact_title(given_title), _redact_tags(user_tags)
            metadata = fields.check_metadata(redact_json(metadata))
            source_path = fields.check_source_path(redact_text(source_path or "")) or None
        title = given_title or _title_of(content)
        all_tags = list(dict.fromkeys([*user_tags, *categorize(content, kind)]))
        digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
        now = time.time()
        created = updated = False
        status = "unreviewed" if self._needs_review(actor) else "active"
        notices: builtins.list[str] = []
        with self.store.transaction():
            stone = self.store.tombstone(source_path) if source_path else None
            if stone is not None and respect_tombstone:
                raise TombstonedError(f"{source_path} was deleted by the user (tombstone)")
            target = self._resolve(supersedes) if supersedes else None
            if stone is not None:
                # an explicit write wins over a forget (an indexer's does not: above): the
                # source exists again, so its tombstone goes, said here and in the log
                self.store.remove_tombstone(stone.source)
                self.store.audit(at=now, actor=actor or self.actor, action="unforget",
                                 uid=stone.doc_uid, title=stone.title,
                                 details={"source": stone.source, "by": "write"})  # fmt: skip
                notices.append(
                    f"{stone.source} was forgotten (`nano-brain forget`): this write brings it "
                    "back and lifts its tombstone (`nano-brain forget` it again to keep it "
                    "deleted)"
                )
            existing = (
                self.store.find_by_source(source_path)
                if source_path
                else self.store.find_by_hash(collection, digest)
            )
            if existing is None:
                thread, seq = self._thread_for(collection, now) if kind == "note" else (None, None)
                doc_id = self.store.insert_document(
                    uid=secrets.token_hex(6),
                    kind=kind,
                    collection=collection,
                    title=title,
                    content=content,
                    content_hash=digest,
                    source_path=source_path,
                    metadata=metadata,
                    created_at=created_at if created_at is not None else now,
                    updated_at=now,
                    recorded_at=now,
                    valid_from=created_at or now,
                    status=status,
                    author=actor or self.actor,
                    pinned=pinned,
                    thread=thread,
                    thread_seq=seq,
                )
                self.store.replace_chunks(doc_id, self._chunks(given_title, content))
                created = True
            elif existing.content_hash != digest or existing.title != title:
                doc_id = self._new_version(
                    existing, title, given_title, content, digest, metadata, now
                )
                updated = True
            else:
                doc_id = existing.id
                merged = {**existing.metadata, **metadata}
                if merged != existing.metadata:  # same text, new facts about it
                    self.store.update_metadata(doc_id, merged)
                    self._audit(
                        "metadata",
                        existing,
                        at=now,
                        actor=actor,
                        details={"keys": sorted(metadata)},
                    )
            self.store.add_tags(doc_id, all_tags)
            row = self._require(self.store.get_by_id(doc_id), "new document")
            if created or updated:
                self._audit(
                    "write" if created else "edit",
                    row,
                    at=now,
                    actor=actor,
                    prev_status=None if existing is None else existing.status,
                    new_status=row.status,
                    details={
                        "version": row.version,
                        "collection": collection,
                        "kind": kind,
                        "source_path": source_path,
                        "tags": row.tags,
                    },
                )
            if target is not None:
                self._supersede(target, row, now)
        embedded = self._after_write(doc_id, kind)
        if created or updated:
            self.enforce_storage_limit()
        row = self._require(self.store.get_by_id(doc_id), f"#{row.uid}")
        return WriteResult(
            document=Document.from_row(row),
            created=created,
            updated=updated,
            chunks=len(self.store.chunks_of(doc_id)),
            embedded=embedded,
            notices=[*notices, *_status_notices(row, existing)],
        )

    def _thread_for(self, collection: str, now: float) -> tuple[str, int]:
        """The thread a new note continues: this Brain's last note in the collection, unless
        more than `search.thread_gap` has passed since (then a new thread starts)."""
        gap = parse_duration(self.config.search.thread_gap)
        with self._thread_lock:
            thread, seq, last = self._threads.get(collection, ("", 0, 0.0))
            if not thread or now - last > gap:
                thread, seq = secrets.token_hex(8), 0
            seq += 1
            self._threads[collection] = (thread, seq, now)
        return thread, seq

    def _after_write(self, doc_id: int, kind: str) -> bool:
        """Vectors for a write: the background worker's job when one runs (the write is
        acknowledged at once); else embedded now, with a few chunks other writers left."""
        if self.embedder.running:
            self.embedder.notify()
            return False
        if not self.config.embedding.embed_on_write:
            return False
        embedded = self.embedder.embed_document(doc_id, kind)
        if embedded:
            try:  # catch up, bounded, with chunks a crashed writer left pending
                self.embedder.embed_pending(limit=self.config.embedding.batch_size)
            except NanoBrainError as exc:
                log.debug("not catching up on pending chunks: %s", exc)
        return embedded

    def _new_version(
        self,
        old: DocumentRow,
        title: str,
        given_title: str,
        content: str,
        digest: str,
        metadata: dict[str, Any],
        now: float,
    ) -> int:
        """Close the current version and insert its successor (same id, version + 1)."""
        self.store.close_version(old.id, now)
        doc_id = self.store.insert_document(
            uid=old.uid,
            kind=old.kind,
            collection=old.collection,
            title=title,
            content=content,
            content_hash=digest,
            source_path=old.source_path,
            metadata={**old.metadata, **metadata},
            created_at=old.created_at,
            updated_at=now,
            recorded_at=now,
            valid_from=now,
            version=old.version + 1,
            status=old.status,
            author=self.actor,
            access_count=old.access_count,
            last_accessed_at=old.last_accessed_at,
            pinned=old.pinned,
            thread=old.thread,
            thread_seq=old.thread_seq,
        )
        self.store.copy_tags(old.id, doc_id)
        self.store.replace_chunks(doc_id, self._chunks(given_title, content))
        self.store.copy_vectors(old.id, doc_id)
        return doc_id

    def title_from(self, text: str, width: int = 80) -> str:
        """`text` as a one-line title of at most `width` characters, cut after redaction (a
        cut made first could leave part of a secret too short to be recognised)."""
        line = " ".join(text.split())
        return clip(redact_text(line) if self.config.redact.enabled else line, width)

    def get(self, ref: str, *, lines: tuple[int, int] | None = None) -> Document:
        """A document by `#id`, id, or source path; `lines` keeps only that 1-based range."""
        doc = Document.from_row(self._resolve(ref))
        if lines is not None and doc.content is not None:
            start, end = lines
            if start < 1 or end < start:
                raise InvalidInputError(f"invalid line range {start}-{end}")
            doc.content = "\n".join(doc.content.splitlines()[start - 1 : end])
        return doc

    def wake_up(self, *, budget_chars: int = 4000, per_section: int = 5) -> WakeUp:
        """The newest and most-used active notes, decisions, recent sessions, counts."""
        if budget_chars < 200 or per_section < 1:
            raise InvalidInputError("budget_chars must be >= 200 and per_section >= 1")
        store = self.store
        pick = per_section * 3  # room to drop duplicates across sections
        decisions = [
            d
            for d in store.list_documents(Filters(), limit=pick * 4, order="created")
            if is_decision(d.collection, d.tags)
        ][:per_section]
        used = [
            d
            for d in store.list_documents(Filters(kinds=("note",)), limit=pick, order="accessed")
            if d.access_count > 0
        ]
        recent = store.list_documents(Filters(kinds=("note",)), limit=pick, order="updated")
        sessions = store.list_documents(
            Filters(kinds=("session",)), limit=per_section, order="updated"
        )
        seen: set[str] = {d.uid for d in decisions}
        used = _fresh(used, seen, per_section)
        recent = _fresh(recent, seen, per_section)
        sections = {
            "decisions": decisions,
            "most_used": used,
            "recent": recent,
            "sessions": sessions,
        }
        bodies = store.chunk_texts_of_first([d.id for rows in sections.values() for d in rows])
        counts = self.store.counts()["by_collection"]
        items = {
            name: [_wake_item(d, bodies.get(d.id, "")) for d in rows]
            for name, rows in sections.items()
        }
        text = _render_wake_up(items, counts, budget_chars)
        return WakeUp(**items, collections=counts, text=text)

    def delete(
        self, ref: str, *, tombstone: bool | None = None, actor: str | None = None
    ) -> Document:
        """Delete a document, all its versions and everything derived from them.

        A document that a harvest or the code index would re-create (kind session or code,
        with a source) leaves a tombstone so it stays deleted; `tombstone=True` forces one.
        """
        now = time.time()
        with self.store.transaction():
            row = self._resolve(ref)
            if tombstone is None:
                tombstone = row.kind in ("session", "code", "commit")
            if tombstone and row.source_path:
                self.store.add_tombstone(
                    row.source_path, row.uid, row.title, now, actor or self.actor
                )
            self.store.delete_document(row.uid)
            self._audit(
                "delete",
                row,
                at=now,
                actor=actor,
                details={
                    "versions": row.version,
                    "source_path": row.source_path,
                    "tombstone": bool(tombstone and row.source_path),
                },
            )
        return Document.from_row(row, content=False)

    def forget(self, ref: str) -> Document:
        """Delete a document and leave a tombstone on its source, whatever its kind."""
        return self.delete(ref, tombstone=True)

    def unforget(self, source: str) -> bool:
        """Remove the tombstone on a source, so it may be derived again."""
        now = time.time()
        with self.store.transaction():
            stone = self.store.tombstone(source)
            if stone is None and (stored := redact_text(source)) != source:
                stone = self.store.tombstone(stored)  # kept redacted, found by the original
            if stone is None:
                raise NotFoundError(f"no tombstone for {source}")
            self.store.remove_tombstone(stone.source)
            self.store.audit(
                at=now,
                actor=self.actor,
                action="unforget",
                uid=stone.doc_uid,
                title=stone.title,
                details={"source": stone.source},
            )
        return True

    def tombstones(self) -> list[dict[str, Any]]:
        return [
            {
                "source": t.source,
                "id": t.doc_uid,
                "title": t.title,
                "at": iso(t.created_at),
                "by": t.actor,
            }
            for t in self.store.tombstones()
        ]

    def list(
        self, filters: Filters | None = None, *, limit: int = 50, offset: int = 0
    ) -> list[Document]:
        if limit < 1 or offset < 0:
            raise InvalidInputError("limit must be >= 1 and offset >= 0")
        rows = self.store.list_documents(filters or Filters(), limit=limit, offset=offset)
        return [Document.from_row(r, content=False) for r in rows]

    def tags(self, filters: Filters | None = None) -> builtins.list[tuple[str, int]]:
        return self.store.tags(filters or Filters())

    # -- lifecycle ----------------------------------------------------------------------------

    def supersede(self, old_ref: str, new_ref: str) -> Document:
        """Mark `old_ref` superseded by `new_ref`; returns the old document, updated."""
        now = time.time()
        with self.store.transaction():
            old, new = self._resolve(old_ref), self._resolve(new_ref)
            self._supersede(old, new, now)
            row = self._require(self.store.find_current(old.uid), old_ref)
        return Document.from_row(row, content=False)

    def _supersede(self, old: DocumentRow, new: DocumentRow, now: float) -> None:
        if old.uid == new.uid:
            raise InvalidInputError("a document cannot supersede itself")
        seen = {new.uid}
        successor = new.superseded_by
        while successor is not None:
            if successor == old.uid:
                raise InvalidInputError(
                    f"#{old.uid} cannot be superseded by #{new.uid}: #{new.uid} is already "
                    f"(transitively) superseded by #{old.uid}, which would make a cycle"
                )
            if successor in seen:
                break
            seen.add(successor)
            nxt = self.store.find_current(successor)
            successor = nxt.superseded_by if nxt else None
        self.store.set_status(old.uid, "superseded", now, superseded_by=new.uid, actor=self.actor)
        self._audit(
            "supersede",
            old,
            at=now,
            new_status="superseded",
            details={"superseded_by": new.uid, "previous_successor": old.superseded_by},
        )

    def retract(self, ref: str, *, reason: str = "") -> Document:
        """Mark a document as wrong: kept for the record, never returned by default."""
        return self._change_status(ref, "retracted", action="retract", details={"reason": reason})

    def confirm(self, ref: str) -> Document:
        """A person confirms an unreviewed (or retracted) document: it becomes active."""
        return self._change_status(ref, "active", action="confirm")

    def _change_status(
        self, ref: str, status: str, *, action: str, details: dict[str, Any] | None = None
    ) -> Document:
        now = time.time()
        with self.store.transaction():
            row = self._resolve(ref)
            if row.status == status:
                return Document.from_row(row, content=False)
            self.store.set_status(row.uid, status, now, actor=self.actor)
            self._audit(action, row, at=now, new_status=status, details=details)
            row = self._require(self.store.find_current(row.uid), ref)
        return Document.from_row(row, content=False)

    def pin(self, ref: str, pinned: bool = True) -> Document:
        """Pinned documents are never evicted by the storage limit."""
        now = time.time()
        with self.store.transaction():
            row = self._resolve(ref)
            self.store.set_pinned(row.uid, pinned)
            self._audit("pin" if pinned else "unpin", row, at=now, prev_status=None)
            row = self._require(self.store.find_current(row.uid), ref)
        return Document.from_row(row, content=False)

    def history(self, ref: str) -> History:
        """Every version of a document (oldest first) and its audit events."""
        row = self._resolve(ref)
        versions = [Document.from_row(v) for v in self.store.versions(row.uid)]
        events = [AuditEntry.from_row(a) for a in self.store.audit_rows(uid=row.uid, limit=1000)]
        return History(id=row.uid, versions=versions, events=events)

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

    def enforce_storage_limit(self) -> builtins.list[Document]:
        """Evict documents until the store is under `storage.max_size` (if set)."""
        limit = self.config.storage.max_size_bytes()
        if limit is None or self.store.logical_size() <= limit:
            return []
        evicted: list[Document] = []
        decay = self.config.decay
        while self.store.logical_size() > limit:
            batch = self.store.eviction_candidates(
                by_access=decay.enabled,
                tier_seconds=decay.half_life_days() * 86400,
                protect_decisions=not self.config.storage.evict_decisions,
                limit=10,
            )
            if not batch:
                log.warning(
                    "store is over %s but nothing more may be evicted", self.config.storage.max_size
                )
                break
            for row in batch:
                with self.store.transaction():
                    self.store.delete_document(row.uid)
                    self._audit(
                        "evict",
                        row,
                        details={
                            "access_count": row.access_count,
                            "limit": self.config.storage.max_size,
                        },
                    )
                evicted.append(Document.from_row(row, content=False))
                if self.store.logical_size() <= limit:
                    break
        return evicted

    def _audit(
        self,
        action: str,
        row: DocumentRow | None = None,
        *,
        at: float | None = None,
        actor: str | None = None,
        prev_status: str | None | _Unset = _UNSET,
        new_status: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        """Append to the audit log as this Brain's actor; `prev_status` defaults to the row's."""
        self.store.audit(
            at=time.time() if at is None else at,
            actor=actor or self.actor,
            action=action,
            uid=row.uid if row else None,
            title=row.title if row else None,
            prev_status=(row.status if row else None) if prev_status is _UNSET else prev_status,
            new_status=new_status,
            details=details,
        )

    def _needs_review(self, actor: str | None = None) -> bool:
        return self.config.review.enabled and (actor or self.actor) in ("mcp", "harvest")

    # -- search -----------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResponse:
        """Hybrid, lexical or vector search, per `request.mode`.

        Each document returned is counted as accessed once (one batched update), unless the
        request says `track=False` (internal lookups).
        """
        response = self._search.run(request)
        track = request.track and self.config.search.track_access
        if track and response.results and request.as_of is None:
            self.store.track_access([hit.id for hit in response.results], time.time())
        return response

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

    def pending_embeddings(self, space: Space | None = None) -> int:
        """Chunks still waiting for a vector (of one space, or all)."""
        return self.store.pending_count(space)

    def reembed(self, *, progress: Progress | None = None, space: Space | None = None) -> int:
        """Drop the vectors (of one space, or all) and embed the chunks again."""
        return self.embedder.reembed(progress=progress, space=space)

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

    # -- helpers ---------------------------------------------------------------------------

    def _check_content(self, content: object) -> str:
        if not isinstance(content, str):
            raise InvalidInputError("content must be text")
        content = fields.strip_bom(content)
        if not content.strip():
            raise InvalidInputError("content is empty")
        try:
            size = len(content.encode("utf-8"))
        except UnicodeEncodeError:
            raise InvalidInputError("content is not valid UTF-8 (lone surrogate)") from None
        cap = self.config.storage.max_content_bytes
        if size > cap:
            raise InvalidInputError(f"content is {size} bytes, over the {cap}-byte cap")
        if "\x00" in content:
            raise InvalidInputError("content contains NUL bytes (binary data?)")
        return content

    def _chunks(self, title: str, content: str) -> builtins.list[ChunkRow]:
        cfg = self.config.chunking
        return [
            ChunkRow(c.seq, title, c.text, c.heading, c.start_line, c.end_line)
            for c in chunk_text(content, max_chars=cfg.max_chars, overlap_chars=cfg.overlap_chars)
        ]

    def _resolve(self, ref: str) -> DocumentRow:
        ref = (ref or "").strip()
        if not ref:
            raise InvalidInputError("a document id (#id) or source path is required")
        uid = ref[1:] if ref.startswith("#") else ref
        row = self.store.find_current(uid) if re.fullmatch(r"[0-9a-f]{12}", uid) else None
        if row is None and not ref.startswith("#"):
            row = self.store.find_by_source(ref)
            if row is None and (stored := redact_text(ref)) != ref:
                row = self.store.find_by_source(stored)  # kept redacted, found by the original
        return self._require(row, ref)

    @staticmethod
    def _require(row: DocumentRow | None, ref: str) -> DocumentRow:
        if row is None:
            raise NotFoundError(f"no document {ref} in this workspace")
        return row


def _fresh(rows: list[DocumentRow], seen: set[str], n: int) -> list[DocumentRow]:
    out = [r for r in rows if r.uid not in seen][:n]
    seen.update(r.uid for r in out)
    return out


def _wake_item(row: DocumentRow, body: str) -> WakeUpItem:
    return WakeUpItem(
        id=row.uid,
        title=row.title,
        collection=row.collection,
        kind=row.kind,
        tags=row.tags,
        updated_at=iso(row.updated_at) or "",
        access_count=row.access_count,
        snippet=one_line(body, 240),
        origin=origin_of(row),
    )


def _render_wake_up(items: dict[str, list[WakeUpItem]], counts: dict[str, int], budget: int) -> str:
    """Markdown within `budget` characters: whole lines only, sections in priority order."""
    titles = {
        "decisions": "Decisions",
        "most_used": "Most used",
        "recent": "Recent notes",
        "sessions": "Recent sessions",
    }
    lines = [
        "# Workspace memory",
        "Collections: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"),
    ]
    for name, entries in items.items():
        if not entries:
            continue
        lines.append(f"## {titles[name]}")
        lines.extend(
            f"- #{e.id} {md(e.title)} ({e.origin}, {e.updated_at[:10]}): {md(e.snippet)}"
            for e in entries
        )
    out: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            line = line[: max(0, budget - used - 2)] + "…"
            out.append(line)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def _status_notices(row: DocumentRow, before: DocumentRow | None) -> list[str]:
    """What a write that left a note hidden says: a write never changes a status (a retract
    or supersede is a decision of its own, recorded with its reason), so the way back is
    named instead. `before` is the version the write found, if any."""
    back = f"`nano-brain confirm #{row.uid}` makes it active again"
    if row.status == "retracted":
        return [f"#{row.uid} is retracted: hidden from searches and hovers; {back}"]
    new = row.superseded_by or (before.superseded_by if before is not None else None)
    if row.status == "superseded" and new:
        return [f"#{row.uid} is superseded by #{new}: reads show #{new} instead; {back}"]
    return []


def _title_of(content: str) -> str:
    for line in content.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[: marker_safe_end(line, 80)]
    return "untitled"


def _redact_title(title: str) -> str:
    """A title redacted, within the title limit (a marker can be longer than its secret)."""
    return clip(redact_text(title), fields.MAX_TITLE_CHARS) if title else title


def _redact_tags(tags: list[str]) -> list[str]:
    """Tags redacted: a marker holds no space or comma, so a tag stays a tag once within the
    length limit; two tags that differ only by their secret become one."""
    return list(dict.fromkeys(clip(redact_text(t), fields.MAX_TAG_CHARS) for t in tags))
