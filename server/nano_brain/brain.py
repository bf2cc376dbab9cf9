"""The Brain: one workspace's memory. Every front end (CLI, MCP, LSP) calls these methods."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import paths
from .chunking import chunk_text
from .config import Config, LoadedConfig, load_config
from .embedding import EmbeddingProvider, create_provider
from .errors import EmbeddingError, InvalidInputError, ModelMismatchError, NotFoundError
from .filters import KINDS, Filters
from .models import Document, SearchResponse, WriteResult
from .search import SearchPipeline, SearchRequest, VectorAccess
from .store import ChunkRow, DocumentRow, Store

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$")
_UNSET: Any = object()


class Brain(VectorAccess):
    """A workspace's store, embedding provider and search pipeline, opened together."""

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        config: Config | LoadedConfig | None = None,
        db_path: str | Path | None = None,
        provider: EmbeddingProvider | None = _UNSET,
    ) -> None:
        self.root = paths.workspace_root(root)
        if not self.root.is_dir():
            raise InvalidInputError(f"workspace {self.root} is not a directory")
        loaded = config if isinstance(config, LoadedConfig) else None
        if config is None:
            loaded = load_config(self.root)
        self.config: Config = loaded.config if loaded else config  # type: ignore[assignment]
        self.config_warnings: list[str] = loaded.warnings if loaded else []
        self.workspace_id = paths.workspace_id(self.root)
        path = db_path or self.config.storage.db_path or paths.default_db_path(self.root)
        self.store = Store(
            Path(path).expanduser(),
            self.workspace_id,
            busy_timeout_ms=self.config.storage.busy_timeout_ms,
        )
        self._provider: EmbeddingProvider | None = provider
        self._provider_error: str | None = None
        self._provider_lock = threading.Lock()
        self._search = SearchPipeline(self.store, self.config.search, self)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Brain:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- embedding provider -------------------------------------------------------------

    def provider(self) -> tuple[EmbeddingProvider | None, str]:
        """The provider when its vectors match the store's; else None and the reason."""
        with self._provider_lock:
            if self._provider is _UNSET:
                try:
                    self._provider = create_provider(self.config.embedding)
                except EmbeddingError as exc:
                    log.warning("embedding provider unavailable: %s", exc)
                    self._provider, self._provider_error = None, str(exc)
                if self._provider is None and self._provider_error is None:
                    self._provider_error = "embedding.provider is none"
            provider = self._provider
        if provider is None:
            return None, self._provider_error or "no embedding provider"
        recorded = self.store.vector_model()
        if recorded is None:
            self.store.reset_vectors(provider.name, provider.dim, only_if_absent=True)
            recorded = self.store.vector_model()
        elif recorded != (provider.name, provider.dim):
            return None, (
                f"the store's vectors come from {recorded[0]} ({recorded[1]}d) but the "
                f"configured model is {provider.name} ({provider.dim}d); run `nano-brain reembed`"
            )
        return provider, ""

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
    ) -> WriteResult:
        """Store a note (idempotent on identical content); lexically searchable on return."""
        content = self._check_content(content)
        tags = _clean_tags(tags)
        if not _NAME.match(collection):
            raise InvalidInputError(
                f"invalid collection {collection!r}: letters, digits and _ . : / - (max 64)"
            )
        if kind not in KINDS:
            raise InvalidInputError(f"invalid kind {kind!r}: one of {', '.join(KINDS)}")
        metadata = dict(metadata or {})
        title = (title or "").strip() or _title_of(content)
        digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
        now = time.time()
        created = updated = False
        with self.store.transaction():
            existing = (
                self.store.find_by_source(source_path)
                if source_path
                else self.store.find_by_hash(collection, digest)
            )
            if existing is None:
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
                )
                self.store.replace_chunks(doc_id, self._chunks(title, content))
                created = True
            else:
                doc_id = existing.id
                if existing.content_hash != digest or existing.title != title:
                    self.store.update_document(
                        doc_id,
                        title=title,
                        content=content,
                        content_hash=digest,
                        metadata={**existing.metadata, **metadata},
                        updated_at=now,
                    )
                    self.store.replace_chunks(doc_id, self._chunks(title, content))
                    updated = True
            self.store.add_tags(doc_id, tags)
        embedded = self._embed_document(doc_id) if self.config.embedding.embed_on_write else False
        row = self._require(self.store.get_by_id(doc_id), f"#{doc_id}")
        return WriteResult(
            document=Document.from_row(row),
            created=created,
            updated=updated,
            chunks=len(self.store.chunks_of(doc_id)),
            embedded=embedded,
        )

    def get(self, ref: str) -> Document:
        """A document by `#id`, id, or source path."""
        return Document.from_row(self._resolve(ref))

    def delete(self, ref: str) -> Document:
        """Delete a document and everything derived from it, in one transaction."""
        with self.store.transaction():
            row = self._resolve(ref)
            self.store.delete_document(row.id)
        return Document.from_row(row, content=False)

    def list(
        self, filters: Filters | None = None, *, limit: int = 50, offset: int = 0
    ) -> list[Document]:
        if limit < 1 or offset < 0:
            raise InvalidInputError("limit must be >= 1 and offset >= 0")
        rows = self.store.list_documents(filters or Filters(), limit=limit, offset=offset)
        return [Document.from_row(r, content=False) for r in rows]

    def tags(self, filters: Filters | None = None) -> list[tuple[str, int]]:
        return self.store.tags(filters or Filters())

    # -- search -----------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResponse:
        """Hybrid, lexical or vector search, per `request.mode`."""
        return self._search.run(request)

    # -- embeddings -------------------------------------------------------------------------

    def embed_pending(self, *, progress: Progress | None = None, limit: int | None = None) -> int:
        """Embed chunks that have no vector yet, in batches; returns how many were stored."""
        provider, why = self.provider()
        if provider is None:
            raise ModelMismatchError(why) if "reembed" in why else EmbeddingError(why)
        total = self.store.pending_count()
        if limit is not None:
            total = min(total, limit)
        done = 0
        batch = self.config.embedding.batch_size
        while done < total:
            pending = self.store.pending_chunks(min(batch, total - done))
            if not pending:
                break
            vectors = provider.embed_documents(
                [_embed_text(p.title, p.heading, p.body) for p in pending]
            )
            self.store.store_vectors(
                [(p.id, p.doc_id, v) for p, v in zip(pending, vectors, strict=True)]
            )
            done += len(pending)
            if progress:
                progress(done, total)
        return done

    def reembed(self, *, progress: Progress | None = None) -> int:
        """Drop every vector and embed all chunks again with the configured model."""
        with self._provider_lock:
            if self._provider is _UNSET:
                self._provider = create_provider(self.config.embedding)
        if self._provider is None:
            raise EmbeddingError("embedding.provider is none: nothing to embed with")
        self.store.reset_vectors(self._provider.name, self._provider.dim)
        return self.embed_pending(progress=progress)

    def _embed_document(self, doc_id: int) -> bool:
        provider, why = self.provider()
        if provider is None:
            log.debug("not embedding: %s", why)
            return False
        chunks = self.store.chunks_of(doc_id)
        try:
            vectors = provider.embed_documents(
                [_embed_text(c.title, c.heading, c.body) for _, c in chunks]
            )
        except Exception as exc:  # the note is saved; its vectors wait for the next fill
            log.warning("embedding failed, chunks left pending: %s", exc)
            return False
        stored = self.store.store_vectors(
            [(cid, doc_id, v) for (cid, _), v in zip(chunks, vectors, strict=True)]
        )
        return stored == len(chunks)

    # -- status -------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        counts = self.store.counts()
        recorded = self.store.vector_model()
        provider, why = (
            self.provider()
            if self.config.embedding.provider != "none"
            else (None, "embedding.provider is none")
        )
        return {
            "workspace": str(self.root),
            "workspace_id": self.workspace_id,
            "store": str(self.store.path),
            "store_bytes": self.store.file_size(),
            "schema_version": self.store.schema_version(),
            **counts,
            "embedding": {
                "provider": self.config.embedding.provider,
                "model": provider.name if provider else None,
                "dim": provider.dim if provider else None,
                "store_model": recorded[0] if recorded else None,
                "store_dim": recorded[1] if recorded else None,
            },
            "legs": {"lexical": "ok", "vector": "ok" if provider else f"unavailable: {why}"},
            "config_warnings": self.config_warnings,
        }

    # -- helpers ---------------------------------------------------------------------------

    def _check_content(self, content: object) -> str:
        if not isinstance(content, str):
            raise InvalidInputError("content must be text")
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

    def _chunks(self, title: str, content: str) -> list[ChunkRow]:
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
        row = self.store.get_by_uid(uid) if re.fullmatch(r"[0-9a-f]{12}", uid) else None
        if row is None and not ref.startswith("#"):
            row = self.store.find_by_source(ref)
        return self._require(row, ref)

    @staticmethod
    def _require(row: DocumentRow | None, ref: str) -> DocumentRow:
        if row is None:
            raise NotFoundError(f"no document {ref} in this workspace")
        return row


def _embed_text(title: str, heading: str, body: str) -> str:
    """What a chunk's vector is computed from: its body, with title and heading for context."""
    head = " — ".join(p for p in (title, heading) if p and not body.startswith(p))
    return f"{head}\n{body}" if head else body


def _title_of(content: str) -> str:
    for line in content.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:80]
    return "untitled"


def _clean_tags(tags: Iterable[str]) -> list[str]:
    out: list[str] = []
    for tag in tags:
        if not isinstance(tag, str):
            raise InvalidInputError(f"tag {tag!r} is not text")
        tag = tag.strip()
        if not tag or len(tag) > 64 or any(ch.isspace() for ch in tag) or "," in tag:
            raise InvalidInputError(f"invalid tag {tag!r}: 1-64 characters, no spaces or commas")
        out.append(tag)
    return list(dict.fromkeys(out))
