"""The write path of a Brain: a note checked, redacted, stored as a new document or a new
version of the one at its source, tagged, chunked, audited, and embedded (or queued)."""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

from . import fields, sourcekeys
from .categorize import categorize
from .chunking import chunk_text
from .config import Config
from .embedder import Embedder
from .errors import InvalidInputError, NanoBrainError, TombstonedError
from .filters import KINDS
from .ledger import Ledger
from .lifecycle import Lifecycle
from .models import Document, WriteResult
from .redact import redact_json, redact_text
from .store.rows import ChunkRow, DocumentRow, Tombstone
from .text import clip, marker_safe_end
from .timeutil import parse_duration

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Draft:
    """A note as its writer gives it, before it is checked, and how to write it (see
    Brain.write)."""

    content: str
    title: str | None
    tags: Iterable[str]
    collection: str
    kind: str
    metadata: dict[str, Any] | None
    source_path: str | None
    _: KW_ONLY
    created_at: float | None = None
    supersedes: str | None = None
    pinned: bool = False
    respect_tombstone: bool = False
    actor: str | None = None


@dataclass(frozen=True, slots=True)
class _Checked:
    """A write's fields once checked, and redacted when asked: what is stored."""

    content: str
    title: str
    given_title: str
    """The title as the writer gave it (empty if none): the chunks' heading."""
    tags: list[str]
    """The writer's tags, then the categories found in the content."""
    collection: str
    kind: str
    metadata: dict[str, Any]
    source_path: str | None
    digest: str


class Writer:
    """Writes of one Brain; a note continues its collection's thread (see `_thread_for`)."""

    def __init__(
        self, ledger: Ledger, config: Config, embedder: Embedder, lifecycle: Lifecycle
    ) -> None:
        self._ledger = ledger
        self._store = ledger.store
        self._config = config
        self._embedder = embedder
        self._lifecycle = lifecycle
        self._threads: dict[str, tuple[str, int, float]] = {}
        self._thread_lock = threading.Lock()

    def write(self, draft: Draft) -> WriteResult:
        """A writer's note (see Brain.write); a source key an indexer owns is refused."""
        prefix = sourcekeys.reserved_prefix(draft.source_path)
        if prefix is not None:
            raise InvalidInputError(
                f"source_path {clip(repr(draft.source_path), 80)} is reserved: keys starting "
                f"with {prefix!r} are written by {sourcekeys.owner_of(prefix)} only"
            )
        return self._store_checked(self._checked(draft, self._config.redact.enabled), draft)

    def write_derived(self, draft: Draft) -> WriteResult:
        """What an indexer derived (see Brain.write_derived): always redacted, and refused
        under a source the user deleted."""
        if sourcekeys.reserved_prefix(draft.source_path) is None:
            raise InvalidInputError(
                f"source_path {clip(repr(draft.source_path), 80)} is no key an indexer owns"
            )
        derived = replace(draft, supersedes=None, pinned=False, respect_tombstone=True)
        return self._store_checked(self._checked(derived, True), derived)

    def title_from(self, text: str, width: int = 80) -> str:
        """`text` as a one-line title of at most `width` characters, cut after redaction (a
        cut made first could leave part of a secret too short to be recognised)."""
        line = " ".join(text.split())
        return clip(redact_text(line) if self._config.redact.enabled else line, width)

    # -- checking -------------------------------------------------------------------------

    def _checked(self, draft: Draft, redact: bool) -> _Checked:
        content = self._check_content(draft.content)
        user_tags = fields.clean_tags(draft.tags)
        collection = fields.check_collection(draft.collection)
        kind = draft.kind
        if kind not in KINDS or kind == "commit":
            writable = ", ".join(k for k in KINDS if k != "commit")
            raise InvalidInputError(
                f"invalid kind {kind!r}: one of {writable} (commits come from the git history)"
            )
        checked_metadata = fields.check_metadata(draft.metadata)
        source_path = fields.check_source_path(draft.source_path)
        given_title = fields.clean_title(draft.title) or ""
        # checked as given, stored redacted; before hashing: the hash is of what is stored
        if redact:
            content = redact_text(content)
            given_title, user_tags = _redact_title(given_title), _redact_tags(user_tags)
            checked_metadata = fields.check_metadata(redact_json(checked_metadata))
            source_path = fields.check_source_path(redact_text(source_path or "")) or None
        return _Checked(
            content=content,
            title=given_title or _title_of(content),
            given_title=given_title,
            tags=list(dict.fromkeys([*user_tags, *categorize(content, kind)])),
            collection=collection,
            kind=kind,
            metadata=checked_metadata,
            source_path=source_path,
            digest=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        )

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
        cap = self._config.storage.max_content_bytes
        if size > cap:
            raise InvalidInputError(f"content is {size} bytes, over the {cap}-byte cap")
        if "\x00" in content:
            raise InvalidInputError("content contains NUL bytes (binary data?)")
        return content

    # -- storing --------------------------------------------------------------------------

    def _store_checked(self, new: _Checked, draft: Draft) -> WriteResult:
        """Store a checked note as `draft` says: a new document, or a new version of the one
        at its source; its chunks embedded or queued."""
        actor = draft.actor
        now = time.time()
        notices: list[str] = []
        store = self._store
        with store.transaction():
            stone = store.tombstone(new.source_path) if new.source_path else None
            if stone is not None and draft.respect_tombstone:
                raise TombstonedError(f"{new.source_path} was deleted by the user (tombstone)")
            target = self._ledger.resolve(draft.supersedes) if draft.supersedes else None
            if stone is not None:
                notices.append(self._lift_tombstone(stone, actor, now))
            existing = (
                store.find_by_source(new.source_path)
                if new.source_path
                else store.find_by_hash(new.collection, new.digest)
            )
            doc_id, action = self._put(new, existing, draft.created_at, draft.pinned, actor, now)
            store.add_tags(doc_id, new.tags)
            row = self._ledger.require(store.get_by_id(doc_id), "new document")
            if action is not None:
                self._ledger.audit(
                    action,
                    row,
                    at=now,
                    actor=actor,
                    prev_status=None if existing is None else existing.status,
                    new_status=row.status,
                    details={
                        "version": row.version,
                        "collection": new.collection,
                        "kind": new.kind,
                        "source_path": new.source_path,
                        "tags": row.tags,
                    },
                )
            if target is not None:
                self._lifecycle.mark_superseded(target, row, now)
        embedded = self._after_write(doc_id, new.kind)
        if action is not None:
            self._lifecycle.enforce_storage_limit()
        row = self._ledger.require(store.get_by_id(doc_id), f"#{row.uid}")
        return WriteResult(
            document=Document.from_row(row),
            created=action == "write",
            updated=action == "edit",
            chunks=len(store.chunks_of(doc_id)),
            embedded=embedded,
            notices=[*notices, *_status_notices(row, existing)],
        )

    def _lift_tombstone(self, stone: Tombstone, actor: str | None, now: float) -> str:
        """An explicit write wins over a forget (an indexer's does not: it is refused): the
        source exists again, so its tombstone goes, said in the log and in the notice returned."""
        self._store.remove_tombstone(stone.source)
        self._store.audit(at=now, actor=actor or self._ledger.actor, action="unforget",
                          uid=stone.doc_uid, title=stone.title,
                          details={"source": stone.source, "by": "write"})  # fmt: skip
        return (
            f"{stone.source} was forgotten (`nano-brain forget`): this write brings it "
            "back and lifts its tombstone (`nano-brain forget` it again to keep it "
            "deleted)"
        )

    def _put(
        self,
        new: _Checked,
        existing: DocumentRow | None,
        created_at: float | None,
        pinned: bool,
        actor: str | None,
        now: float,
    ) -> tuple[int, str | None]:
        """The document's row id, and the audit action: `write` for a new document, `edit`
        for a new version, None when the text was there already (its metadata merged)."""
        if existing is None:
            return self._insert(new, created_at, pinned, actor, now), "write"
        if existing.content_hash != new.digest or existing.title != new.title:
            return self._new_version(existing, new, now), "edit"
        merged = {**existing.metadata, **new.metadata}
        if merged != existing.metadata:  # same text, new facts about it
            self._store.update_metadata(existing.id, merged)
            self._ledger.audit(
                "metadata", existing, at=now, actor=actor, details={"keys": sorted(new.metadata)}
            )
        return existing.id, None

    def _insert(
        self, new: _Checked, created_at: float | None, pinned: bool, actor: str | None, now: float
    ) -> int:
        thread, seq = self._thread_for(new.collection, now) if new.kind == "note" else (None, None)
        doc_id = self._store.insert_document(
            uid=secrets.token_hex(6),
            kind=new.kind,
            collection=new.collection,
            title=new.title,
            content=new.content,
            content_hash=new.digest,
            source_path=new.source_path,
            metadata=new.metadata,
            created_at=created_at if created_at is not None else now,
            updated_at=now,
            recorded_at=now,
            valid_from=created_at or now,
            status="unreviewed" if self._needs_review(actor) else "active",
            author=actor or self._ledger.actor,
            pinned=pinned,
            thread=thread,
            thread_seq=seq,
        )
        self._store.replace_chunks(doc_id, self._chunks(new.given_title, new.content))
        return doc_id

    def _needs_review(self, actor: str | None) -> bool:
        """Whether a new document waits for a person: with `review.enabled`, an agent's."""
        return self._config.review.enabled and (actor or self._ledger.actor) in ("mcp", "harvest")

    def _new_version(self, old: DocumentRow, new: _Checked, now: float) -> int:
        """Close the current version and insert its successor (same id, version + 1)."""
        self._store.close_version(old.id, now)
        doc_id = self._store.insert_document(
            uid=old.uid,
            kind=old.kind,
            collection=old.collection,
            title=new.title,
            content=new.content,
            content_hash=new.digest,
            source_path=old.source_path,
            metadata={**old.metadata, **new.metadata},
            created_at=old.created_at,
            updated_at=now,
            recorded_at=now,
            valid_from=now,
            version=old.version + 1,
            status=old.status,
            author=self._ledger.actor,
            access_count=old.access_count,
            last_accessed_at=old.last_accessed_at,
            pinned=old.pinned,
            thread=old.thread,
            thread_seq=old.thread_seq,
        )
        self._store.copy_tags(old.id, doc_id)
        self._store.replace_chunks(doc_id, self._chunks(new.given_title, new.content))
        self._store.copy_vectors(old.id, doc_id)
        return doc_id

    def _chunks(self, title: str, content: str) -> list[ChunkRow]:
        cfg = self._config.chunking
        return [
            ChunkRow(c.seq, title, c.text, c.heading, c.start_line, c.end_line)
            for c in chunk_text(content, max_chars=cfg.max_chars, overlap_chars=cfg.overlap_chars)
        ]

    def _thread_for(self, collection: str, now: float) -> tuple[str, int]:
        """The thread a new note continues: this Brain's last note in the collection, unless
        more than `search.thread_gap` has passed since (then a new thread starts)."""
        gap = parse_duration(self._config.search.thread_gap)
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
        if self._embedder.running:
            self._embedder.notify()
            return False
        if not self._config.embedding.embed_on_write:
            return False
        embedded = self._embedder.embed_document(doc_id, kind)
        if embedded:
            try:  # catch up, bounded, with chunks a crashed writer left pending
                self._embedder.embed_pending(limit=self._config.embedding.batch_size)
            except NanoBrainError as exc:
                log.debug("not catching up on pending chunks: %s", exc)
        return embedded


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
