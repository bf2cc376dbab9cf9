"""Whether a search's vector legs saw every chunk: the note a search carries while the
workspace is still being embedded (a first index of a large repository takes minutes).

A space's progress is a count over its chunks joined to their documents, about 20 ms on a
store of 50k chunks: too much for every search and every hover. So each search first asks
the store for all pending chunks at once (a partial index, well under a millisecond), and
only while some wait reads the per-space progress, kept for `CACHE_S`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from ..embedprogress import SpaceProgress
from ..store.spaces import Space
from .base import PipelineBase

#: How long one reading of the per-space progress answers the searches that follow it.
CACHE_S = 2.0
#: What a person calls the chunks of each space.
_WHAT: dict[Space, str] = {"text": "memory", "code": "code"}
#: A vector leg's status meaning its space has no vectors at all yet (see `VectorLegs._spaces`).
_NO_VECTORS_YET = "unavailable: no code vectors yet"


class Coverage(PipelineBase):
    """Mixed into SearchPipeline: the partial note (see the module docstring)."""

    def _partial(self, spaces: Iterable[Space], legs: dict[str, str]) -> str:
        """The note for a search whose vector legs would cover ``spaces`` (their statuses in
        ``legs``); empty when every chunk of them has its vector, or vectors are off."""
        if self._embedding_off or not self._store.pending_count():
            return ""
        searched = [space for space in spaces if _searched(legs.get(_leg(space)))]
        if not searched:
            return ""
        progress = self._progress()
        parts = [_line(progress[space]) for space in searched if progress[space].pending]
        if not parts:
            return ""
        return "; ".join(parts) + "; results found by meaning may be missing"

    def _progress(self) -> dict[Space, SpaceProgress]:
        now = time.monotonic()
        with self._coverage_lock:
            cached = self._coverage
        if cached is not None and now - cached[0] < CACHE_S:
            return cached[1]
        progress = self._vectors.embedding_progress()
        with self._coverage_lock:
            self._coverage = (now, progress)
        return progress


def _leg(space: Space) -> str:
    return "vector" if space == "text" else "code_vector"


def _searched(status: str | None) -> bool:
    """Whether a vector leg ran over its space, or was skipped because nothing of the space
    has a vector yet (None: not even started). A failed leg or a model that does not match
    the store's vectors says so in the legs already: that is no matter of progress."""
    return status is None or status in ("ok", "empty", _NO_VECTORS_YET)


def _line(progress: SpaceProgress) -> str:
    """``code search is partial: 29% of code has vectors (about 6 min left)``."""
    what = _WHAT[progress.space]
    left = progress.estimate()
    line = f"{what} search is partial: {int(progress.fraction * 100)}% of {what} has vectors"
    return f"{line} ({left})" if left else line
