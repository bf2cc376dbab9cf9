"""The hybrid retrieval pipeline: the legs run side by side, fused, judged, made hits."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import ParamSpec, TypeVar

from .. import relevance
from ..errors import NanoBrainError
from ..filters import Filters
from ..models import SearchHit, SearchResponse, origin_of
from ..querywords import coverage, idf_weights, judged_terms
from ..store import BM25_WEIGHTS, Hit
from ..store.spaces import Space
from ..timeutil import iso
from .base import Candidate, Legs, Scored, SpaceLeg
from .coverage import Coverage
from .lexical import LexicalLegs
from .pool import legs_pool, settle
from .request import SearchRequest
from .scoring import Scoring, collect
from .vector import VectorLegs
from .words import code_query, snippet

log = logging.getLogger(__name__)

_P = ParamSpec("_P")
_T = TypeVar("_T")
# The vector leg contributes this many candidates to fusion (measured on LoCoMo: more do not
# change recall), taken from twice as many quantized neighbours and rescored exactly.
_VECTOR_POOL = 30
# Code-only searches: a symbol's title holds its name's words and docstring summary (see
# codeindex.parse.search_title), so it weighs less against the body than a note's title.
_CODE_BM25_WEIGHTS = (2.0, 1.0)


class SearchPipeline(LexicalLegs, VectorLegs, Coverage, Scoring):
    """Runs a SearchRequest against a store with optional embedding providers.

    Shared by every thread of a front end: it keeps no per-request state, everything a
    request computes is passed along and returned.
    """

    def run(self, request: SearchRequest) -> SearchResponse:
        filters = request.filters()
        cfg = self._config
        pool = max(request.depth or cfg.candidates, request.limit)
        vector_pool = max(request.limit, request.depth or _VECTOR_POOL)
        code_only = request.kind == ["code"]
        query = code_query(request.query) if code_only else request.query
        weights = _CODE_BM25_WEIGHTS if code_only else BM25_WEIGHTS
        lexical = request.mode in ("hybrid", "lexical")
        vector = request.mode in ("hybrid", "vector")
        history = lexical and not request.kind and self._history_weight > 0
        history = history and self._store.keeps_history
        # which spaces' models are usable is settled here, on the store's own connection: a
        # space's first search records its model, a write a reader connection cannot make
        spaces = self._spaces(filters) if vector else []
        others = self._start_others(
            request.query, filters, vector_pool, weights, spaces, history, beside=lexical
        )
        legs: dict[str, str] = {}
        ranked: dict[str, list[Hit]] = {}
        fallback: list[str] = []
        if lexical:
            legs["lexical"], hits, fallback = self._lexical_leg(
                query, request, filters, pool, weights, others
            )
            if hits is not None:
                ranked["lexical"] = hits
        # the vector legs first, as they always were listed (and fused: ties keep that order),
        # the history leg last
        done, after = others.result() if isinstance(others, Future) else others
        legs = {**{leg: status for leg, status, _ in done}, **legs}
        ranked = {**{leg: found for leg, _, found in done if found is not None}, **ranked}
        legs.update({leg: status for leg, status, _ in after})
        ranked.update({leg: found for leg, _, found in after if found})
        # while chunks wait for their vectors, the vector legs saw part of the workspace
        partial = self._partial(filters.kinds, legs) if vector else ""
        if request.mode == "vector" and not ranked:
            reasons = "; ".join([*legs.values(), *([partial] if partial else [])])
            raise NanoBrainError(f"vector search is unavailable: {reasons or 'no embedding space'}")
        ran = {leg for leg, status in legs.items() if status in ("ok", "empty")}
        candidates = collect(ranked)
        if ran & {"vector", "code_vector"}:
            self._mark_vectorless(candidates)
        scored = self._score(candidates, request, filters, ran)
        scored, verdict = self._floor(scored, request, filters, spaces, ran)
        return SearchResponse(
            query=request.query,
            mode=request.mode,
            legs=legs,
            fallback=fallback,
            results=self._hits(scored[: request.limit], request),
            relevance=verdict.explain() if verdict and request.explain else None,
            note=verdict.summary() if verdict and not scored else "",
            partial=partial,
        )

    def _mark_vectorless(self, candidates: list[Candidate]) -> None:
        """Flag the candidates found by words whose documents no vector leg can find (test
        code, by default): scoring and the relevance floor then judge them by words alone."""
        by_words = {c.chunk_id: c for c in candidates if "lexical" in c.ranks and len(c.ranks) == 1}
        for chunk_id in self._store.vectorless(by_words):
            by_words[chunk_id].vectorless = True

    def _start_others(
        self,
        query: str,
        filters: Filters,
        pool: int,
        weights: tuple[float, float],
        spaces: list[SpaceLeg],
        history: bool,
        *,
        beside: bool,
    ) -> Future[Legs] | Legs:
        """The vector and history legs (see `_others`): started on another thread when they
        can run `beside` the lexical leg, else run now."""
        if beside and (spaces or history) and self._store.concurrent_reads():
            # the vector legs (query embedding, k-NN, rescoring) and the history leg run on
            # another thread and connection while this one runs the lexical leg: they wait
            # mostly outside Python (onnxruntime, SQLite, the server), so a hybrid query
            # takes about its longest leg instead of their sum
            return legs_pool().submit(
                self._on_reader, self._others, query, filters, pool, weights, spaces, history
            )
        return self._others(query, filters, pool, weights, spaces, history)

    def _lexical_leg(
        self,
        query: str,
        request: SearchRequest,
        filters: Filters,
        pool: int,
        weights: tuple[float, float],
        others: Future[Legs] | Legs,
    ) -> tuple[str, list[Hit] | None, list[str]]:
        """The lexical leg with its fallbacks and feedback: (its status, its hits or None
        when it failed, the fallbacks that ran). A failure of the leg alone is its status;
        a NanoBrainError (bad input, a damaged store) ends the search."""
        fallback: list[str] = []
        try:
            hits, fallback = self._lexical(query, filters, pool, weights)
            feedback = request.mode == "hybrid" and request.expand and self._config.feedback_terms
            feedback = feedback and request.kind != ["code"]
            if hits and feedback and "trigram" not in fallback:
                hits, used = self._feedback(query, hits, filters, pool, weights)
                if used:
                    fallback.append("feedback")
            return ("ok" if hits else "empty"), hits, fallback
        except NanoBrainError:
            settle(others)
            raise
        except Exception as exc:  # a leg failing must not take the other down
            log.warning("lexical leg failed: %s", exc)
            return f"failed: {exc}", None, fallback

    def _floor(
        self,
        scored: list[Scored],
        request: SearchRequest,
        filters: Filters,
        spaces: list[SpaceLeg],
        ran: set[str],
    ) -> tuple[list[Scored], relevance.Verdict | None]:
        """The relevance floor applied, and notes and code ordered when both may show; the
        verdict, when one was asked."""
        # keyword and meaning-only searches are literal unless asked for a related list
        floored = self._config.relevance_floor and (
            request.floor == "related" or (request.mode == "hybrid" and request.floor == "list")
        )
        mixed = {relevance.space_of(k) for k in filters.allowed_kinds()} == {"text", "code"}
        if not (floored or mixed):
            return scored, None
        level = request.floor if floored else "off"
        verdict = self._judge(scored, request, spaces, ran, level)
        scored = [s for s in scored if verdict.keeps(s.doc.kind)]
        if mixed:
            scored = _ordered(scored, verdict, request.query)
        return scored, verdict

    def _judge(
        self,
        scored: list[Scored],
        request: SearchRequest,
        spaces: list[SpaceLeg],
        ran: set[str],
        level: relevance.Level,
    ) -> relevance.Verdict:
        """The relevance floor's verdict on the candidates (see `relevance`)."""
        # the best few of each space: code filling the top must not hide the notes' words
        per_space: dict[Space, list[Scored]] = {}
        for item in scored:
            group = per_space.setdefault(relevance.space_of(item.doc.kind), [])
            if len(group) < relevance.JUDGED:
                group.append(item)
        top = [item for group in per_space.values() for item in group]
        # split as the index splits `forwarded_allow_ips`, so the query's words are the text's
        terms = judged_terms(request.query)
        counts, total = self._store.term_counts(terms) if terms else ({}, 0)
        weights = idf_weights(terms, counts, total)
        texts = self._store.chunk_texts(s.cand.chunk_id for s in top)
        words: dict[Space, float] = {}
        unembedded: dict[Space, float] = {}
        leg_of = {space: leg for space, leg, _, _ in spaces if leg in ran}
        found_any = {leg for leg in leg_of.values() if any(leg in s.cand.raw for s in scored)}
        for item in top:
            space = relevance.space_of(item.doc.kind)
            body = texts.get(item.cand.chunk_id, (item.doc.content or "", 0, 0))[0]
            held = coverage(weights, f"{item.doc.title}\n{body}")
            words[space] = max(words.get(space, 0.0), held)
            # Found by words only, with no vector yet: no cosine can judge it. Either its
            # chunks wait for the embedder, or its space's vector leg found nothing at all
            # (its vector may have landed after that leg read the store, on another thread).
            leg = leg_of.get(space)
            if leg is not None and leg not in item.cand.raw:
                if (
                    leg not in found_any
                    or item.cand.vectorless
                    or self._store.pending_of(item.cand.doc_id)
                ):
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
        spaces: list[SpaceLeg],
        history: bool,
    ) -> Legs:
        """The legs besides the lexical one: (vector legs, history leg). The history leg
        only runs for queries that name no kind, whose query is the request's as written."""
        # language names stay in what is embedded: the code model read them beside code
        # ("python ..." docstrings), and without them CoSQA's vector MRR falls 0.531 -> 0.515
        vectors = self._vector(query, filters, pool, spaces)
        return vectors, self._history(query, filters, weights) if history else []

    def _hits(self, scored: list[Scored], request: SearchRequest) -> list[SearchHit]:
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


def _ordered(scored: list[Scored], verdict: relevance.Verdict, query: str) -> list[Scored]:
    """Notes before code, or code before notes (`relevance.order`), each in score order."""
    first, why = relevance.order(verdict, query)
    verdict.ordering = why
    ahead = [s for s in scored if relevance.space_of(s.doc.kind) == first]
    behind = [s for s in scored if relevance.space_of(s.doc.kind) != first]
    for item in ahead + behind:
        item.explain["order"] = why
    return ahead + behind
