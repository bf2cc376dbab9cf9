"""A query's words: what the lexical leg searches for and the relevance floor weighs.

Plain functions (no store, no pydantic): the search pipeline and the agent hooks' quick path
take a query's words from here, so both judge a prompt by the same words.
"""

from __future__ import annotations

import re

WORD = re.compile(r"\w+", re.UNICODE)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
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
    return [part for t in query_words(query) if not CJK.search(t) for part in t.split("_") if part]
