"""The code index as front ends use it: index, symbols, callers, callees, impact, search, anchors.

``CodeIndex(brain)`` answers from the store (no re-parse per question), so the CLI, MCP tools
and the language server share one implementation and one set of results. Only confident
(resolved) calls are reported as callers; calls left unresolved are offered separately as
``possible_callers`` and labelled as guesses.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError, NotFoundError
from ..filters import Filters
from ..store import CodeStore
from ..store.code import AnchorRecord, EdgeRecord, SymbolRecord
from .indexer import Indexer, IndexProgress, IndexReport
from .resolve import MODULE_CALLER, CallerStep, ImpactEntry, reach_callers
from .walk import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from ..brain import Brain
    from ..models import SearchResponse

log = logging.getLogger(__name__)

MAX_IMPACT_DEPTH = 10


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    qualified_name: str
    name: str
    kind: str
    path: str
    language: str | None
    signature: str
    docstring: str | None
    start_line: int
    end_line: int
    sha256: str
    doc_id: str | None = None

    @classmethod
    def of(cls, rec: SymbolRecord) -> SymbolInfo:
        return cls(
            rec.qualified_name, rec.name, rec.kind, rec.path, rec.language, rec.signature,
            rec.docstring, rec.start_line, rec.end_line, rec.sha256, rec.doc_uid,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CallInfo:
    """One call: ``caller`` (``path::<module>`` for top-level code) calls ``callee``."""

    caller: str
    callee: str | None
    name: str
    expression: str | None
    how: str | None
    path: str
    line: int

    @classmethod
    def of(cls, edge: EdgeRecord) -> CallInfo:
        caller = edge.source or f"{edge.path}::{MODULE_CALLER}"
        return cls(caller, edge.target, edge.name, edge.expression, edge.how, edge.path, edge.line)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class AnchorInfo:
    note_id: str
    note_title: str | None
    note_status: str | None
    qualified_name: str
    path: str
    state: str
    anchored_at: float
    symbol_sha256: str = ""
    """the symbol's text hash when the note was anchored (an open buffer is compared to it)"""

    @classmethod
    def of(cls, rec: AnchorRecord) -> AnchorInfo:
        return cls(
            rec.doc_uid, rec.doc_title, rec.doc_status, rec.qualified_name, rec.path,
            rec.state, rec.created_at, rec.symbol_sha256,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["symbol_sha256"]  # an internal hash: the front ends' output shows the state
        return data


#: One symbol an impact reaches: the record the in-memory graph's impact gives too.
ImpactItem = ImpactEntry


@dataclass(slots=True)
class Impact:
    """Transitive confident callers of ``symbol`` and the notes anchored to any of them."""

    symbol: str
    depth: int
    affected: list[ImpactItem] = field(default_factory=list)
    notes: list[AnchorInfo] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            "depth": self.depth,
            "affected": [a.to_dict() for a in self.affected],
            "notes": [n.to_dict() for n in self.notes],
        }


class CodeIndex:
    """One workspace's code index, on top of its Brain (store, config, search)."""

    def __init__(
        self,
        brain: Brain,
        *,
        exclude: Sequence[str] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        workers: int | None = None,
    ) -> None:
        self.brain = brain
        self.code = CodeStore(brain.store)
        self._exclude = list(exclude)
        self._max_bytes = max_bytes
        self._workers = workers

    # -- indexing ----------------------------------------------------------------------------

    @property
    def workers(self) -> int | None:
        """Parser processes per pass (None: the default, up to 2)."""
        return self._workers

    def index(
        self, progress: IndexProgress | None = None, *, paths: Collection[str] | None = None
    ) -> IndexReport:
        """Bring the code index up to date with the workspace (incremental).

        ``paths`` (relative to the root, POSIX) names the only files that changed, when the
        caller knows (an editor's saves and file events): the pass then looks at just those.
        The lexical index is committed, and usable, when this returns; the git history and
        the embeddings are other passes (:func:`nano_brain.indexing.index_workspace` runs
        all three).
        """
        indexer = Indexer(
            self.brain, workers=self._workers, exclude=self._exclude, max_bytes=self._max_bytes
        )
        return indexer.run(progress, paths=paths)

    def counts(self) -> dict[str, int]:
        return self.code.counts()

    # -- navigation --------------------------------------------------------------------------

    def symbols(self, query: str, kind: str | None = None, limit: int = 100) -> list[SymbolInfo]:
        """Symbols by qualified name, ``Class.method`` suffix, bare name, else name substring."""
        query = clean_argument(query, "query")
        if limit < 1:
            raise InvalidInputError("limit must be >= 1")
        return [SymbolInfo.of(r) for r in self.code.find_symbols(query, kind, limit)]

    def resolve_symbol(self, ref: str) -> SymbolInfo:
        """The one symbol a reference names (qualified name, ``Class.method`` or bare name)."""
        ref = clean_argument(ref, "symbol")
        exact = self.code.symbol(ref)
        if exact is not None:
            return SymbolInfo.of(exact)
        if "::" in ref:
            raise NotFoundError(f"no symbol {ref!r} in the code index (run `nano-brain index`?)")
        found = [r for r in self.code.find_symbols(ref, None, 50) if _names(r, ref)]
        if not found:
            raise NotFoundError(f"no symbol {ref!r} in the code index (run `nano-brain index`?)")
        if len(found) > 1:
            listed = ", ".join(r.qualified_name for r in found[:10])
            more = f" and {len(found) - 10} more" if len(found) > 10 else ""
            raise InvalidInputError(
                f"{ref!r} names {len(found)} symbols: {listed}{more}; pass a qualified name"
            )
        return SymbolInfo.of(found[0])

    def callers(self, symbol: str) -> list[CallInfo]:
        """Call sites confidently resolved to ``symbol``."""
        target = self.resolve_symbol(symbol).qualified_name
        return [CallInfo.of(e) for e in self.code.callers([target])]

    def calls_in(self, symbols: Sequence[str], path: str | None = None) -> list[CallInfo]:
        """Calls made directly inside these symbols (qualified names, taken as they are), in
        line order, then those of the top-level code of ``path``."""
        edges = self.code.callees(symbols)
        if path is not None:
            edges += self.code.top_level_calls(path)
        return [CallInfo.of(e) for e in edges]

    def possible_callers(self, symbol: str, limit: int = 200) -> list[CallInfo]:
        """Unresolved calls with the same bare name: guesses, never confident callers."""
        sym = self.resolve_symbol(symbol)
        return [CallInfo.of(e) for e in self.code.unresolved_calls_named(sym.name, limit)]

    def callees(self, symbol: str, *, include_unresolved: bool = True) -> list[CallInfo]:
        """Calls made directly inside ``symbol`` (unresolved ones have ``callee`` None).

        ``path::<module>`` names the top-level code of a file.
        """
        ref = clean_argument(symbol, "symbol")
        if ref.endswith("::" + MODULE_CALLER):
            edges = self.code.top_level_calls(ref.split("::", 1)[0])
        else:
            edges = self.code.callees([self.resolve_symbol(ref).qualified_name])
        return [CallInfo.of(e) for e in edges if include_unresolved or e.target is not None]

    def impact(self, symbol: str, depth: int = 3) -> Impact:
        """Who is affected by changing ``symbol``: transitive confident callers, breadth first.

        Each affected symbol appears once, at its smallest distance; top-level code appears as
        ``path::<module>`` and is not followed further. Notes anchored to the symbol or to any
        affected one come along, each with its anchor's state (ok / changed / missing).
        """
        if not isinstance(depth, int) or depth < 1 or depth > MAX_IMPACT_DEPTH:
            raise InvalidInputError(f"impact depth must be 1..{MAX_IMPACT_DEPTH}")
        start = self.resolve_symbol(symbol).qualified_name

        def callers(targets: list[str]) -> Iterator[CallerStep]:
            for edge in self.code.callers(targets):
                key = edge.source or f"{edge.path}::{MODULE_CALLER}"
                yield key, edge.target or "", edge.path, edge.line, edge.source is not None

        result = Impact(start, depth, reach_callers(start, depth, callers))
        seen = {start, *(a.qualified_name for a in result.affected)}
        result.notes = [AnchorInfo.of(a) for a in self.code.anchors(qualified_names=sorted(seen))]
        return result

    # -- search --------------------------------------------------------------------------------

    def search(self, query: str, *, limit: int = 10, mode: str = "hybrid") -> SearchResponse:
        """Hybrid search over symbol chunks (and indexed docs): ``Brain.search`` with kind=code."""
        from ..search import validate_request

        # a code-index lookup is not a reading of memory: it never counts as an access
        # a code search answers with the nearest code, judged by the caller (CoSQA ranks it)
        request = validate_request(
            query=query, mode=mode, limit=limit, kind=["code"], track=False, floor="off"
        )
        return self.brain.search(request)

    # -- anchors -------------------------------------------------------------------------------

    def anchor(self, note: str, symbol: str) -> AnchorInfo:
        """Attach a note (``#id`` or id) to a symbol, remembering the symbol's current text hash."""
        doc = self.brain.get(note)
        sym = self.resolve_symbol(symbol)
        now = time.time()
        with self.brain.store.transaction():
            self.code.add_anchor(doc.id, sym.path, sym.qualified_name, sym.sha256, now)
            self.brain.store.audit(
                at=now,
                actor=self.brain.actor,
                action="anchor",
                uid=doc.id,
                title=doc.title,
                details={"symbol": sym.qualified_name, "sha256": sym.sha256},
            )
        found = self.code.anchors(qualified_names=[sym.qualified_name], doc_uid=doc.id)
        return AnchorInfo.of(found[0])

    def unanchor(self, note: str, symbol: str) -> bool:
        doc = self.brain.get(note)
        with self.brain.store.transaction():
            return self.code.remove_anchor(doc.id, clean_argument(symbol, "symbol"))

    def anchors(
        self,
        *,
        symbol: str | None = None,
        note: str | None = None,
        symbols: Sequence[str] | None = None,
        path: str | None = None,
        visible: Filters | None = None,
    ) -> list[AnchorInfo]:
        """Anchors of one symbol or of several (by qualified name, present or not), of one
        note, of one file (``path``), or all.

        With ``visible``, only the anchors of notes a read with those filters returns
        (``Filters()``: no deleted, retracted or superseded notes).
        """
        names = [clean_argument(symbol, "symbol")] if symbol is not None else None
        if symbols is not None:
            names = [*(names or []), *symbols]
        uid = self.brain.get(note).id if note is not None else None
        found = self.code.anchors(qualified_names=names, doc_uid=uid, path=path, visible=visible)
        return [AnchorInfo.of(a) for a in found]

    def stale_anchors(self) -> list[AnchorInfo]:
        """Anchors whose symbol changed text or disappeared since the note was anchored."""
        return [AnchorInfo.of(a) for a in self.code.anchors() if a.state != "ok"]

    def refresh_anchor(self, note: str, symbol: str) -> AnchorInfo:
        """A person checked the note against the new code: accept the current symbol text."""
        return self.anchor(note, symbol)


def clean_argument(value: object, what: str) -> str:
    """A name or query a front end passed, stripped; InvalidInputError when it is empty or
    over 1000 characters."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} is empty")
    if len(value) > 1000:
        raise InvalidInputError(f"{what} is over 1000 characters")
    return value.strip()


def _names(rec: SymbolRecord, ref: str) -> bool:
    """Whether ``rec`` is named exactly by ``ref`` (not merely containing it)."""
    local = rec.qualified_name.split("::", 1)[1]
    if "." in ref:
        return local == ref or local.endswith("." + ref)
    return rec.name == ref
