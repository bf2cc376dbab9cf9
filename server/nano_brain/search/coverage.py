"""Whether a search's vector legs saw every chunk: the note a search carries while the
workspace is still being embedded (a first index of a large repository takes minutes).

A space's progress is a count over its chunks joined to their documents, about 20 ms on a
store of 50k chunks: too much for every search and every hover. So each search first asks
the store for all pending chunks at once (a partial index, well under a millisecond), and
only while some wait reads the per-space progress, kept for `CACHE_S`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..embedprogress import SpaceProgress
from ..store import priority
from ..store.spaces import Space, spaces_for
from .base import PipelineBase

#: How long one reading of the per-space progress answers the searches that follow it.
CACHE_S = 2.0
#: What a person calls the chunks of each space.
_WHAT: dict[Space, str] = {"text": "memory", "code": "code"}
#: A vector leg's status meaning its space has no vectors at all yet (see `VectorLegs._spaces`).
_NO_VECTORS_YET = "unavailable: no code vectors yet"


class Coverage(PipelineBase):
    """Mixed into SearchPipeline: the partial note (see the module docstring)."""

    def _partial(self, kinds: Sequence[str], legs: dict[str, str]) -> str:
        """The note for a search of these ``kinds`` (all when none is named) whose vector
        legs have the statuses in ``legs``; empty when every chunk it could find by meaning
        has its vector, or vectors are off."""
        if self._embedding_off or not self._store.pending_count():
            return ""
        spaces = spaces_for(kinds)
        searched = [space for space in spaces if _searched(legs.get(_leg(space)))]
        if not searched:
            return ""
        progress, tiers = self._progress()
        parts: list[str] = []
        for space in searched:
            if not progress[space].pending:
                continue
            what = _WHAT[space]
            if space == "text":
                # the text space's queue holds notes first and commit messages last: a
                # search of notes is not partial because commits wait, and one of commits
                # says so by name
                notes = tiers.get(priority.NOTE, 0)
                if kinds and "commit" not in kinds and not notes:
                    continue
                if not notes:
                    parts.append(_commits_line(progress[space]))
                    continue
            parts.append(_line(progress[space], what))
        if not parts:
            return ""
        return "; ".join(parts) + "; results found by meaning may be missing"

    def _progress(self) -> tuple[dict[Space, SpaceProgress], dict[int, int]]:
        """Each space's progress and the pending chunks per tier, read at most every
        `CACHE_S`."""
        now = time.monotonic()
        with self._coverage_lock:
            cached = self._coverage
        if cached is not None and now - cached[0] < CACHE_S:
            return cached[1], cached[2]
        progress = self._vectors.embedding_progress()
        tiers = self._store.pending_tiers()
        with self._coverage_lock:
            self._coverage = (now, progress, tiers)
        return progress, tiers


def _leg(space: Space) -> str:
    return "vector" if space == "text" else "code_vector"


def _searched(status: str | None) -> bool:
    """Whether a vector leg ran over its space, or was skipped because nothing of the space
    has a vector yet (None: not even started). A failed leg or a model that does not match
    the store's vectors says so in the legs already: that is no matter of progress."""
    return status is None or status in ("ok", "empty", _NO_VECTORS_YET)


def _commits_line(progress: SpaceProgress) -> str:
    """``commit search is partial: 2,340 commit messages wait for vectors (about 1 min
    left)``: the rest of the space, the notes, has its vectors."""
    left = progress.estimate()
    waiting = progress.pending
    many = "commit messages wait" if waiting != 1 else "commit message waits"
    line = f"commit search is partial: {waiting:,} {many} for vectors"
    return f"{line} ({left})" if left else line


def _line(progress: SpaceProgress, what: str) -> str:
    """``code search is partial: 29% of code has vectors (about 6 min left)``."""
    left = progress.estimate()
    line = f"{what} search is partial: {int(progress.fraction * 100)}% of {what} has vectors"
    return f"{line} ({left})" if left else line
