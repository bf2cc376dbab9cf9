"""One index pass of a workspace, as the front ends run it: the code, then its git history,
then (when asked) the embeddings of what is new.

The code index (:mod:`nano_brain.codeindex`) and the git history (:mod:`nano_brain.history`)
know nothing of each other; this service runs them in order, so that the history pass maps
commits onto the symbols the code pass has just indexed.
"""

from __future__ import annotations

from collections.abc import Collection

from .codeindex import CodeIndex, IndexReport
from .codeindex.indexer import IndexProgress
from .errors import EmbeddingError


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
    if history and brain.config.history.enabled:
        # loaded only for a pass that runs it: the CLI's other code commands start faster
        from .history import History

        report.history = History(brain).index(progress, workers=code.workers).to_dict()
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
