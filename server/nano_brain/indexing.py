"""One index pass of a workspace, as the front ends run it: the code, then its git history,
then (when asked) the embeddings of what is new.

The code index (:mod:`nano_brain.codeindex`) and the git history (:mod:`nano_brain.history`)
know nothing of each other; this service runs them in order, so that the history pass maps
commits onto the symbols the code pass has just indexed.

Between the phases of a full pass, :func:`release_memory` hands back what the phase before
grew and no longer holds: a first index of a large repository keeps every parsed file until
its calls are resolved, and glibc keeps the freed heap mapped unless asked.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import logging
import sys
from collections.abc import Callable, Collection

from .codeindex import CodeIndex, IndexReport
from .codeindex.indexer import IndexProgress
from .errors import EmbeddingError
from .store import CodeStore

log = logging.getLogger(__name__)


def index_workspace(
    code: CodeIndex,
    progress: IndexProgress | None = None,
    *,
    embed: bool = False,
    history: bool = True,
    paths: Collection[str] | None = None,
) -> IndexReport:
    """Bring the workspace's indexes up to date (incremental); returns the code pass's report.

    ``paths`` (relative to the root, POSIX) names the only files that changed, when the
    caller knows (an editor's saves and file events): the code pass then looks at just those.

    The lexical index is committed, and usable, before this returns or embeds. With
    ``history`` (and ``history.enabled``), the git history follows, reported in
    ``report.history``. With ``embed``, the symbol chunks still without a vector are embedded
    last, reported to ``progress`` as phase ``embed`` (a provider that fails leaves them
    pending and adds the reason to ``report.errors``).
    """
    brain = code.brain
    report = code.index(progress, paths=paths)
    # an editor's saves name their files and grow nothing worth a collection of its heap
    full = paths is None
    if full:
        release_memory(code.code, reset_cache=False)
    if history and brain.config.history.enabled:
        # loaded only for a pass that runs it: the CLI's other code commands start faster
        from .history import History

        report.history = History(brain).index(progress, workers=code.workers).to_dict()
    if full:
        release_memory(code.code, reset_cache=True)
    if embed and report.pending_embeddings:
        notify = progress or (lambda phase, done, total: None)
        notify("embed", 0, report.pending_embeddings)
        try:
            report.embedded = brain.embed_pending(
                progress=lambda done, total: notify("embed", done, total)
            )
        except EmbeddingError as exc:
            report.errors.append(f"embeddings not computed: {exc}")
        report.pending_embeddings = brain.pending_embeddings()
    return report


def release_memory(code: CodeStore, *, reset_cache: bool) -> None:
    """Give back the memory an index phase grew and no longer holds, before the next one
    (the history's parsers, the embedding models) grows the process again.

    Frees the store's cached pages (with ``reset_cache``, back to the default cache size
    the bulk load raised), collects the cycles the indexer's parse records left (its
    collector was off while it ran), then asks glibc to return free heap pages to the
    system: without that the process keeps its peak however little is live.
    """
    code.release_memory(reset_cache=reset_cache)
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim  # musl has none: AttributeError
    except (OSError, AttributeError):
        log.debug("no malloc_trim: freed heap stays mapped until reused")
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim
