"""The lexical legs: every word then any (the store's), trigram fragments, pseudo-relevance
feedback, and the history leg's commits."""

from __future__ import annotations

import logging
import math

from ..errors import NanoBrainError
from ..filters import Filters
from ..store import Hit
from ..store.rows import merge_hits
from .base import Leg, PipelineBase
from .words import feedback_words, has_cjk, query_words, trigram_terms

log = logging.getLogger(__name__)

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

# A query that names no kind searches commits apart (filters.DEFAULT_KINDS leaves them out of
# the other legs): a lexical leg of its own, this many candidates, fused at
# `history.search_weight` of the lexical weight. A repository's thousands of commit messages
# then never crowd notes out of the candidate pools, and a commit that matches well still
# shows, below a note that matches as well.
_HISTORY_POOL = 10


class LexicalLegs(PipelineBase):
    """Mixed into SearchPipeline: the legs that search words (the store's `LexicalSearch`,
    and its `Chunks` for feedback words)."""

    def _lexical(
        self,
        query: str,
        filters: Filters,
        pool: int,
        weights: tuple[float, float],
        *,
        trigram: bool = True,
    ) -> tuple[list[Hit], list[str]]:
        terms = query_words(query)
        hits: list[Hit] = []
        fallback: list[str] = []
        words = [t for t in terms if not has_cjk(t)]
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
            grams = list(dict.fromkeys(g for t in fragments for g in trigram_terms(t)))
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
        scored = feedback_words(
            [texts[h.chunk_id][0] for h in best if h.chunk_id in texts],
            [body for body, _, _ in texts.values()],
            set(query_words(query)),
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

    def _history(self, query: str, filters: Filters, weights: tuple[float, float]) -> list[Leg]:
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
