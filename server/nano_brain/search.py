"""The hybrid retrieval pipeline: lexical and vector legs, fusion, boosts, explain.

Legs run independently: one failing or absent leaves the other, and the response says which
ran. Every leg and every lexical retry goes through the store's one predicate builder, so a
relaxed retry changes only the match clause and keeps every filter.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import relevance
from .config import Config
from .embedding import EmbeddingProvider
from .errors import InvalidInputError, NanoBrainError
from .filters import Filters, Kind, Status
from .models import SearchHit, SearchResponse, origin_of
from .relevance import Level
from .store import BM25_WEIGHTS, DocumentRow, Hit
from .store.interface import MemoryStore
from .store.rows import merge_hits
from .store.spaces import MAX_K, Space, spaces_for
from .timeutil import iso, parse_duration, parse_instant

if TYPE_CHECKING:  # numpy only when the vector leg runs
    import numpy as np

log = logging.getLogger(__name__)

Mode = Literal["hybrid", "lexical", "vector"]
#: What a vector leg reports: (leg name, status, hits or None when it could not run).
_Leg = tuple[str, str, "list[Hit] | None"]
_Legs = tuple[list[_Leg], list[_Leg]]
_P = ParamSpec("_P")
_T = TypeVar("_T")
# an embedding space, its leg, and its provider or why there is none
_Space = tuple[Space, str, "EmbeddingProvider | None", str]
MAX_QUERY_CHARS = 4000
# Exact vector search when a filter leaves at most this many documents; else quantized k-NN.
_EXACT_LIMIT = 3_000
_EXACT_SCAN_CAP = 50_000
# The vector leg contributes this many candidates to fusion (measured on LoCoMo: more do not
# change recall), taken from twice as many quantized neighbours and rescored exactly.
_VECTOR_POOL = 30
_OVERSAMPLE = 2
# Pseudo-relevance feedback: words come from the best few lexical matches, and are weighed
# against the top of every leg's candidates.
_FEEDBACK_DOCS = 3
_FEEDBACK_POOL = 30
# ... and are chosen among this many times as many, dropping those more than this many chunks
# (or this share of them) hold: on 100k chunks of agent transcripts such words ("file",
# "test") matched 20k chunks, and their search cost more than the rest of the query.
_FEEDBACK_CHOICE = 3
_FEEDBACK_COMMON = 1000
_FEEDBACK_COMMON_SHARE = 0.01
# Thread context: how many of the best candidates lend relevance to their neighbours.
_THREAD_LENDERS = 20

# A query that names no kind searches commits apart (filters.DEFAULT_KINDS leaves them out of
# the other legs): a lexical leg of its own, this many candidates, fused at
# `history.search_weight` of the lexical weight. A repository's thousands of commit messages
# then never crowd notes out of the candidate pools, and a commit that matches well still
# shows, below a note that matches as well.
_HISTORY_POOL = 10

# Code-only searches: a symbol's title holds its name's words and docstring summary (see
# codeindex.parse.search_title), so it weighs less against the body than a note's title.
_CODE_BM25_WEIGHTS = (2.0, 1.0)
# Words naming a language say which code, not what it does ("python read csv"); dropped from
# code-only keyword queries that have other words. ("go" is too common an English word to drop.)
_LANGUAGE_WORDS = frozenset(
    """python python2 python3 py pythonic javascript js node nodejs typescript ts tsx jsx java
    golang rust ruby""".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_STOPWORDS = frozenset(
    """s t ll re ve d m a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours
    yourself yourselves""".split()
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
    expand: bool = Field(
        True,
        description="hybrid only: also search the best matches' distinctive words and lend "
        "relevance to notes written next to a match (off for quick internal lookups)",
    )
    floor: Level = Field(
        "list",
        description="the relevance floor a list must clear, or show nothing: `list` for what "
        "was asked (hybrid searches), `related` (stricter, any mode) for what is offered "
        "unasked, `off`",
    )
    depth: int | None = Field(
        None,
        ge=1,
        le=2000,
        description="candidates each leg brings to fusion (default: search.candidates for "
        "words, 30 for meaning); quick lookups that show a few results need fewer",
    )

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is empty")
        return value

    @property
    def as_of_time(self) -> float | None:
        """`as_of` as an instant (a bare date: the end of that day), or None."""
        return _instant(self.as_of, upper=True)

    def filters(self) -> Filters:
        """The store filters; time bounds parsed (raises InvalidInputError on bad times)."""
        return Filters(
            collections=tuple(self.collection),
            tags=tuple(self.tags),
            kinds=tuple(self.kind),
            created_after=_instant(self.created_after),
            created_before=_instant(self.created_before, upper=True),
            updated_after=_instant(self.updated_after),
            updated_before=_instant(self.updated_before, upper=True),
            statuses=tuple(self.status),
            include_superseded=self.include_superseded,
            as_of=self.as_of_time,
        )


def _instant(value: str | None, *, upper: bool = False) -> float | None:
    """`upper`: a bound from above, where a bare date means the end of that day."""
    return None if value is None else parse_instant(value, upper=upper)


@dataclass(slots=True)
class _Candidate:
    doc_id: int
    chunk_id: int
    ranks: dict[str, int] = field(default_factory=dict)
    raw: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class _Scored:
    """A candidate with its document, score and the parts of the score (for explain)."""

    cand: _Candidate
    doc: DocumentRow
    score: float
    explain: dict[str, Any]


class SearchPipeline:
    """Runs a SearchRequest against a store with optional embedding providers.

    Shared by every thread of a front end: it keeps no per-request state, everything a
    request computes is passed along and returned.
    """

    def __init__(self, store: MemoryStore, config: Config, vectors: VectorAccess) -> None:
        self._store = store
        self._config = config.search
        self._decay = config.decay
        self._history_weight = config.history.search_weight
        self._vectors = vectors

    def run(self, request: SearchRequest) -> SearchResponse:
        filters = request.filters()
        cfg = self._config
        pool = max(request.depth or cfg.candidates, request.limit)
        vector_pool = max(request.limit, request.depth or _VECTOR_POOL)
        legs: dict[str, str] = {}
        fallback: list[str] = []
        ranked: dict[str, list[Hit]] = {}
        code_only = request.kind == ["code"]
        query = _code_query(request.query) if code_only else request.query
        weights = _CODE_BM25_WEIGHTS if code_only else BM25_WEIGHTS
        lexical = request.mode in ("hybrid", "lexical")
        vector = request.mode in ("hybrid", "vector")
        history = lexical and not request.kind and self._history_weight > 0
        history = history and self._store.keeps_history
        others: Future[_Legs] | _Legs = ([], [])
        # which spaces' models are usable is settled here, on the store's own connection: a
        # space's first search records its model, a write a reader connection cannot make
        spaces = self._spaces(filters) if vector else []
        if lexical and (spaces or history) and self._store.concurrent_reads():
            # the vector legs (query embedding, k-NN, rescoring) and the history leg run on
            # another thread and connection while this one runs the lexical leg: they wait
            # mostly outside Python (onnxruntime, SQLite, the server), so a hybrid query
            # takes about its longest leg instead of their sum
            others = _legs_pool().submit(
                self._on_reader,
                self._others,
                request.query,
                filters,
                vector_pool,
                weights,
                spaces,
                history,
            )
        else:
            others = self._others(request.query, filters, vector_pool, weights, spaces, history)
        if lexical:
            try:
                hits, fallback = self._lexical(query, filters, pool, weights)
                feedback = request.mode == "hybrid" and request.expand and cfg.feedback_terms
                feedback = feedback and not code_only
                if hits and feedback and "trigram" not in fallback:
                    hits, used = self._feedback(query, hits, filters, pool, weights)
                    if used:
                        fallback.append("feedback")
                ranked["lexical"] = hits
                legs["lexical"] = "ok" if hits else "empty"
            except NanoBrainError:
                _settle(others)
                raise
            except Exception as exc:  # a leg failing must not take the other down
                log.warning("lexical leg failed: %s", exc)
                legs["lexical"] = f"failed: {exc}"
        # the vector legs first, as they always were listed (and fused: ties keep that order),
        # the history leg last
        done, after = others.result() if isinstance(others, Future) else others
        legs = {**{leg: status for leg, status, _ in done}, **legs}
        ranked = {**{leg: found for leg, _, found in done if found is not None}, **ranked}
        legs.update({leg: status for leg, status, _ in after})
        ranked.update({leg: found for leg, _, found in after if found})
        if request.mode == "vector" and not ranked:
            reasons = "; ".join(v for v in legs.values()) or "no embedding space"
            raise NanoBrainError(f"vector search is unavailable: {reasons}")
        ran = {leg for leg, status in legs.items() if status in ("ok", "empty")}
        scored = self._score(_collect(ranked), request, filters, ran)
        # keyword and meaning-only searches are literal unless asked for a related list
        floored = cfg.relevance_floor and (
            request.floor == "related" or (request.mode == "hybrid" and request.floor == "list")
        )
        mixed = {relevance.space_of(k) for k in filters.allowed_kinds()} == {"text", "code"}
        verdict = None
        if floored or mixed:
            level = request.floor if floored else "off"
            verdict = self._judge(scored, request, spaces, ran, level)
            scored = [s for s in scored if verdict.keeps(s.doc.kind)]
            if mixed:
                scored = _ordered(scored, verdict, request.query)
        return SearchResponse(
            query=request.query,
            mode=request.mode,
            legs=legs,
            fallback=fallback,
            results=self._hits(scored[: request.limit], request),
            relevance=verdict.explain() if verdict and request.explain else None,
            note=verdict.summary() if verdict and not scored else "",
        )

    def _judge(
        self,
        scored: list[_Scored],
        request: SearchRequest,
        spaces: list[_Space],
        ran: set[str],
        level: relevance.Level,
    ) -> relevance.Verdict:
        """The relevance floor's verdict on the candidates (see `relevance`)."""
        # the best few of each space: code filling the top must not hide the notes' words
        per_space: dict[Space, list[_Scored]] = {}
        for item in scored:
            group = per_space.setdefault(relevance.space_of(item.doc.kind), [])
            if len(group) < relevance.JUDGED:
                group.append(item)
        top = [item for group in per_space.values() for item in group]
        # split as the index splits `forwarded_allow_ips`, so the query's words are the text's
        terms = [
            part
            for t in _terms(request.query)
            if not _CJK.search(t)
            for part in t.split("_")
            if part
        ]
        counts, total = self._store.term_counts(terms) if terms else ({}, 0)
        weights = relevance.idf_weights(terms, counts, total)
        texts = self._store.chunk_texts(s.cand.chunk_id for s in top)
        words: dict[Space, float] = {}
        unembedded: dict[Space, float] = {}
        leg_of = {space: leg for space, leg, _, _ in spaces if leg in ran}
        found_any = {leg for leg in leg_of.values() if any(leg in s.cand.raw for s in scored)}
        for item in top:
            space = relevance.space_of(item.doc.kind)
            body = texts.get(item.cand.chunk_id, (item.doc.content or "", 0, 0))[0]
            held = relevance.coverage(weights, f"{item.doc.title}\n{body}")
            words[space] = max(words.get(space, 0.0), held)
            # Found by words only, with no vector yet: no cosine can judge it. Either its
            # chunks wait for the embedder, or its space's vector leg found nothing at all
            # (its vector may have landed after that leg read the store, on another thread).
            leg = leg_of.get(space)
            if leg is not None and leg not in item.cand.raw:
                if leg not in found_any or self._store.pending_of(item.cand.doc_id):
                    unembedded[space] = max(unembedded.get(space, 0.0), held)
        meaning: dict[Space, float | None] = {}
        models: dict[Space, str | None] = {}
        for space, leg, provider, _ in spaces:
            if leg in ran:  # ran: its best cosine, 0 when it found nothing
                raw = (s.cand.raw[leg] for s in scored if leg in s.cand.raw)
                meaning[space] = max(raw, default=0.0)
                models[space] = provider.name if provider is not None else None
        for space in words:
            meaning.setdefault(space, None)
        return relevance.judge(level, meaning, words, models, unembedded)

    # -- legs -----------------------------------------------------------------------------

    def _lexical(
        self,
        query: str,
        filters: Filters,
        pool: int,
        weights: tuple[float, float],
        *,
        trigram: bool = True,
    ) -> tuple[list[Hit], list[str]]:
        terms = _terms(query)
        hits: list[Hit] = []
        fallback: list[str] = []
        words = [t for t in terms if not _CJK.search(t)]
        if words:
            hits, every = self._store.lexical_terms(words, filters, pool, weights)
            if every < pool and len(words) > 1:
                fallback.append("or")
        if len(hits) < pool and trigram and (len(words) < len(terms) or not hits):
            # substrings of the terms the word index does not hold (identifier fragments,
            # CJK): a word it holds had its chance, and its substrings are everywhere ("new"
            # is in 40k of 100k chunks), which made this fallback a filtered search's slowest
            # step when the filter left no chunk with the words
            held, _ = self._store.term_counts(words) if words else ({}, 0)
            fragments = [t for t in terms if not held.get(t)]
            grams = list(dict.fromkeys(g for t in fragments for g in _grams(t)))
            if grams:
                fallback.append("trigram")
                more = self._store.lexical(grams, "OR", filters, pool, weights, kind="trigrams")
                hits = merge_hits(hits, more, pool)
        return hits, fallback

    def _feedback(
        self,
        query: str,
        hits: list[Hit],
        filters: Filters,
        pool: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], bool]:
        """Pseudo-relevance feedback: search again with the words that distinguish the best
        lexical matches from the rest of the lexical candidates, and add what that finds,
        weighted down, to the lexical scores. A conversation's answer often shares no word
        with the question ("what did she think of the ice cream?" / "Super good, rich and
        creamy") but shares some with the turns that do match.

        Only the lexical leg's candidates are read, so this runs while the vector legs do:
        weighing the words against the vector candidates too made no difference (LoCoMo dev
        R@10 0.704 with them, 0.705 without)."""
        cfg = self._config
        best = sorted(hits, key=lambda h: h.score)[:_FEEDBACK_DOCS]
        others = [h.chunk_id for h in hits[:_FEEDBACK_POOL]]
        texts = self._store.chunk_texts(dict.fromkeys([h.chunk_id for h in best] + others))
        scored = _feedback_words(
            [texts[h.chunk_id][0] for h in best if h.chunk_id in texts],
            [body for body, _, _ in texts.values()],
            set(_terms(query)),
        )
        words = self._feedback_choice(scored, cfg.feedback_terms)
        if not words:
            return hits, False
        more = self._store.lexical(words, "OR", filters, pool, weights)
        # bm25 is negative (lower is better): scores of one document under the query and
        # under the feedback words add up, the feedback's weighted down
        combined = {h.chunk_id: h for h in hits}
        bonus = {h.chunk_id: cfg.feedback_weight * h.score for h in more}
        for hit in more:
            combined.setdefault(hit.chunk_id, Hit(hit.chunk_id, hit.doc_id, 0.0))
        merged = [
            Hit(h.chunk_id, h.doc_id, h.score + bonus.get(h.chunk_id, 0.0))
            for h in combined.values()
        ]
        merged.sort(key=lambda h: h.score)
        # the leg's own depth: twice as deep gave the same recall (LoCoMo R@10 0.706 against
        # 0.704) and cost a millisecond of fusion a query
        return merged[:pool], True

    def _feedback_choice(self, scored: list[tuple[str, float]], n: int) -> list[str]:
        """The `n` best feedback words once weighed by how rare they are in the whole store:
        a word most chunks hold tells the answer from nothing (and its postings are long to
        search), one the best matches share with few chunks points at their neighbours.
        Measured on LoCoMo dev (R@10): 0.703 by local rarity alone, 0.707 with this."""
        candidates = dict(scored[: n * _FEEDBACK_CHOICE])
        counts, total = self._store.term_counts(list(candidates))
        common = max(_FEEDBACK_COMMON, _FEEDBACK_COMMON_SHARE * total)
        kept = [w for w in candidates if counts.get(w, 0) <= common]
        kept.sort(key=lambda w: -candidates[w] * math.log((total + 1) / (counts.get(w, 0) + 1)))
        return kept[:n]

    def _on_reader(self, work: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """`work` on a reader connection of this thread's own (see `run`)."""
        with self._store.reading():
            return work(*args, **kwargs)

    def _others(
        self,
        query: str,
        filters: Filters,
        pool: int,
        weights: tuple[float, float],
        spaces: list[_Space],
        history: bool,
    ) -> _Legs:
        """The legs besides the lexical one: (vector legs, history leg). The history leg
        only runs for queries that name no kind, whose query is the request's as written."""
        # language names stay in what is embedded: the code model read them beside code
        # ("python ..." docstrings), and without them CoSQA's vector MRR falls 0.531 -> 0.515
        vectors = self._vector(query, filters, pool, spaces)
        return vectors, self._history(query, filters, weights) if history else []

    def _history(self, query: str, filters: Filters, weights: tuple[float, float]) -> list[_Leg]:
        """The best few commits (see `_HISTORY_POOL`); none when nothing matched."""
        try:
            commits = filters.model_copy(update={"kinds": ("commit",)})
            # commits have no trigram rows: that fallback would scan the notes' for nothing
            hits, _ = self._lexical(query, commits, _HISTORY_POOL, weights, trigram=False)
        except NanoBrainError:
            raise
        except Exception as exc:  # the other legs still answer
            log.warning("history leg failed: %s", exc)
            return [("history", f"failed: {exc}", None)]
        return [("history", "ok", hits[:_HISTORY_POOL])] if hits else []

    def _spaces(self, filters: Filters) -> list[_Space]:
        """Per embedding space the kinds can live in: its leg, and its provider or why there
        is none (None, None: skipped, nothing of it was ever embedded)."""
        out: list[_Space] = []
        for space in spaces_for(filters.kinds):
            leg = "vector" if space == "text" else "code_vector"
            if space == "code" and self._store.vector_model("code") is None:
                if filters.kinds:
                    out.append((space, leg, None, "no code vectors yet"))
                continue  # nothing of this space was ever embedded: do not load its model
            provider, why = self._vectors.provider(space)
            out.append((space, leg, provider, why))
        return out

    def _vector(self, query: str, filters: Filters, pool: int, spaces: list[_Space]) -> list[_Leg]:
        """One leg per space (see `_spaces`): (leg, status, hits)."""
        out: list[_Leg] = []
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

    # -- fusion and boosts --------------------------------------------------------------

    def _score(
        self,
        candidates: list[_Candidate],
        request: SearchRequest,
        filters: Filters,
        ran: set[str],
    ) -> list[_Scored]:
        """Fusion, recency, decay, thread context, usage, supersede demotion; best first.

        Scores are on one scale: 1.0 is a document ranked first by every leg that ran (found
        something or not), so a match only one leg found scores visibly lower.
        """
        cfg = self._config
        # code is matched by meaning far more than by words (CoSQA): its own fusion weights
        fusion = cfg.code_fusion if request.kind == ["code"] else cfg
        rrf_k = fusion.rrf_k
        # A query over every kind has two vector legs (notes and code are embedded by
        # different models); code's counts half there, so the two together weigh about what
        # one vector leg does, and a note's best match is not outranked by a symbol's.
        mixed = not request.kind or len(spaces_for(request.kind)) > 1
        weights = {
            "lexical": fusion.lexical_weight,
            "vector": fusion.vector_weight,
            "code_vector": fusion.vector_weight * (0.5 if mixed else 1.0),
            "history": fusion.lexical_weight * self._history_weight,
        }
        # a document is in one embedding space: at best first in lexical and one vector leg
        best = weights["lexical"] * ("lexical" in ran) + fusion.vector_weight * bool(
            ran & {"vector", "code_vector"}
        )
        best_possible = best / (rrf_k + 1) or 1.0
        as_of = request.as_of_time
        now = time.time() if as_of is None else as_of
        docs = self._store.get_many(
            (c.doc_id for c in candidates),
            content=request.include_content,
            as_of=as_of,
        )
        half_life = parse_duration(cfg.recency_half_life)
        decay_days = self._decay.half_life_days()
        scored: list[_Scored] = []
        for cand in candidates:
            doc = docs.get(cand.doc_id)
            if doc is None:
                continue
            parts = {
                f"{leg}_rrf": weights[leg] / (rrf_k + rank) for leg, rank in cand.ranks.items()
            }
            fused = sum(parts.values())
            recency = math.pow(0.5, max(0.0, now - doc.updated_at) / half_life)
            decay = decay_score(doc.last_accessed_at, doc.created_at, decay_days, now)
            decay_factor = 1.0
            if self._decay.enabled:
                decay_factor = (1 - self._decay.boost_weight) + self._decay.boost_weight * decay
            relevance = fused * (1 + cfg.recency_weight * recency) * decay_factor
            explain: dict[str, Any] = {
                "ranks": dict(cand.ranks),
                "leg_scores": dict(cand.raw),
                **parts,
                "fused": fused,
                "recency": recency,
                "recency_boost": 1 + cfg.recency_weight * recency,
                "decay_score": decay,
                "decay_factor": decay_factor,
                "relevance": relevance / best_possible,
            }
            scored.append(_Scored(cand, doc, relevance / best_possible, explain))
        # keyword and meaning-only searches return what matched; hybrid also brings context
        if request.mode == "hybrid" and request.expand and cfg.thread_weight and cfg.thread_window:
            scored = self._thread_context(scored, filters, request)
        usage_weight = cfg.usage_boost_weight if request.mode == "hybrid" else 0.0
        top = max((s.score for s in scored), default=0.0)
        for item in scored:
            doc, explain = item.doc, item.explain
            decay = explain["decay_score"]
            strong = item.score >= cfg.usage_floor * top
            usage = (
                near_tie_boost(usage_boost(doc.access_count, decay, usage_weight), cfg.usage_band)
                if strong
                else 0.0
            )
            demotion = cfg.supersede_demotion if doc.status == "superseded" else 1.0
            item.score = (item.score + usage) * demotion
            explain.update(
                {
                    "usage_boost": usage,
                    "usage_eligible": strong,
                    "access_count": doc.access_count,
                    "supersede_demotion": demotion,
                    "final": item.score,
                }
            )
        scored.sort(key=lambda item: (-item.score, item.doc.id))
        return scored

    def _thread_context(
        self, scored: list[_Scored], filters: Filters, request: SearchRequest
    ) -> list[_Scored]:
        """Each candidate lends a share of its relevance to its neighbours in its thread
        (the notes written just before and after it by the same writer), nearer ones more;
        a neighbour that was no candidate joins the list with that share."""
        cfg = self._config
        by_id = {s.doc.id: s for s in scored}
        # the best candidates lend: a weak one's share could not lift anything into view
        lenders = sorted(scored, key=lambda s: -s.score)[:_THREAD_LENDERS]
        links = self._store.thread_neighbours(
            [s.doc.id for s in lenders], filters, cfg.thread_window
        )
        # per neighbour and distance, the best lender at that distance; the shares of the
        # distances add up (a reply two turns after a match and one before another gets both)
        best: dict[int, dict[int, tuple[float, int]]] = {}
        for source, neighbour, distance in links:
            share = cfg.thread_weight * by_id[source].explain["relevance"] / max(distance, 1)
            at = best.setdefault(neighbour, {})
            if share > at.get(distance, (0.0, 0))[0]:
                at[distance] = (share, source)
        if not best:
            return scored
        lent = {
            n: (sum(s for s, _ in at.values()), max(at.values())[1], min(at))
            for n, at in best.items()
        }
        joining = [n for n in lent if n not in by_id]
        as_of = request.as_of_time
        docs = self._store.get_many(joining, content=request.include_content, as_of=as_of)
        firsts = self._store.first_chunks(joining)
        for doc_id in joining:
            doc = docs.get(doc_id)
            if doc is None or doc_id not in firsts:
                continue
            item = _Scored(
                _Candidate(doc_id, firsts[doc_id]),
                doc,
                0.0,
                {"ranks": {}, "leg_scores": {}, "relevance": 0.0, "decay_score": 0.0},
            )
            item.explain["decay_score"] = decay_score(
                doc.last_accessed_at, doc.created_at, self._decay.half_life_days(), time.time()
            )
            by_id[doc_id] = item
            scored.append(item)
        for doc_id, (share, source, distance) in lent.items():
            near = by_id.get(doc_id)
            if near is None:
                continue
            near.score += share
            near.explain["thread"] = {
                "from": by_id[source].doc.uid,
                "distance": distance,
                "share": share,
            }
        return scored

    def _hits(self, scored: list[_Scored], request: SearchRequest) -> list[SearchHit]:
        chunks = self._store.chunk_texts(s.cand.chunk_id for s in scored)
        as_of = request.as_of_time
        successors = {
            uid: self._store.find_current(uid, as_of=as_of)
            for uid in {s.doc.superseded_by for s in scored if s.doc.superseded_by is not None}
        }
        out: list[SearchHit] = []
        for item in scored:
            doc = item.doc
            successor = successors.get(doc.superseded_by) if doc.superseded_by else None
            body, start, end = chunks.get(item.cand.chunk_id, (doc.content, 1, 1))
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
                    score=round(item.score, 6),
                    status=doc.status,
                    version=doc.version,
                    superseded_by=(
                        {"id": successor.uid, "title": successor.title} if successor else None
                    ),
                    snippet=snippet(body, request.query),
                    lines=(start, end),
                    origin=origin_of(doc),
                    content=doc.content if request.include_content else None,
                    explain=item.explain if request.explain else None,
                )
            )
        return out


def _ordered(scored: list[_Scored], verdict: relevance.Verdict, query: str) -> list[_Scored]:
    """Notes before code, or code before notes (`relevance.order`), each in score order."""
    first, why = relevance.order(verdict, query)
    verdict.ordering = why
    ahead = [s for s in scored if relevance.space_of(s.doc.kind) == first]
    behind = [s for s in scored if relevance.space_of(s.doc.kind) != first]
    for item in ahead + behind:
        item.explain["order"] = why
    return ahead + behind


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _legs_pool() -> ThreadPoolExecutor:
    """The threads vector legs run on beside their lexical legs, shared by every pipeline
    of the process (one per core: each leg waits mostly outside Python)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(
                max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="nano-brain-leg"
            )
        return _POOL


def _forget_pool() -> None:
    global _POOL
    _POOL = None  # a forked child has none of the parent's threads: it starts its own


os.register_at_fork(after_in_child=_forget_pool)


def _settle(legs: Future[_Legs] | _Legs) -> None:
    """Wait for the legs still running beside (their reader connection goes back to the
    pool) when the search ends early; whatever they found or raised is dropped."""
    if isinstance(legs, Future):
        try:
            legs.result()
        except Exception as exc:
            log.debug("vector leg of a failed search: %s", exc)


class VectorAccess:
    """What the pipeline needs from the Brain: a ready provider, or the reason there is none."""

    def provider(
        self, space: Space = "text"
    ) -> tuple[EmbeddingProvider | None, str]:  # pragma: no cover - interface
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


def near_tie_boost(boost: float, band: float) -> float:
    """The phase-1 boost mapped into the band: ``band * (1 - exp(-boost))``.

    Monotonic in the boost (more use, fresher use or a larger weight lift more), never more
    than `band`, so use saturates and reorders only results within `band` of each other. At
    the default weight 0.15 a note read 7 times recently gets about a third of the band,
    one read 100 times about two thirds.
    """
    if band <= 0 or boost <= 0:
        return 0.0
    return band * (1.0 - math.exp(-boost))


def _collect(ranked: dict[str, list[Hit]]) -> list[_Candidate]:
    """One candidate per document; a document's rank in a leg is that of its best chunk.

    Equal leg scores share a rank (1, 2, 2, 4): two identical notes are equally relevant,
    and fusing ranks must not make one of them better by the order the index listed them.
    """
    by_doc: dict[int, _Candidate] = {}
    for leg, hits in ranked.items():
        rank = position = 0
        last: float | None = None
        seen: set[int] = set()
        for hit in hits:
            if hit.doc_id in seen:
                continue
            seen.add(hit.doc_id)
            position += 1
            if hit.score != last:
                rank, last = position, hit.score
            cand = by_doc.get(hit.doc_id)
            if cand is None:
                cand = by_doc[hit.doc_id] = _Candidate(hit.doc_id, hit.chunk_id)
            cand.ranks[leg] = rank
            cand.raw[leg] = round(float(hit.score), 6)
    return list(by_doc.values())


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


def _code_query(query: str) -> str:
    """The query without words that only name a programming language (if others remain)."""
    kept = [w for w in query.split() if w.strip(".,;:!?()\"'").lower() not in _LANGUAGE_WORDS]
    return " ".join(kept) if kept else query


def _unpushed(filters: Filters) -> bool:
    """Whether filters restrict documents in ways the k-NN scan does not apply itself."""
    return bool(filters.tags or filters.statuses or filters.include_superseded or filters.as_of)


def _feedback_words(
    best: list[str], pool: list[str], query_terms: set[str]
) -> list[tuple[str, float]]:
    """Words frequent in the best matches and rare among all candidates (tf x local idf),
    best first, with their scores."""
    seen_in: Counter[str] = Counter()
    for body in pool:
        seen_in.update(set(_WORD.findall(body.lower())))
    skip = _STOPWORDS | query_terms
    counts: Counter[str] = Counter()
    for body in best:
        counts.update(
            w
            for w in _WORD.findall(body.lower())
            if len(w) > 2 and w not in skip and not w.isdigit()
        )
    total = len(pool) + 1
    scores = {w: counts[w] * math.log(total / seen_in[w]) for w in counts}
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


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
