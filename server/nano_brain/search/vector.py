"""The vector legs: one per embedding space, exact over a small filtered set, else
quantized k-NN rescored exactly."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..filters import Filters
from ..store import Hit
from ..store.spaces import MAX_K, Space, spaces_for
from .base import Leg, PipelineBase, SpaceLeg

if TYPE_CHECKING:  # numpy only when the vector leg runs
    import numpy as np

log = logging.getLogger(__name__)

# Exact vector search when a filter leaves at most this many documents; else quantized k-NN.
_EXACT_LIMIT = 3_000
_EXACT_SCAN_CAP = 50_000
# k-NN asks for this many times the pool (the leg's candidates), rescored exactly.
_OVERSAMPLE = 2


class VectorLegs(PipelineBase):
    """Mixed into SearchPipeline: the legs that search meaning (the store's `Vectors`, and
    `Documents.count_documents` to choose an exact scan)."""

    def _spaces(self, filters: Filters) -> list[SpaceLeg]:
        """Per embedding space the kinds can live in: its leg, and its provider or why there
        is none (None, None: skipped, nothing of it was ever embedded)."""
        out: list[SpaceLeg] = []
        for space in spaces_for(filters.kinds):
            leg = "vector" if space == "text" else "code_vector"
            if space == "code" and self._store.vector_model("code") is None:
                if filters.kinds:
                    out.append((space, leg, None, "no code vectors yet"))
                continue  # nothing of this space was ever embedded: do not load its model
            provider, why = self._vectors.provider(space)
            out.append((space, leg, provider, why))
        return out

    def _vector(self, query: str, filters: Filters, pool: int, spaces: list[SpaceLeg]) -> list[Leg]:
        """One leg per space (see `_spaces`): (leg, status, hits)."""
        out: list[Leg] = []
        for space, leg, provider, why in spaces:
            if provider is None:
                out.append((leg, f"unavailable: {why}", None))
                continue
            try:
                q = provider.embed_query(query)
                # the floor is measured for the note model's cosines; code has its own scale
                floor = self._config.vector_min_similarity if space == "text" else -1.0
                hits = self._nearest(q, filters, pool, space, floor)
            except Exception as exc:  # the lexical leg still answers
                log.warning("%s leg failed: %s", leg, exc)
                out.append((leg, f"failed: {exc}", None))
                continue
            out.append((leg, "ok" if hits else "empty", hits))
        return out

    def _nearest(
        self, q: np.ndarray, filters: Filters, pool: int, space: Space, floor: float
    ) -> list[Hit]:
        """Exact search over a small filtered set, else quantized k-NN rescored exactly.

        Kind, collection and time filters are applied inside the k-NN scan. k-NN widens (x4,
        up to the index's 4096) only while the other filters (tags, status, versions) reject
        too many neighbours; if they still starve it, the exact scan answers.
        """
        store = self._store
        # kind, collection and time filters are exact inside the k-NN scan; only the others
        # (tags, statuses, as-of) can starve it, and then a small filtered set is scanned
        unpushed = _unpushed(filters) or (
            not store.knn_filters_in_scan and filters.has_user_filters()
        )
        selective = unpushed and store.count_documents(filters, _EXACT_LIMIT + 1) <= _EXACT_LIMIT
        if not selective:
            k = int(pool * _OVERSAMPLE)
            while True:
                neighbours = store.knn(q, k, space=space, filters=filters)
                chunk_ids, doc_ids, matrix = store.vectors([c for c, _ in neighbours], filters)
                if len(chunk_ids) >= pool or len(neighbours) < k:
                    return _rescore(q, chunk_ids, doc_ids, matrix, pool, floor)
                if k >= MAX_K:
                    break
                k = min(k * 4, MAX_K)
        chunk_ids, doc_ids, matrix = store.nearest_vectors(
            q, filters, pool * 2, space=space, cap=_EXACT_SCAN_CAP
        )
        return _rescore(q, chunk_ids, doc_ids, matrix, pool, floor)


def _rescore(
    q: np.ndarray,
    chunk_ids: list[int],
    doc_ids: list[int],
    matrix: np.ndarray,
    pool: int,
    floor: float,
) -> list[Hit]:
    import numpy as np

    if not chunk_ids:
        return []
    sims = matrix @ q.astype(np.float32)
    order = np.argsort(-sims)[: pool * 2]
    return [Hit(chunk_ids[i], doc_ids[i], float(sims[i])) for i in order if sims[i] >= floor]


def _unpushed(filters: Filters) -> bool:
    """Whether filters restrict documents in ways the k-NN scan does not apply itself."""
    return bool(filters.tags or filters.statuses or filters.include_superseded or filters.as_of)
