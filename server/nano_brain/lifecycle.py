"""A document's life after it is written: superseded, retracted, confirmed, pinned, deleted or
forgotten (with a tombstone), or evicted by the storage limit. Each change is audited."""

from __future__ import annotations

import logging
import time
from typing import Any

from .config import Config
from .errors import InvalidInputError, NotFoundError
from .ledger import Ledger
from .models import Document
from .redact import redact_text
from .store.rows import DocumentRow
from .timeutil import iso

log = logging.getLogger(__name__)


class Lifecycle:
    """Status changes, deletions and eviction of one Brain's documents."""

    def __init__(self, ledger: Ledger, config: Config) -> None:
        self._ledger = ledger
        self._store = ledger.store
        self._config = config

    # -- status ---------------------------------------------------------------------------

    def supersede(self, old_ref: str, new_ref: str) -> Document:
        """Mark `old_ref` superseded by `new_ref`; returns the old document, updated."""
        now = time.time()
        with self._store.transaction():
            old, new = self._ledger.resolve(old_ref), self._ledger.resolve(new_ref)
            self.mark_superseded(old, new, now)
            row = self._ledger.require(self._store.find_current(old.uid), old_ref)
        return Document.from_row(row, content=False)

    def mark_superseded(self, old: DocumentRow, new: DocumentRow, now: float) -> None:
        """`old` superseded by `new`, inside the caller's transaction; a cycle is an error."""
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
            nxt = self._store.find_current(successor)
            successor = nxt.superseded_by if nxt else None
        self._store.set_status(
            old.uid, "superseded", now, superseded_by=new.uid, actor=self._ledger.actor
        )
        self._ledger.audit(
            "supersede",
            old,
            at=now,
            new_status="superseded",
            details={"superseded_by": new.uid, "previous_successor": old.superseded_by},
        )

    def change_status(
        self, ref: str, status: str, *, action: str, details: dict[str, Any] | None = None
    ) -> Document:
        """Set a document's status (retract, confirm); no change, no audit entry."""
        now = time.time()
        with self._store.transaction():
            row = self._ledger.resolve(ref)
            if row.status == status:
                return Document.from_row(row, content=False)
            self._store.set_status(row.uid, status, now, actor=self._ledger.actor)
            self._ledger.audit(action, row, at=now, new_status=status, details=details)
            row = self._ledger.require(self._store.find_current(row.uid), ref)
        return Document.from_row(row, content=False)

    def pin(self, ref: str, pinned: bool = True) -> Document:
        """Pinned documents are never evicted by the storage limit."""
        now = time.time()
        with self._store.transaction():
            row = self._ledger.resolve(ref)
            self._store.set_pinned(row.uid, pinned)
            self._ledger.audit("pin" if pinned else "unpin", row, at=now, prev_status=None)
            row = self._ledger.require(self._store.find_current(row.uid), ref)
        return Document.from_row(row, content=False)

    # -- deletion -------------------------------------------------------------------------

    def delete(
        self, ref: str, *, tombstone: bool | None = None, actor: str | None = None
    ) -> Document:
        """Delete a document, its versions and what was derived from them (see Brain.delete)."""
        now = time.time()
        with self._store.transaction():
            row = self._ledger.resolve(ref)
            if tombstone is None:
                tombstone = row.kind in ("session", "code", "commit")
            if tombstone and row.source_path:
                self._store.add_tombstone(
                    row.source_path, row.uid, row.title, now, actor or self._ledger.actor
                )
            self._store.delete_document(row.uid)
            self._ledger.audit(
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

    def unforget(self, source: str) -> bool:
        """Remove the tombstone on a source, so it may be derived again."""
        now = time.time()
        with self._store.transaction():
            stone = self._store.tombstone(source)
            if stone is None and (stored := redact_text(source)) != source:
                stone = self._store.tombstone(stored)  # kept redacted, found by the original
            if stone is None:
                raise NotFoundError(f"no tombstone for {source}")
            self._store.remove_tombstone(stone.source)
            self._store.audit(
                at=now,
                actor=self._ledger.actor,
                action="unforget",
                uid=stone.doc_uid,
                title=stone.title,
                details={"source": stone.source},
            )
        return True

    def tombstones(self) -> list[dict[str, Any]]:
        """The sources deleted for good: source, document id and title, when, by whom."""
        return [
            {
                "source": t.source,
                "id": t.doc_uid,
                "title": t.title,
                "at": iso(t.created_at),
                "by": t.actor,
            }
            for t in self._store.tombstones()
        ]

    def enforce_storage_limit(self) -> list[Document]:
        """Evict documents until the store is under `storage.max_size` (if set)."""
        limit = self._config.storage.max_size_bytes()
        if limit is None or self._store.logical_size() <= limit:
            return []
        evicted: list[Document] = []
        decay = self._config.decay
        while self._store.logical_size() > limit:
            batch = self._store.eviction_candidates(
                by_access=decay.enabled,
                tier_seconds=decay.half_life_days() * 86400,
                protect_decisions=not self._config.storage.evict_decisions,
                limit=10,
            )
            if not batch:
                log.warning(
                    "store is over %s but nothing more may be evicted",
                    self._config.storage.max_size,
                )
                break
            for row in batch:
                with self._store.transaction():
                    self._store.delete_document(row.uid)
                    self._ledger.audit(
                        "evict",
                        row,
                        details={
                            "access_count": row.access_count,
                            "limit": self._config.storage.max_size,
                        },
                    )
                evicted.append(Document.from_row(row, content=False))
                if self._store.logical_size() <= limit:
                    break
        return evicted
