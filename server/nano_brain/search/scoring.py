"""Fusion and boosts: reciprocal-rank fusion of the legs, recency, decay, thread context,
usage and supersede demotion, each part recorded for explain."""

from __future__ import annotations

import math
import time
from typing import Any

from ..filters import Filters
from ..store import Hit
from ..store.spaces import spaces_for
from ..timeutil import parse_duration
from .base import Candidate, PipelineBase, Scored
from .request import SearchRequest

# Thread context: how many of the best candidates lend relevance to their neighbours.
_THREAD_LENDERS = 20


class Scoring(PipelineBase):
    """Mixed into SearchPipeline: the candidates' scores (the store's `Documents` and
    `Chunks`)."""

    def _score(
        self,
        candidates: list[Candidate],
        request: SearchRequest,
        filters: Filters,
        ran: set[str],
    ) -> list[Scored]:
        """Fusion, recency, decay, thread context, usage, supersede demotion; best first.

        Scores are on one scale: 1.0 is a document ranked first by every leg that ran (found
        something or not), so a match only one leg found scores visibly lower.
        """
        cfg = self._config
        weights, rrf_k, best_possible = self._leg_weights(request, ran)
        as_of = request.as_of_time
        now = time.time() if as_of is None else as_of
        docs = self._store.get_many(
            (c.doc_id for c in candidates),
            content=request.include_content,
            as_of=as_of,
        )
        half_life = parse_duration(cfg.recency_half_life)
        decay_days = self._decay.half_life_days()
        scored: list[Scored] = []
        for cand in candidates:
            doc = docs.get(cand.doc_id)
            if doc is None:
                continue
            parts = {
                f"{leg}_rrf": weights[leg] / (rrf_k + rank) for leg, rank in cand.ranks.items()
            }
            own = "code_vector" if doc.kind == "code" else "vector"
            if cand.vectorless and own in ran:
                # never embedded by choice, so no vector leg can rank it: it takes its words'
                # rank there too rather than lose to anything the vector leg found
                parts[f"{own}_rrf"] = weights[own] / (rrf_k + cand.ranks["lexical"])
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
            scored.append(Scored(cand, doc, relevance / best_possible, explain))
        # keyword and meaning-only searches return what matched; hybrid also brings context
        if request.mode == "hybrid" and request.expand and cfg.thread_weight and cfg.thread_window:
            scored = self._thread_context(scored, filters, request)
        self._use_and_supersede(scored, request)
        scored.sort(key=lambda item: (-item.score, item.doc.id))
        return scored

    def _leg_weights(
        self, request: SearchRequest, ran: set[str]
    ) -> tuple[dict[str, float], int, float]:
        """Each leg's fusion weight, the RRF constant, and the best fused score possible with
        the legs that ran (what 1.0 stands for)."""
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
        return weights, rrf_k, best_possible

    def _use_and_supersede(self, scored: list[Scored], request: SearchRequest) -> None:
        """The usage boost (hybrid searches, strong candidates only) and the supersede
        demotion, applied to the scores in place."""
        cfg = self._config
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

    def _thread_context(
        self, scored: list[Scored], filters: Filters, request: SearchRequest
    ) -> list[Scored]:
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
            item = Scored(
                Candidate(doc_id, firsts[doc_id]),
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


def collect(ranked: dict[str, list[Hit]]) -> list[Candidate]:
    """One candidate per document; a document's rank in a leg is that of its best chunk.

    Equal leg scores share a rank (1, 2, 2, 4): two identical notes are equally relevant,
    and fusing ranks must not make one of them better by the order the index listed them.
    """
    by_doc: dict[int, Candidate] = {}
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
                cand = by_doc[hit.doc_id] = Candidate(hit.doc_id, hit.chunk_id)
            cand.ranks[leg] = rank
            cand.raw[leg] = round(float(hit.score), 6)
    return list(by_doc.values())
