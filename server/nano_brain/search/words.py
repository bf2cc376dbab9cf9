"""A query's words as the legs use them: the words searched (stopwords dropped), trigram
terms, a code query without language names, feedback words, and the snippet shown."""

from __future__ import annotations

import math
from collections import Counter

from ..querywords import STOPWORDS, WORD, has_cjk, query_words

__all__ = [
    "WORD",
    "has_cjk",
    "code_query",
    "feedback_words",
    "query_words",
    "snippet",
    "trigram_terms",
]

# Words naming a language say which code, not what it does ("python read csv"); dropped from
# code-only keyword queries that have other words. ("go" is too common an English word to drop.)
_LANGUAGE_WORDS = frozenset(
    """python python2 python3 py pythonic javascript js node nodejs typescript ts tsx jsx java
    golang rust ruby""".split()
)


def trigram_terms(term: str) -> list[str]:
    """Trigram-index terms: CJK runs as their 3-grams (no word breaks), others whole."""
    if len(term) < 3:
        return []
    if has_cjk(term):
        return [term[i : i + 3] for i in range(len(term) - 2)]
    return [term]


def code_query(query: str) -> str:
    """The query without words that only name a programming language (if others remain)."""
    kept = [w for w in query.split() if w.strip(".,;:!?()\"'").lower() not in _LANGUAGE_WORDS]
    return " ".join(kept) if kept else query


def feedback_words(
    best: list[str], pool: list[str], query_terms: set[str]
) -> list[tuple[str, float]]:
    """Words frequent in the best matches and rare among all candidates (tf x local idf),
    best first, with their scores."""
    seen_in: Counter[str] = Counter()
    for body in pool:
        seen_in.update(set(WORD.findall(body.lower())))
    skip = STOPWORDS | query_terms
    counts: Counter[str] = Counter()
    for body in best:
        counts.update(
            w
            for w in WORD.findall(body.lower())
            if len(w) > 2 and w not in skip and not w.isdigit()
        )
    total = len(pool) + 1
    scores = {w: counts[w] * math.log(total / seen_in[w]) for w in counts}
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def snippet(text: str, query: str, width: int = 240) -> str:
    """A window of `text` around the first query term it contains."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    positions = [lower.find(t) for t in query_words(query)]
    positions = [p for p in positions if p >= 0]
    start = max(0, min(positions) - width // 4) if positions else 0
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")
