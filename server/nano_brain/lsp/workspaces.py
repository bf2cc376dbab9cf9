"""The open workspace folders: one :class:`~nano_brain.workspace.Workspace` per root, found by URI.

Each folder holds three connections to its store, each with its own lock: ``workspace``
writes (commands, index passes); ``reader`` serves the quick lookups of hovers, lenses,
diagnostics and symbols; ``searcher`` runs the related-memory searches of hovers
(:mod:`.related`). So a hover never waits behind an index pass's write transaction (WAL lets
it read the last commit meanwhile), nor its anchored notes behind a search. All three share one
embedding model.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..codeindex import IndexReport
from ..config import load_config
from ..errors import EmbeddingError
from ..timeutil import parse_duration
from ..workspace import Workspace
from .cache import GenerationCache
from .options import InitializationOptions, config_overrides
from .related import RelatedLookups, related_memories
from .render import RelatedView
from .text import relative_to
from .watch import PathRules

if TYPE_CHECKING:
    from ..brain import Brain
    from ..harvest import Harvester  # imported when harvesting starts

log = logging.getLogger(__name__)

#: Audit rows read to find the newest one that is no index pass.
_GENERATION_WINDOW = 20


@dataclass(eq=False)
class Folder:
    """One workspace folder the editor opened, and what the sidecar holds for it."""

    root: Path
    workspace: Workspace
    """Writes: commands, index passes, harvesting."""
    reader: Workspace
    """Reads: hovers, lenses, diagnostics, symbols."""
    searcher: Workspace
    """The related-memory searches of hovers."""
    related: RelatedLookups[list[RelatedView]]
    rules: PathRules
    indexing: bool = False
    dirty: bool = False
    """A change arrived while an index pass ran: run another when it ends."""
    changed: set[str] | None = None
    """Files (relative paths) changed since the last pass began; None: a full pass is due."""
    last_report: IndexReport | None = None
    indexed_once: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    harvest_stop: threading.Event | None = None
    harvest_thread: threading.Thread | None = None
    consolidate_stop: threading.Event = field(default_factory=threading.Event)
    consolidate_thread: threading.Thread | None = None

    @property
    def brain(self) -> Brain:
        """The writing workspace's Brain."""
        return self.workspace.brain

    def rel(self, path: Path) -> str | None:
        return relative_to(self.root, path)

    def note_changes(self, paths: Iterable[str] | None) -> None:
        """Remember what the next pass must look at (caller holds ``lock``); None: all."""
        if paths is None:
            self.changed = None
        elif self.changed is not None:
            self.changed.update(paths)

    def take_changes(self) -> set[str] | None:
        """What changed since the last pass began (None: anything), for the pass starting."""
        with self.lock:
            changed, self.changed = self.changed, set()
        return changed

    def generation(self) -> int:
        return _generation(self.reader.brain)

    def start_harvest(self) -> None:
        """Harvest this folder's agent sessions in the background, as `nano-brain watch`."""
        self.harvest_stop = threading.Event()
        harvester = self.workspace.harvester
        self.harvest_thread = threading.Thread(
            target=_watch, args=(harvester, self.harvest_stop, self.root),
            name=f"harvest:{self.root.name}", daemon=True,
        )  # fmt: skip
        self.harvest_thread.start()

    def start_consolidation(self, every: str) -> None:
        """Propose consolidations of this folder's notes every ``every`` (config
        ``consolidate.every``)."""
        from ..consolidate import propose_every

        self.consolidate_thread = threading.Thread(
            target=propose_every,
            args=(self.brain, parse_duration(every), self.consolidate_stop),
            name=f"consolidate:{self.root.name}", daemon=True,
        )  # fmt: skip
        self.consolidate_thread.start()

    def close(self) -> None:
        if self.harvest_stop is not None and self.harvest_thread is not None:
            self.harvest_stop.set()
            self.harvest_thread.join(timeout=5)
        self.consolidate_stop.set()
        if self.consolidate_thread is not None:
            self.consolidate_thread.join(timeout=5)
        self.related.close()
        self.searcher.close()
        self.reader.close()
        self.workspace.close()


def _generation(reader: Brain) -> int:
    """The id of the store's newest audit-log row that can change what memory a search finds.

    Every mutation (write, edit, supersede, retract, delete, harvest, ...) appends one in its
    own transaction, from any process. Index passes (code and git history) are skipped: they
    change code and commits, and hovers search notes and sessions only; without that, each
    save would drop every cached result.
    When the newest rows are all index passes, the oldest of them stands in (it moves on more
    often than needed, never less).
    """
    rows = reader.log(limit=_GENERATION_WINDOW)
    for row in rows:
        if row.action not in ("index", "history"):
            return row.id
    return rows[-1].id if rows else 0


def _watch(harvester: Harvester, stop: threading.Event, root: Path) -> None:
    try:
        harvester.watch(stop=stop)
    except Exception:  # a broken transcript folder must not take the editor down
        log.exception("session harvesting for %s stopped", root)


class Folders:
    """Roots by resolved path; a file belongs to the deepest root that contains it."""

    def __init__(self) -> None:
        self._by_root: dict[Path, Folder] = {}
        self._lock = threading.Lock()

    def open(self, root: Path, options: InitializationOptions) -> Folder | None:
        """Open (or return the already open) folder at ``root``; None if it is unusable."""
        root = root.expanduser().resolve()
        with self._lock:
            if root in self._by_root:
                return self._by_root[root]
        if not root.is_dir():
            log.warning("workspace folder %s is not a directory; ignored", root)
            return None
        loaded = load_config(
            root, overrides=config_overrides(options), workspace_trusted=options.workspace_trusted
        )
        exclude = options.index.exclude
        workspace = Workspace.open(
            root, config=loaded, actor="lsp", exclude=exclude, workers=options.index.workers
        )
        brain = workspace.brain
        # the model is loaded now (about 0.15 s), not by the first hover, and shared
        opened = [workspace]
        try:
            try:
                provider, why = brain.provider()
            except EmbeddingError as exc:  # an endpoint that is down: lexical search still works
                provider, why = None, str(exc)
            if provider is None:
                log.info("%s: no vector search (%s)", root, why)
            for _ in range(2):  # the reader and the searcher
                opened.append(workspace.open_reader())
            # the background embedder starts after the first index pass (`embedwatch`)
        except BaseException:
            for done in opened:
                done.close()
            raise
        _, reader, searcher = opened
        hover = options.hover
        search = partial(
            related_memories,
            searcher.brain,
            limit=hover.max_related + hover.max_notes,  # anchored ones are dropped from these
            min_similarity=hover.min_similarity,
            snippet_chars=hover.snippet_chars,
        )
        folder = Folder(
            root,
            workspace,
            reader,
            searcher,
            RelatedLookups(
                search, partial(_generation, reader.brain), GenerationCache(hover.cache_entries)
            ),
            PathRules(root, exclude, skip=brain.store_path.parent),
        )
        with self._lock:
            kept = self._by_root.setdefault(root, folder)
        if kept is folder and options.harvest.enabled:
            folder.start_harvest()
        every = brain.config.consolidate.every
        if kept is folder and every:
            folder.start_consolidation(every)
        elif kept is not folder:
            folder.close()
        return kept

    def close(self, root: Path) -> Folder | None:
        with self._lock:
            folder = self._by_root.pop(root.expanduser().resolve(), None)
        return folder

    def all(self) -> list[Folder]:
        with self._lock:
            return list(self._by_root.values())

    def for_path(self, path: Path) -> Folder | None:
        path = path.resolve()
        best: Folder | None = None
        for folder in self.all():
            if path == folder.root or folder.root in path.parents:
                if best is None or len(folder.root.parts) > len(best.root.parts):
                    best = folder
        return best
