"""The workspace's git history as memory: commits as documents, linked to the symbols they
changed (see docs/history.md).

``History(brain)`` indexes the history (incremental) and answers, for a symbol, the commits
that changed it (following renames of its file and of itself), and for a file, the agent
sessions that edited it. Every front end reaches it through :mod:`nano_brain.why` or here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..filters import Filters
from ..store.commits import CommitChange, CommitStore
from ..timeutil import iso
from ._git import GitError
from .indexer import HistoryIndexer, HistoryProgress, HistoryReport

if TYPE_CHECKING:
    from ..brain import Brain
    from ..store import DocumentRow

__all__ = ["CommitInfo", "GitError", "History", "HistoryReport"]

#: How many renames back a symbol's history is followed.
MAX_RENAMES = 32


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """A commit that changed a symbol, as views show it."""

    id: str
    hash: str
    subject: str
    author: str
    date: str
    change: str
    """added, modified, renamed (the symbol got its present name) or removed"""
    name: str
    """the symbol's qualified name at that commit"""
    tickets: tuple[str, ...]
    status: str = "active"

    @property
    def short(self) -> str:
        return self.hash[:10]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "short": self.short}


class History:
    """One workspace's history, on top of its Brain."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.store = CommitStore(brain.store)

    def index(
        self, progress: HistoryProgress | None = None, *, workers: int | None = None
    ) -> HistoryReport:
        """Bring the stored history up to date with the repository (incremental)."""
        return HistoryIndexer(self.brain, workers=workers).run(progress)

    def counts(self) -> dict[str, int]:
        return self.store.counts()

    def names_of(self, qualified_name: str) -> list[tuple[str, int | None]]:
        """The names a symbol had: its own, then back through the renames of its file and of
        itself, each with the last place in the history it had that name (None: now)."""
        names: list[tuple[str, int | None]] = [(qualified_name, None)]
        seen = {qualified_name}
        i = 0
        while i < len(names) and len(names) < MAX_RENAMES:
            name, bound = names[i]
            i += 1
            path, _, local = name.partition("::")
            found = [(old, seq) for old, _, seq in self.store.renamed_from(name, bound)]
            found += [
                (f"{old}::{local}", seq)
                for old, kind, seq in self.store.renamed_from(path, bound)
                if kind == "file"
            ]
            for old, seq in found:
                if old not in seen:
                    seen.add(old)
                    names.append((old, seq - 1))
        return names

    def commits_of(self, qualified_name: str, *, limit: int = 10) -> list[CommitInfo]:
        """Commits that changed a symbol (under this name or an earlier one), newest first."""
        changes = self.store.changes_of(
            self.names_of(qualified_name), limit, Filters(kinds=("commit",))
        )
        docs = self.brain.store.get_many([c.doc_id for c in changes], content=False)
        return [_info(c, docs[c.doc_id]) for c in changes if c.doc_id in docs]

    def documents_touching(
        self, path: str, kinds: tuple[str, ...], *, limit: int
    ) -> list[DocumentRow]:
        """Sessions (or commits) linked to a file, most recent first."""
        return self.store.documents_touching(path, Filters(kinds=kinds), limit)  # type: ignore[arg-type]


def _info(change: CommitChange, doc: DocumentRow) -> CommitInfo:
    meta = doc.metadata
    return CommitInfo(
        id=doc.uid,
        hash=change.hash,
        subject=doc.title,
        author=str(meta.get("author", "")),
        date=iso(change.committed_at) or "",
        change=change.change,
        name=change.name,
        tickets=tuple(str(t) for t in meta.get("tickets", [])),
        status=doc.status,
    )
