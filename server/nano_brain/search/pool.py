"""The threads the vector and history legs run on beside the lexical leg."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from .base import Legs

log = logging.getLogger(__name__)

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def legs_pool() -> ThreadPoolExecutor:
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


def settle(legs: Future[Legs] | Legs) -> None:
    """Wait for the legs still running beside (their reader connection goes back to the
    pool) when the search ends early; whatever they found or raised is dropped."""
    if isinstance(legs, Future):
        try:
            legs.result()
        except Exception as exc:
            log.debug("vector leg of a failed search: %s", exc)
