"""A query's words: what the lexical leg searches for and the relevance floor weighs.

Plain functions (no store, no pydantic): the search pipeline and the agent hooks' quick path
take a query's words from here, so both judge a prompt by the same words.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable

from .stems import stem

WORD = re.compile(r"\w+", re.UNICODE)
# what FTS5's unicode61 tokenizer calls a word: letters and digits; `_` separates (`on_startup`)
INDEX_WORD = re.compile(r"[^\W_]+", re.UNICODE)
WORDS_ONLY_LIST = 0.40
WORDS_ONLY_RELATED = 0.50
"""The word coverage a list (or memory offered unasked) needs where no vector leg ran
(`relevance.WORDS_ONLY`)."""
_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
STOPWORDS = frozenset(
    """s t ll re ve d m a about above after again against all am an and any are as at be because
    been before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours
    yourself yourselves""".split()
)


def query_words(query: str) -> list[str]:
    """Query words for the lexical leg, stopwords dropped unless nothing else is left."""
    words = [w.lower() for w in WORD.findall(query)]
    kept = [w for w in words if w not in STOPWORDS]
    return list(dict.fromkeys(kept or words))


def judged_terms(query: str) -> list[str]:
    """The words the relevance floor weighs: the searched words, split as the index splits
    identifiers (`forwarded_allow_ips`), without CJK runs (which have no word breaks)."""
    return [part for t in query_words(query) if not has_cjk(t) for part in t.split("_") if part]


def has_cjk(text: str) -> bool:
    """Whether the text holds a CJK character (a run with no word breaks)."""
    return _cjk().search(text) is not None


@functools.cache
def _cjk() -> re.Pattern[str]:
    # compiled on first use: the character class costs 6 ms to compile, a twentieth of an
    # agent hook's budget, and most hooks never ask
    return re.compile(_CJK)


def idf_weights(terms: Iterable[str], counts: dict[str, int], total: int) -> dict[str, float]:
    """Each query word's weight by its stem, from its document count (BM25's idf, >= 0)."""
    out: dict[str, float] = {}
    for term in terms:
        n = counts.get(term, 0)
        out[stem(term)] = math.log((total - n + 0.5) / (n + 0.5) + 1.0)
    return out


def coverage(weights: dict[str, float], text: str) -> float:
    """The share of the query's weight whose words `text` holds (0..1)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    held = {stem(w) for w in INDEX_WORD.findall(text)}
    return sum(v for term, v in weights.items() if term in held) / total
