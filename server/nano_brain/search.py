"""The hybrid retrieval pipeline: lexical and vector legs, fusion, boosts, explain.

Legs run independently: one failing or absent leaves the other, and the response says which
ran. Every leg and every lexical retry goes through the store's one predicate builder, so a
relaxed retry changes only the match clause and keeps every filter.
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .config import Config
from .embedding import EmbeddingProvider
from .errors import InvalidInputError, NanoBrainError
from .filters import Filters, Kind, Status
from .models import SearchHit, SearchResponse
from .store import BM25_WEIGHTS, Hit, Store
from .timeutil import iso, parse_duration, parse_instant

if TYPE_CHECKING:  # numpy only when the vector leg runs
    import numpy as np

log = logging.getLogger(__name__)

Mode = Literal["hybrid", "lexical", "vector"]
MAX_QUERY_CHARS = 4000
# Exact vector search when a filter leaves at most this many documents; else quantized k-NN.
_EXACT_LIMIT = 3_000
_EXACT_SCAN_CAP = 50_000
_MAX_K = 4096
# The vector leg contributes this many candidates to fusion (measured on LoCoMo: more do not
# change recall), taken from twice as many quantized neighbours and rescored exactly.
_VECTOR_POOL = 30
_OVERSAMPLE = 2

# Code-only searches: a symbol's title holds its name's words and docstring summary (see
# codeindex.parse.search_title), so it weighs less against the body than a note's title.
_CODE_BM25_WEIGHTS = (2.0, 1.0)
# Words naming a language say which code, not what it does ("python read csv"); dropped from
# code-only queries that have other words. ("go" is too common an English word to drop.)
_LANGUAGE_WORDS = frozenset(
    """python python2 python3 py pythonic javascript js node nodejs typescript ts tsx jsx java
    golang rust ruby""".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves""".split()
)


class SearchRequest(BaseModel):
    """A query with its filters, as every front end receives it."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    mode: Mode = "hybrid"
    limit: int = Field(10, ge=1, le=200)
    collection: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    kind: list[Kind] = Field(default_factory=list)
    created_after: str | None = None
    created_before: str | None = None
    updated_after: str | None = None
    updated_before: str | None = None
    status: list[Status] = Field(default_factory=list)
    include_superseded: bool = False
    as_of: str | None = Field(None, description="read the store as it was at this time")
    include_content: bool = False
    explain: bool = False
    track: bool = Field(True, description="count returned documents as accessed")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is empty")
        return value

    def filters(self) -> Filters:
        """The store filters; time bounds parsed (raises InvalidInputError on bad times)."""
        return Filters(
            collections=tuple(self.collection),
            tags=tuple(self.tags),
            kinds=tuple(self.kind),
            created_after=_instant(self.created_after),
            created_before=_instant(self.created_before),
            updated_after=_instant(self.updated_after),
            updated_before=_instant(self.updated_before),
            statuses=tuple(self.status),
            include_superseded=self.include_superseded,
            as_of=_instant(self.as_of),
        )


def _instant(value: str | None) -> float | None:
    return None if value is None else parse_instant(value)


@dataclass(slots=True)
class _Candidate:
    doc_id: int
    chunk_id: int
    ranks: dict[str, int] = field(default_factory=dict)
    raw: dict[str, float] = field(default_factory=dict)


class SearchPipeline:
    """Runs a SearchRequest against a store with an optional embedding provider."""

    def __init__(self, store: Store, config: Config, vectors: VectorAccess) -> None:
        self._store = store
        self._config = config.search
        self._decay = config.decay
        self._vectors = vectors

    def run(self, request: SearchRequest) -> SearchResponse:
        filters = request.filters()
        pool = max(self._config.candidates, request.limit)
        legs: dict[str, str] = {}
        fallback: list[str] = []
        ranked: dict[str, list[Hit]] = {}
        code_only = request.kind == ["code"]
        query = _code_query(request.query) if code_only else request.query
        weights = _CODE_BM25_WEIGHTS if code_only else BM25_WEIGHTS
        if request.mode in ("hybrid", "lexical"):
            try:
                ranked["lexical"], fallback = self._lexical(query, filters, pool, weights)
                legs["lexical"] = "ok" if ranked["lexical"] else "empty"
            except NanoBrainError:
                raise
            except Exception as exc:  # a leg failing must not take the other down
                log.warning("lexical leg failed: %s", exc)
                legs["lexical"] = f"failed: {exc}"
        if request.mode in ("hybrid", "vector"):
            status, hits = self._vector(query, filters, max(request.limit, _VECTOR_POOL))
            legs["vector"] = status
            if hits is not None:
                ranked["vector"] = hits
        if request.mode == "vector" and "vector" not in ranked:
            raise NanoBrainError(f"vector search is unavailable: {legs['vector']}")
        candidates = _collect(ranked)
        scored = self._score(candidates, request)
        return SearchResponse(
            query=request.query,
            mode=request.mode,
            legs=legs,
            fallback=fallback,
            results=self._hits(scored[: request.limit], request),
        )

    # -- legs -----------------------------------------------------------------------------

    def _lexical(
        self, query: str, filters: Filters, pool: int, weights: tuple[float, float]
    ) -> tuple[list[Hit], list[str]]:
        terms = _terms(query)
        hits: list[Hit] = []
        fallback: list[str] = []
        words = [t for t in terms if not _CJK.search(t)]
        if words:
            hits = self._store.lexical(
                "chunks_fts", " AND ".join(_quote(t) for t in words), filters, pool, weights
            )
            if len(hits) < pool and len(words) > 1:
                fallback.append("or")
                more = self._store.lexical(
                    "chunks_fts", " OR ".join(_quote(t) for t in words), filters, pool, weights
                )
                hits = _merge(hits, more, pool)
        if len(hits) < pool:
            grams = list(dict.fromkeys(g for t in terms for g in _grams(t)))
            if grams and (len(words) < len(terms) or not hits):
                fallback.append("trigram")
                more = self._store.lexical(
                    "chunks_tri", " OR ".join(_quote(t) for t in grams), filters, pool, weights
                )
                hits = _merge(hits, more, pool)
        return hits, fallback

    def _vector(self, query: str, filters: Filters, pool: int) -> tuple[str, list[Hit] | None]:
        provider, why = self._vectors.provider()
        if provider is None:
            return f"unavailable: {why}", None
        try:
            q = provider.embed_query(query)
            hits = self._nearest(q, filters, pool)
        except Exception as exc:  # the lexical leg still answers
            log.warning("vector leg failed: %s", exc)
            return f"failed: {exc}", None
        return ("ok" if hits else "empty"), hits

    def _nearest(self, q: np.ndarray, filters: Filters, pool: int) -> list[Hit]:
        """Exact search over a small filtered set, else quantized k-NN rescored exactly.

        k-NN widens (x4, up to the index's 4096) while too few neighbours pass the filters;
        a filter that still starves it falls back to the exact scan.
        """
        store = self._store
        selective = filters.has_user_filters() and (
            store.count_documents(filters, _EXACT_LIMIT + 1) <= _EXACT_LIMIT
        )
        if not selective:
            k = int(pool * _OVERSAMPLE)
            code = _code_partition(filters.kinds)
            while True:
                neighbours = store.knn(q, k, code=code)
                chunk_ids, doc_ids, matrix = store.vectors([c for c, _ in neighbours], filters)
                if len(chunk_ids) >= pool or len(neighbours) < k:
                    return _rescore(q, chunk_ids, doc_ids, matrix, pool)
                if k >= _MAX_K:
                    break
                k = min(k * 4, _MAX_K)
        chunk_ids, doc_ids, matrix = store.filtered_vectors(filters, _EXACT_SCAN_CAP)
        return _rescore(q, chunk_ids, doc_ids, matrix, pool)

    # -- fusion and boosts --------------------------------------------------------------

    def _score(
        self, candidates: list[_Candidate], request: SearchRequest
    ) -> list[tuple[float, _Candidate, dict[str, Any]]]:
        """Fusion, then boosts in the phase-1 order: recency, decay, usage, supersede."""
        cfg = self._config
        # code is matched by meaning far more than by words (CoSQA): its own fusion weights
        fusion = cfg.code_fusion if request.kind == ["code"] else cfg
        rrf_k = fusion.rrf_k
        weights = {"lexical": fusion.lexical_weight, "vector": fusion.vector_weight}
        best_possible = sum(weights.values()) / (rrf_k + 1)
        docs = self._store.get_many((c.doc_id for c in candidates), content=request.include_content)
        now = time.time() if request.as_of is None else parse_instant(request.as_of)
        half_life = parse_duration(cfg.recency_half_life)
        decay_days = self._decay.half_life_days()
        usage_weight = cfg.usage_boost_weight if request.mode == "hybrid" else 0.0
        scored = []
        for cand in candidates:
            doc = docs.get(cand.doc_id)
            if doc is None:
                continue
            parts = {
                f"{leg}_rrf": weights[leg] / (rrf_k + rank) for leg, rank in cand.ranks.items()
            }
            fused = sum(parts.values())
            age = max(0.0, now - doc.updated_at)
            recency = math.pow(0.5, age / half_life)
            score = fused * (1 + cfg.recency_weight * recency)
            decay = decay_score(doc.last_accessed_at, doc.created_at, decay_days, now)
            decay_factor = 1.0
            if self._decay.enabled:
                decay_factor = (1 - self._decay.boost_weight) + self._decay.boost_weight * decay
                score *= decay_factor
            usage = usage_boost(doc.access_count, decay, usage_weight)
            score += usage * best_possible
            demotion = cfg.supersede_demotion if doc.status == "superseded" else 1.0
            score *= demotion
            explain = {
                "ranks": dict(cand.ranks),
                "leg_scores": dict(cand.raw),
                **parts,
                "fused": fused,
                "recency": recency,
                "recency_boost": 1 + cfg.recency_weight * recency,
                "decay_score": decay,
                "decay_factor": decay_factor,
                "usage_boost": usage,
                "access_count": doc.access_count,
                "supersede_demotion": demotion,
                "final": score,
            }
            scored.append((score, cand, explain))
        scored.sort(key=lambda item: (-item[0], item[1].doc_id))
        self._docs = docs
        return scored

    def _hits(self, scored: list, request: SearchRequest) -> list[SearchHit]:
        docs = self._docs
        chunks = self._store.chunk_texts(c.chunk_id for _, c, _ in scored)
        successors = {
            uid: self._store.find_current(uid)
            for uid in {docs[c.doc_id].superseded_by for _, c, _ in scored} - {None}
        }
        out: list[SearchHit] = []
        for final, cand, explain in scored:
            doc = docs[cand.doc_id]
            successor = successors.get(doc.superseded_by) if doc.superseded_by else None
            body, start, end = chunks.get(cand.chunk_id, (doc.content, 1, 1))
            out.append(
                SearchHit(
                    id=doc.uid,
                    title=doc.title,
                    kind=doc.kind,
                    collection=doc.collection,
                    tags=doc.tags,
                    source_path=doc.source_path,
                    created_at=iso(doc.created_at) or "",
                    updated_at=iso(doc.updated_at) or "",
                    score=round(final, 6),
                    status=doc.status,
                    version=doc.version,
                    superseded_by=(
                        {"id": successor.uid, "title": successor.title} if successor else None
                    ),
                    snippet=snippet(body, request.query),
                    lines=(start, end),
                    content=doc.content if request.include_content else None,
                    explain=explain if request.explain else None,
                )
            )
        return out


class VectorAccess:
    """What the pipeline needs from the Brain: a ready provider, or the reason there is none."""

    def provider(self) -> tuple[EmbeddingProvider | None, str]:  # pragma: no cover - interface
        raise NotImplementedError


def decay_score(
    last_accessed_at: float | None, created_at: float, half_life_days: float, now: float
) -> float:
    """Phase-1 decay: 1 / (1 + days since access / half-life), from creation if never read."""
    since = last_accessed_at if last_accessed_at is not None else created_at
    days = max(0.0, now - since) / 86400
    return 1.0 / (1.0 + days / half_life_days)


def usage_boost(access_count: int, decay: float, weight: float) -> float:
    """Phase-1 usage boost: log2(1 + accesses) * decay score * weight."""
    return math.log2(1 + max(0, access_count)) * decay * weight


def _collect(ranked: dict[str, list[Hit]]) -> list[_Candidate]:
    """One candidate per document; a document's rank in a leg is that of its best chunk."""
    by_doc: dict[int, _Candidate] = {}
    for leg, hits in ranked.items():
        rank = 0
        seen: set[int] = set()
        for hit in hits:
            if hit.doc_id in seen:
                continue
            seen.add(hit.doc_id)
            rank += 1
            cand = by_doc.get(hit.doc_id)
            if cand is None:
                cand = by_doc[hit.doc_id] = _Candidate(hit.doc_id, hit.chunk_id)
            cand.ranks[leg] = rank
            cand.raw[leg] = round(float(hit.score), 6)
    return list(by_doc.values())


def _rescore(
    q: np.ndarray, chunk_ids: list[int], doc_ids: list[int], matrix: np.ndarray, pool: int
) -> list[Hit]:
    import numpy as np

    if not chunk_ids:
        return []
    sims = matrix @ q.astype(np.float32)
    order = np.argsort(-sims)[: pool * 2]
    return [Hit(chunk_ids[i], doc_ids[i], float(sims[i])) for i in order]


def _merge(first: list[Hit], more: list[Hit], pool: int) -> list[Hit]:
    seen = {h.chunk_id for h in first}
    merged = list(first)
    for hit in more:
        if hit.chunk_id not in seen:
            merged.append(hit)
            seen.add(hit.chunk_id)
    return merged[: pool * 2]


def _code_partition(kinds: tuple[str, ...]) -> bool | None:
    """Which part of the k-NN index can hold the kinds asked for (None: both)."""
    if not kinds:
        return None
    if all(k == "code" for k in kinds):
        return True
    return False if "code" not in kinds else None


def _code_query(query: str) -> str:
    """The query without words that only name a programming language (if others remain)."""
    kept = [w for w in query.split() if w.strip(".,;:!?()\"'").lower() not in _LANGUAGE_WORDS]
    return " ".join(kept) if kept else query


def _terms(query: str) -> list[str]:
    """Query words for FTS5, stopwords dropped unless nothing else is left."""
    words = [w.lower() for w in _WORD.findall(query)]
    kept = [w for w in words if w not in _STOPWORDS]
    return list(dict.fromkeys(kept or words))


def _grams(term: str) -> list[str]:
    """Trigram-index terms: CJK runs as their 3-grams (no word breaks), others whole."""
    if len(term) < 3:
        return []
    if _CJK.search(term):
        return [term[i : i + 3] for i in range(len(term) - 2)]
    return [term]


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def snippet(text: str, query: str, width: int = 240) -> str:
    """A window of `text` around the first query term it contains."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    positions = [lower.find(t) for t in _terms(query)]
    positions = [p for p in positions if p >= 0]
    start = max(0, min(positions) - width // 4) if positions else 0
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def validate_request(**kwargs: object) -> SearchRequest:
    """Build a SearchRequest, turning pydantic errors into one clear InvalidInputError."""
    from pydantic import ValidationError

    try:
        request = SearchRequest.model_validate(kwargs)
        request.filters()
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "input"
        raise InvalidInputError(f"{where}: {err['msg']}") from None
    return request
