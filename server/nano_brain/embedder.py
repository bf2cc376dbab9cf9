"""Turning chunks into vectors: one provider per embedding space, pending chunks, a worker.

Notes and sessions are embedded with the note model (`embedding.model`), code with the code
model (`embedding.code_model`); each space records its model in the store, and a space whose
recorded model differs from the configured one has no vector leg until it is re-embedded.

A write commits its chunks with no vectors ("pending"). Long-running front ends (the MCP
server, the editor sidecar, `watch`) start a background worker that embeds pending chunks
right after each write and whenever it starts, so a write is acknowledged without waiting for
the model and vectors left pending by a crash catch up on the next start. A short-lived
process (the CLI) embeds its own write before it exits.

Pending chunks are embedded in the order of their tiers (store/priority.py): notes and
sessions, then code (open files, files changed lately, the rest, tests), then commit
messages. The queue lives in the store, so a process that stops leaves the rest to the next.

In team mode a batch of the clone's code first takes the vectors other clones published for
the same texts and model from the team's store (`_Shared`), and embeds only the rest.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .config import EmbeddingConfig
from .embedding import EmbeddingProvider, configured_name, create_provider
from .embedding.local import lower_thread_priority
from .embedprogress import RateMeter, SpaceProgress
from .errors import EmbeddingError, ModelMismatchError
from .store import priority
from .store.commits import CommitStore
from .store.interface import MemoryStore, SharedVectors
from .store.rows import PendingChunk
from .store.spaces import SPACES, Space, space_of_kind

if TYPE_CHECKING:  # numpy loads with the model, not with every CLI command
    import numpy as np

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
UNSET: Any = object()
#: How long the worker sleeps between looks for chunks other processes left pending.
_IDLE_POLL_S = 10.0
#: After a failed batch (model error, busy store), wait this long before trying again.
_RETRY_S = 30.0
#: Notes and sessions still without a vector that a search embeds before it runs (a person's
#: or an agent's last writes; a harvest's backlog is left to the background worker).
NOTES_BEFORE_SEARCH = 32
#: After the shared vectors failed (team mode), embed without them this long.
_SHARED_RETRY_S = 300.0
_T = TypeVar("_T")
#: The queue's order across spaces: (space, highest tier taken; None: all), first with work.
_ORDER: tuple[tuple[Space, int | None], ...] = (
    ("text", priority.NOTE),
    ("code", None),
    ("text", None),
)
#: "Changed lately": the files of the newest commits in the history index, test code left
#: out (it stays last); a file the code index parses again has changed too (store/priority).
#: 50 commits of a 680-file ORM touch 47 source files, 4k of its 15k symbols outside the
#: tests; 200 commits touch nearly all of them.
_RECENT_COMMITS = 50
_RECENT_FILES = 100


class Embedder:
    """The embedding side of one Brain: providers per space and the pending-chunk queue."""

    def __init__(
        self,
        store: MemoryStore,
        config: EmbeddingConfig,
        *,
        text: EmbeddingProvider | None = UNSET,
        code: EmbeddingProvider | None = UNSET,
    ) -> None:
        self._store = store
        self._config = config
        # an explicit text provider with no code provider serves both spaces (tests, tools)
        if code is UNSET and text is not UNSET:
            code = text
        self._providers: dict[Space, EmbeddingProvider | None] = {"text": text, "code": code}
        self._errors: dict[Space, str] = {}
        self._meters: dict[Space, RateMeter] = {space: RateMeter() for space in SPACES}
        self._lock = threading.Lock()
        self._batch_lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        self._life = threading.Lock()  # start and stop: one worker at most
        # team mode: vectors other clones embedded, reused by text (store.SharedVectors)
        self._shared = _Shared(store) if isinstance(store, SharedVectors) else None

    # -- providers ------------------------------------------------------------------------

    def loaded(self, space: Space) -> EmbeddingProvider | None:
        """The provider of a space, created on first use (None when there is none)."""
        with self._lock:
            provider = self._providers[space]
            if provider is UNSET:
                provider = self._create(space)
            return provider

    def _create(self, space: Space) -> EmbeddingProvider | None:
        """Called with the lock held; the code space shares the text provider when the two
        models are the same."""
        model = self._config.code_model_name() if space == "code" else self._config.model
        if space == "code" and model == self._config.model:
            text = self._providers["text"]
            if text is UNSET:
                text = self._providers["text"] = self._make("text", self._config.model)
            self._providers["code"] = text
            if text is None and "text" in self._errors:
                self._errors["code"] = self._errors["text"]
            return text
        provider = self._providers[space] = self._make(space, model)
        return provider

    def _make(self, space: Space, model: str | None) -> EmbeddingProvider | None:
        try:
            provider = create_provider(self._config, model=model)
        except EmbeddingError as exc:
            log.warning("%s embedding provider unavailable: %s", space, exc)
            self._errors[space] = str(exc)
            return None
        if provider is None:
            self._errors[space] = "embedding.provider is none"
        return provider

    def provider(self, space: Space = "text") -> tuple[EmbeddingProvider | None, str]:
        """A space's provider when its vectors match the store's; else None and why."""
        provider = self.loaded(space)
        if provider is None:
            return None, self._errors.get(space, "no embedding provider")
        recorded = self._store.vector_model(space)
        if recorded is None:
            if self._store.read_only:
                return None, f"the store is read-only and has no {space} vectors"
            self._store.reset_vectors(provider.name, provider.dim, space=space, only_if_absent=True)
            recorded = self._store.vector_model(space)
        if recorded != (provider.name, provider.dim):
            assert recorded is not None
            flag = " --code" if space == "code" else ""
            return None, (
                f"the store's {space} vectors come from {recorded[0]} ({recorded[1]}d) but the "
                f"configured model is {provider.name} ({provider.dim}d); run "
                f"`nano-brain reembed{flag}`"
            )
        return provider, ""

    def describe(self, space: Space) -> dict[str, Any]:
        """The configured and the recorded model of a space and whether its vector leg can
        run, without loading a model that is not loaded yet."""
        recorded = self._store.vector_model(space)
        with self._lock:
            loaded = self._providers[space]
        name: str | None
        state = "ok"
        if loaded is not UNSET and loaded is not None:
            name = loaded.name
        else:
            model = self._config.code_model_name() if space == "code" else self._config.model
            try:
                name = configured_name(self._config, model=model)
            except EmbeddingError as exc:
                name, state = None, f"unavailable: {exc}"
            if loaded is None and state == "ok":
                name, state = None, f"unavailable: {self._errors.get(space, 'no provider')}"
        if name is None and state == "ok":
            state = "unavailable: embedding.provider is none"
        elif recorded is not None and name is not None and recorded[0] != name:
            flag = " --code" if space == "code" else ""
            state = (
                f"unavailable: the store's {space} vectors come from {recorded[0]}, the "
                f"configured model is {name}; run `nano-brain reembed{flag}`"
            )
        return {
            "model": name,
            "store_model": recorded[0] if recorded else None,
            "store_dim": recorded[1] if recorded else None,
            "pending": self._store.pending_count(space),
            "state": state,
        }

    def progress(self) -> dict[Space, SpaceProgress]:
        """Per space: chunks with a vector, chunks waiting, and the recent rate."""
        embedded = self._store.vector_counts()
        return {
            space: SpaceProgress(
                space,
                int(embedded.get(space, 0)),
                self._store.pending_count(space),
                self._meters[space].rate(),
            )
            for space in SPACES
        }

    # -- embedding ----------------------------------------------------------------------------

    def embed_pending(
        self,
        *,
        progress: Progress | None = None,
        limit: int | None = None,
        space: Space | None = None,
    ) -> int:
        """Embed chunks that have no vector yet, in batches; returns how many were stored.

        Raises when a space asked for (or every space, when none is named) cannot embed.
        """
        spaces = (space,) if space else SPACES
        ready: list[tuple[Space, EmbeddingProvider]] = []
        reasons: list[str] = []
        for name in spaces:
            if not self._store.pending_count(name):
                continue
            provider, why = self.provider(name)
            if provider is None:
                reasons.append(why)
            else:
                ready.append((name, provider))
        if reasons and not ready:
            why = reasons[0]
            raise ModelMismatchError(why) if "reembed" in why else EmbeddingError(why)
        total = sum(self._store.pending_count(name) for name, _ in ready)
        if limit is not None:
            total = min(total, limit)
        self.prioritize_recent()
        done = 0
        while done < total:
            seen = self._next_batch({name for name, _ in ready}, min(self._batch(), total - done))
            if not seen:
                break
            done += seen
            if progress:
                progress(min(done, total), total)
        return done

    def prioritize(self, paths: list[str], tier: int = priority.OPEN) -> int:
        """Move the pending chunks of these code files (workspace-relative POSIX paths) up
        the queue; returns how many moved."""
        if self._store.read_only or not paths:
            return 0
        return self._store.prioritize_pending(paths, tier)

    def prioritize_recent(self) -> int:
        """Move the pending chunks of files changed lately (see `_RECENT_COMMITS`) up the
        queue; repeated before each fill, for chunks and commits written since."""
        if self._store.read_only:
            return 0
        try:
            recent = CommitStore(self._store).recent_files(_RECENT_COMMITS)
            paths = [p for p in recent if not priority.is_test_path(p)][:_RECENT_FILES]
            return self.prioritize(paths, priority.RECENT)
        except Exception as exc:  # a busy store: the order is a preference, not a must
            log.debug("cannot move recently changed files up the queue: %s", exc)
            return 0

    def embed_document(self, doc_id: int, kind: str) -> bool:
        """Embed one document's pending chunks now (a short-lived writer's own note)."""
        space = space_of_kind(kind)
        provider, why = self.provider(space)
        if provider is None:
            log.debug("not embedding: %s", why)
            return False
        pending = self._store.pending_of(doc_id)
        if not pending:
            return True
        try:
            with self._batch_lock:
                vectors = provider.embed_documents([embed_text(p) for p in pending])
        except Exception as exc:  # the note is saved; its vectors wait for the next fill
            log.warning("embedding failed, chunks left pending: %s", exc)
            return False
        stored = self._store.store_vectors(
            [(p.id, p.doc_id, v) for p, v in zip(pending, vectors, strict=True)], space=space
        )
        return stored == len(pending)

    def embed_waiting_notes(self, limit: int | None = None, wait_s: float = 1.0) -> int:
        """Embed the notes and sessions still without a vector (up to ``limit`` chunks) so
        that a search about to read the vectors finds what was just written by its meaning
        too: the relevance floor judges a note with no vector by its words alone, and a
        question worded otherwise than the note would find nothing. Returns how many were
        embedded; 0 when none waits, the store is read-only, the text model is unavailable,
        or another batch holds the model longer than ``wait_s``. ``limit`` defaults to
        `NOTES_BEFORE_SEARCH`."""
        limit = NOTES_BEFORE_SEARCH if limit is None else limit
        if self._store.read_only or limit <= 0:
            return 0
        pending = self._store.pending_chunks(limit, "text", max_priority=priority.NOTE)
        if not pending:
            return 0  # the usual case: one step of the pending chunks' index
        provider, why = self.provider("text")
        if provider is None:
            log.debug("notes not embedded before the search: %s", why)
            return 0
        if not self._batch_lock.acquire(timeout=wait_s):
            return 0  # the background batch may be these very notes: search without them
        try:
            pending = self._store.pending_chunks(limit, "text", max_priority=priority.NOTE)
            if pending:
                self._embed_batch("text", provider, pending)
        finally:
            self._batch_lock.release()
        return len(pending)

    def reembed(self, *, progress: Progress | None = None, space: Space | None = None) -> int:
        """Drop a space's vectors (every space's when none is named) and embed them again."""
        for name in (space,) if space else SPACES:
            provider = self.loaded(name)
            if provider is None:
                raise EmbeddingError(self._errors.get(name, "no embedding provider"))
            self._store.reset_vectors(provider.name, provider.dim, space=name)
        return self.embed_pending(progress=progress, space=space)

    def _next_batch(self, spaces: set[Space], size: int) -> int:
        """Embed the next batch in the queue's order (see `_ORDER`) among these spaces,
        skipping a space that cannot embed; returns how many chunks it took (0: none)."""
        for space, tier in _ORDER:
            if space not in spaces:
                continue
            with self._batch_lock:  # one batch at a time per process: none embedded twice
                pending = self._store.pending_chunks(size, space, max_priority=tier)
                if not pending:
                    continue
                provider, why = self.provider(space)
                if provider is None:
                    log.debug("not embedding %s: %s", space, why)
                    continue
                self._embed_batch(space, provider, pending)
                return len(pending)
        return 0

    def _embed_batch(
        self, space: Space, provider: EmbeddingProvider, pending: list[PendingChunk]
    ) -> None:
        """Embed these chunks and store their vectors (the caller holds the batch lock)."""
        started = time.perf_counter()
        texts = [embed_text(p) for p in pending]
        if self._shared is None:
            vectors = provider.embed_documents(texts)
        else:
            vectors = self._shared.vectors(provider, pending, texts)
        self._meters[space].record(len(pending), time.perf_counter() - started)
        self._store.store_vectors(
            [(p.id, p.doc_id, v) for p, v in zip(pending, vectors, strict=True)], space=space
        )

    def _batch(self) -> int:
        return self._config.batch_size

    # -- the background worker ------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def start(self) -> None:
        """Embed pending chunks in a background thread from now on (idempotent, from any
        thread: never a second worker)."""
        with self._life:
            if self.running:
                return
            self._stop.clear()
            self._worker = threading.Thread(target=self._run, name="nano-brain-embed", daemon=True)
            self._worker.start()
        self._wake.set()  # catch up with whatever earlier processes left pending

    def notify(self) -> None:
        """New chunks are pending: wake the worker."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        with self._life:
            self._stop.set()
            self._wake.set()
            if self._worker is not None:
                self._worker.join(timeout)
                self._worker = None

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until nothing is pending (tests and benchmarks); True if it got there."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._usable_pending():
                return True
            self._wake.set()
            time.sleep(0.02)
        return False

    def _usable_pending(self) -> int:
        return sum(
            self._store.pending_count(space)
            for space in SPACES
            if self.provider(space)[0] is not None
        )

    def _run(self) -> None:
        # background work: hovers and searches of this process go first (as the model's
        # threads do, see embedding.local)
        lower_thread_priority()
        while not self._stop.is_set():
            self._wake.wait(_IDLE_POLL_S)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.prioritize_recent()
                while not self._stop.is_set() and self._drain_one():
                    pass
            except Exception as exc:  # a broken model or store must not kill the thread
                log.warning("background embedding failed: %s; retrying in %.0fs", exc, _RETRY_S)
                self._stop.wait(_RETRY_S)

    def _drain_one(self) -> bool:
        """One batch, the first in the queue's order; False when nothing (usable) is
        pending."""
        return bool(self._next_batch(set(SPACES), self._batch()))


class _Shared:
    """Vectors shared by a team's clones (team mode): a batch's texts looked up by model and
    SHA-256 first, only the rest embedded, and those published for the next clone.

    A shared vector is used as is: the same text through the same model gives the same
    vector, so reuse changes no result. The shared table is an optimisation, never a
    dependency: when reading or writing it fails (server down, no permission, an old
    schema), the batch is embedded here, one warning is logged, and that side is left alone
    for `_SHARED_RETRY_S`."""

    def __init__(self, store: SharedVectors) -> None:
        self._store = store
        self._off_until: dict[str, float] = {}
        self._warned = False

    def vectors(
        self, provider: EmbeddingProvider, pending: list[PendingChunk], texts: list[str]
    ) -> np.ndarray:
        """The vectors of a batch: its shareable chunks' through :meth:`embed`, the others'
        (notes, in the team's store) embedded here."""
        import numpy as np

        shared = [i for i, p in enumerate(pending) if self._store.shares_vectors(p.doc_id)]
        if len(shared) == len(texts):
            return self.embed(provider, texts)
        if not shared:
            return provider.embed_documents(texts)
        own = sorted(set(range(len(texts))) - set(shared))
        parts = [
            (shared, self.embed(provider, [texts[i] for i in shared])),
            (own, provider.embed_documents([texts[i] for i in own])),
        ]
        out = np.empty((len(texts), parts[0][1].shape[1]), dtype=parts[0][1].dtype)
        for rows, part in parts:
            out[rows] = part
        return out

    def embed(self, provider: EmbeddingProvider, texts: list[str]) -> np.ndarray:
        """The vectors of these texts: shared ones where they exist, the rest embedded."""
        import numpy as np

        # surrogatepass: a file's undecodable bytes may reach a chunk as lone surrogates
        digests = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest() for t in texts]
        model, dim = provider.name, provider.dim
        found = self._try("read", lambda: self._store.shared_vectors(model, dim, digests)) or {}
        missing = [i for i, d in enumerate(digests) if _fits(found.get(d), dim) is None]
        fresh = provider.embed_documents([texts[i] for i in missing]) if missing else None
        if fresh is not None and len(fresh):
            items = [(digests[i], fresh[row]) for row, i in enumerate(missing)]
            self._try("write", lambda: self._store.share_vectors(model, dim, items))
        log.debug(
            "shared vectors (%s): %d reused, %d embedded", model, len(texts) - len(missing),
            len(missing),
        )  # fmt: skip
        if not missing:
            return np.stack([found[d] for d in digests]).astype(np.float32, copy=False)
        assert fresh is not None
        out = np.empty((len(texts), fresh.shape[1]), dtype=fresh.dtype)
        at = dict(zip(missing, range(len(missing)), strict=True))
        for i, digest in enumerate(digests):
            out[i] = fresh[at[i]] if i in at else found[digest]
        return out

    def _try(self, side: str, call: Callable[[], _T]) -> _T | None:
        """`call`'s answer, or None when it failed (then `side` rests a while)."""
        if time.monotonic() < self._off_until.get(side, 0.0):
            return None
        try:
            return call()
        except Exception as exc:  # an optimisation only: embedding goes on without it
            self._off_until[side] = time.monotonic() + _SHARED_RETRY_S
            level = logging.DEBUG if self._warned else logging.WARNING
            self._warned = True
            log.log(level, "shared vectors unavailable (%s), embedding here: %s", side, exc)
            return None


def _fits(vector: np.ndarray | None, dim: int) -> np.ndarray | None:
    """A shared vector of the expected length (the table checks it too), else None."""
    return vector if vector is not None and vector.shape == (dim,) else None


def embed_text(chunk: PendingChunk) -> str:
    """What a chunk's vector is computed from: its body, with title and heading for context.

    A symbol's chunk is embedded as its name's words and docstring summary, then its source;
    not its path and kind, which only added noise for the code model (CoSQA: -0.015 MRR).
    """
    if chunk.symbol:
        words = chunk.title.split("\n", 1)[1] if "\n" in chunk.title else ""
        return f"{words}\n{chunk.body}" if words else chunk.body
    head = " — ".join(p for p in (chunk.title, chunk.heading) if p and not chunk.body.startswith(p))
    return f"{head}\n{chunk.body}" if head else chunk.body
