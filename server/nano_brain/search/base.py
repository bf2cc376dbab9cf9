"""What every part of the search pipeline shares: its store and settings, the legs' and
candidates' shapes, and what it needs of the Brain (`VectorAccess`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..config import Config
from ..embedding import EmbeddingProvider
from ..embedprogress import SpaceProgress
from ..store import DocumentRow, Hit
from ..store.interface import Chunks, Documents, LexicalSearch, StoreCore, Vectors
from ..store.spaces import Space

#: What a vector leg reports: (leg name, status, hits or None when it could not run).
Leg = tuple[str, str, "list[Hit] | None"]
Legs = tuple[list[Leg], list[Leg]]
# an embedding space, its leg, and its provider or why there is none
SpaceLeg = tuple[Space, str, "EmbeddingProvider | None", str]


class SearchStore(StoreCore, Documents, Chunks, LexicalSearch, Vectors, Protocol):
    """What the pipeline uses of a store: its documents, chunks, full-text index and vectors
    (the lexical legs the index, the vector legs the vectors), read beside its writes."""


class VectorAccess:
    """What the pipeline needs from the Brain: a ready provider, or the reason there is none;
    and how far the embedding of each space is."""

    def provider(
        self, space: Space = "text"
    ) -> tuple[EmbeddingProvider | None, str]:  # pragma: no cover - interface
        raise NotImplementedError

    def embedding_progress(self) -> dict[Space, SpaceProgress]:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(slots=True)
class Candidate:
    doc_id: int
    chunk_id: int
    ranks: dict[str, int] = field(default_factory=dict)
    raw: dict[str, float] = field(default_factory=dict)
    vectorless: bool = False
    """Its document is never embedded (store/priority.py): the vector legs cannot judge it."""


@dataclass(slots=True)
class Scored:
    """A candidate with its document, score and the parts of the score (for explain)."""

    cand: Candidate
    doc: DocumentRow
    score: float
    explain: dict[str, Any]


class PipelineBase:
    """The pipeline's state, read by each part (legs, scoring) it is made of."""

    def __init__(self, store: SearchStore, config: Config, vectors: VectorAccess) -> None:
        self._store = store
        self._config = config.search
        self._decay = config.decay
        self._history_weight = config.history.search_weight
        self._vectors = vectors
        self._embedding_off = config.embedding.provider == "none"
        # the partial note's per-space progress: (when read, what it was); see `coverage`
        self._coverage_lock = threading.Lock()
        self._coverage: tuple[float, dict[Space, SpaceProgress], dict[int, int]] | None = None
