"""The hybrid retrieval pipeline: lexical and vector legs, fusion, boosts, explain.

Legs run independently: one failing or absent leaves the other, and the response says which
ran. Every leg and every lexical retry goes through the store's one predicate builder, so a
relaxed retry changes only the match clause and keeps every filter.

Modules: `request` (what a search asks), `pipeline` (`SearchPipeline`: the legs side by
side, judged, made hits), `lexical` and `vector` (the legs), `scoring` (fusion and boosts),
`words` (query words, snippets), `pool` (the legs' threads), `base` (what they share, and
`SearchStore`: the store's capabilities they use).
"""

from __future__ import annotations

from .base import VectorAccess
from .pipeline import SearchPipeline
from .request import MAX_QUERY_CHARS, Mode, SearchRequest, validate_request
from .scoring import decay_score, near_tie_boost, usage_boost
from .words import snippet

__all__ = [
    "MAX_QUERY_CHARS",
    "Mode",
    "SearchPipeline",
    "SearchRequest",
    "VectorAccess",
    "decay_score",
    "near_tie_boost",
    "snippet",
    "usage_boost",
    "validate_request",
]
