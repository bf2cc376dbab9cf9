"""The one object a front end holds for a workspace: its memory, code index, history and harvester.

The CLI, the MCP server, the language server and the UI each open a :class:`Workspace` and
call into it; none of them assembles the services below on its own. The Brain (notes, search,
views) opens with the workspace; the code index, the routes, the git history and the session
harvester are built on that Brain the first time they are asked for, then kept, so a command
that needs only notes loads no parser.

One Workspace is one store connection (the Brain's). A front end that wants another
connection to the same store, say to read while an index pass writes, asks for it with
:meth:`Workspace.open_reader`, which shares the loaded embedding models.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from . import paths
from .config import Config, LoadedConfig, load_config
from .errors import StoreError

if TYPE_CHECKING:
    from .brain import Brain
    from .codeindex import CodeIndex, IndexReport, Routes
    from .codeindex.indexer import IndexProgress
    from .embedding import EmbeddingProvider
    from .harvest import Harvester
    from .history import History
    from .indexchild import IndexChild
    from .why import WhyLimits, WhyView


class Workspace:
    """A workspace's Brain and the services built on it, opened and closed together."""

    def __init__(
        self,
        brain: Brain,
        *,
        loaded: Config | LoadedConfig | None = None,
        exclude: Sequence[str] = (),
        workers: int | None = None,
        db: str | Path | None = None,
    ) -> None:
        self.brain = brain
        """Notes, search, views, the audit log: every memory call."""
        self._loaded = loaded if loaded is not None else brain.config
        self._db = db
        self._exclude = tuple(exclude)
        self._workers = workers
        self._code: CodeIndex | None = None
        self._routes: Routes | None = None
        self._history: History | None = None
        self._harvester: Harvester | None = None
        # an MCP server calls tools from worker threads: each service is built once
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls,
        root: str | Path | None,
        *,
        config: Config | LoadedConfig | None = None,
        db: str | Path | None = None,
        actor: str = "cli",
        create: bool = True,
        exclude: Sequence[str] = (),
        workers: int | None = None,
        providers: tuple[EmbeddingProvider | None, EmbeddingProvider | None] | None = None,
    ) -> Workspace:
        """Open the workspace at ``root`` (its store at ``db``, default: the config's or the
        per-workspace file). Without ``create``, a local store that does not exist yet is an
        error, and no file or folder is made; ``exclude`` and ``workers`` tune the code index;
        ``providers`` are the (text, code) embedding models another Workspace loaded, to share.
        """
        from .brain import Brain

        where = paths.workspace_root(root)
        if config is None:
            config = load_config(where)
        if not create:
            _require_store(where, config, db)
        if providers is None:
            brain = Brain(where, config=config, db_path=db, actor=actor)
        else:
            text, code = providers
            brain = Brain(where, config=config, db_path=db, provider=text, code_provider=code,
                          actor=actor)  # fmt: skip
        return cls(brain, loaded=config, exclude=exclude, workers=workers, db=db)

    def open_reader(self, *, workers: int | None = None) -> Workspace:
        """Another connection to this workspace's store, sharing the loaded embedding models,
        with the code index settings of this one (``workers`` for its own passes)."""
        # opened as this one was (no db path): a team store's `path` is its clone's code
        # index file, which as a db path would open another one beside it
        return Workspace.open(
            self.brain.root, config=self._loaded, actor=self.brain.actor, exclude=self._exclude,
            workers=workers, providers=self.brain.providers(),
        )  # fmt: skip

    # -- what the workspace is -----------------------------------------------------------

    @property
    def root(self) -> Path:
        return self.brain.root

    @property
    def config(self) -> Config:
        return self.brain.config

    # -- the services on the Brain, built when first used ----------------------------------

    @property
    def code(self) -> CodeIndex:
        """The code index: symbols, calls, impact, code search, anchors."""
        with self._lock:
            if self._code is None:
                from .codeindex import CodeIndex

                self._code = CodeIndex(self.brain, exclude=self._exclude, workers=self._workers)
        return self._code

    @property
    def routes(self) -> Routes:
        """The HTTP routes the code declares, and their flows."""
        with self._lock:
            if self._routes is None:
                from .codeindex import Routes

                self._routes = Routes(self.brain)
        return self._routes

    @property
    def history(self) -> History:
        """The workspace's git history, mapped onto its symbols."""
        with self._lock:
            if self._history is None:
                from .history import History

                self._history = History(self.brain)
        return self._history

    @property
    def harvester(self) -> Harvester:
        """The agent-session harvester (not thread-safe: one thread runs its ticks)."""
        with self._lock:
            if self._harvester is None:
                from .harvest import Harvester

                self._harvester = Harvester(self.brain)
        return self._harvester

    def index(
        self,
        progress: IndexProgress | None = None,
        *,
        embed: bool = False,
        history: bool = True,
        paths: Collection[str] | None = None,
    ) -> IndexReport:
        """One index pass: code, then git history, then (with ``embed``) new embeddings
        (:func:`nano_brain.indexing.index_workspace`)."""
        from .indexing import index_workspace

        return index_workspace(self.code, progress, embed=embed, history=history, paths=paths)

    def index_in_child(self, *, history: bool = True) -> IndexChild:
        """The same pass (code, then git history; no embedding) in a child process, which
        opens this workspace as this one was opened (:mod:`nano_brain.indexchild`): for a
        long-lived process, whose own memory then stays out of a first index's peak."""
        from .indexchild import ChildSpec, IndexChild

        spec = ChildSpec(
            root=self.brain.root, config=self._loaded, db=self._db, actor=self.brain.actor,
            exclude=self._exclude, workers=self._workers, history=history,
        )  # fmt: skip
        return IndexChild(spec)

    def code_indexed(self) -> bool:
        """Whether the store holds any source file of this workspace (False: the next pass
        is a first index, loaded in bulk)."""
        return self.code.counts()["source_files"] > 0

    def why(self, symbol: str, **limits: Unpack[WhyLimits]) -> WhyView:
        """Why ``symbol`` is like this: its anchored notes, commits, sessions and related
        memory, each part to its limit (:func:`nano_brain.why.why`, which holds the defaults)."""
        from .why import why

        return why(self.brain, symbol, **limits)

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the background embedding and close the store."""
        self.brain.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _require_store(root: Path, config: Config | LoadedConfig, db: str | Path | None) -> None:
    """Refuse a local store that does not exist (a team store exists on its server)."""
    settings = config.config if isinstance(config, LoadedConfig) else config
    if settings.storage.url:
        return
    path = Path(db or settings.storage.db_path or paths.default_db_path(root))
    if not path.expanduser().exists():
        where = f"at {path}" if db else f"for workspace {root}: {path}"
        raise StoreError(
            f"no store {where} does not exist (nothing saved yet; "
            "`nano-brain write` or `nano-brain index` creates it)"
        )
