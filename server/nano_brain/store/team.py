"""Team mode: `TeamStore`, which puts a team's PostgreSQL store (what people write) and the
clone's local store (the code index) behind one interface. The workspace's shared name and
the person writing are `identity`'s (re-exported here).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from ..filters import Filters
from . import _readers
from .anchors import with_commits
from .delegation import PER_CLONE, Route, RouteByDoc, RouteByUid, RouteInsert, Target
from .identity import normalise_remote, person, team_workspace
from .postgres.store import PostgresStore
from .rows import (
    BM25_WEIGHTS,
    AnchorView,
    ChunkRow,
    DocumentRow,
    FileWeight,
    Hit,
    LexicalKind,
    Operator,
    PendingChunk,
    Tombstone,
    every_then_any,
)
from .spaces import Space
from .sqlite.code import CodeStore
from .sqlite.store import SqliteStore

if TYPE_CHECKING:
    import numpy as np


_V = TypeVar("_V")
#: One of the two stores.
Store = SqliteStore | PostgresStore


class TeamStore:
    """Team mode: the memory people write (notes, sessions, anchors, tombstones,
    consolidation proposals, the audit log) in the team's PostgreSQL store, what is per clone
    (its code index and its git history: commits, their links to symbols and files, what
    the history index knows of itself) in a SQLite file of its own
    (`store.code_index_path`: it holds nothing else, so notes a local store had before the
    switch never show beside the team's); one `MemoryStore` over both.

    Rows of the local store carry negative ids here (documents, chunks), so ids stay unique
    and every call that takes one goes to the store that holds it. Searches that may match
    code ask both stores and merge their hits by score (both score with BM25; each vector
    space lives in one store). A transaction holds the local store's from its start and the
    team store's from its first write there, and commits both.

    A capability that is one store's is routed to it by the table of `delegation.Route`s below
    (typed by that store's own method); the rest merge what both stores answer.
    """

    def __init__(self, team: PostgresStore, local: SqliteStore) -> None:
        self.team = team
        self.local = local
        self.workspace_id = team.workspace_id
        self.path = local.path
        self.dialect = team.dialect
        self.knn_filters_in_scan = team.knn_filters_in_scan
        self.keeps_history = True  # in `local` (store/commits.py)
        self._lock = threading.RLock()
        self._depth = 0
        self._stack: ExitStack | None = None
        self._team_open = False

    # -- routing: which store answers ---------------------------------------------------------

    # what people wrote, read from the team's store
    schema_version = Route("team", PostgresStore.schema_version)
    meta_get = Route("team", PostgresStore.meta_get)
    eviction_candidates = Route("team", PostgresStore.eviction_candidates)
    logical_size = Route("team", PostgresStore.logical_size)
    audit_rows = Route("team", PostgresStore.audit_rows)
    prune_audit = Route("team", PostgresStore.prune_audit)
    proposed_clusters = Route("team", PostgresStore.proposed_clusters)
    proposals = Route("team", PostgresStore.proposals)
    proposal = Route("team", PostgresStore.proposal)
    anchors_by_note = Route("team", PostgresStore.anchors_by_note)
    anchor_rows = Route("team", PostgresStore.anchor_rows)
    time_span = Route("team", PostgresStore.time_span)
    timeline_buckets = Route("team", PostgresStore.timeline_buckets)
    timeline_points = Route("team", PostgresStore.timeline_points)
    successors_of = Route("team", PostgresStore.successors_of)
    superseded_by_this = Route("team", PostgresStore.superseded_by_this)
    # ... and written there, inside this transaction
    meta_set = Route("write", PostgresStore.meta_set)
    audit = Route("write", PostgresStore.audit)
    add_proposal = Route("write", PostgresStore.add_proposal)
    decide_proposal = Route("write", PostgresStore.decide_proposal)
    add_anchor = Route("write", PostgresStore.add_anchor)
    remove_anchor = Route("write", PostgresStore.remove_anchor)
    # what is per clone: its code index's routes, its git history, its file's health
    checkpoint = Route("local", SqliteStore.checkpoint)
    prioritize_pending = Route("local", SqliteStore.prioritize_pending)
    replace_route_facts = Route("local", SqliteStore.replace_route_facts)
    replace_routes = Route("local", SqliteStore.replace_routes)
    route_fact_count = Route("local", SqliteStore.route_fact_count)
    route_facts = Route("local", SqliteStore.route_facts)
    list_routes = Route("local", SqliteStore.list_routes)
    routes_of_handlers = Route("local", SqliteStore.routes_of_handlers)
    commit_counts = Route("local", SqliteStore.commit_counts)
    integrity_problems = Route("local", SqliteStore.integrity_problems)
    fulltext_problems = Route("local", SqliteStore.fulltext_problems)
    rebuild_fulltext = Route("local", SqliteStore.rebuild_fulltext)
    # a document's rows, in the store holding it (by id: negative ids are the clone's)
    update_metadata = RouteByDoc(SqliteStore.update_metadata)
    close_version = RouteByDoc(SqliteStore.close_version)
    replace_chunks = RouteByDoc(SqliteStore.replace_chunks)
    add_tags = RouteByDoc(SqliteStore.add_tags)
    # ... (by uid: the team's unless only the clone has it)
    set_status = RouteByUid(SqliteStore.set_status)
    set_pinned = RouteByUid(SqliteStore.set_pinned)
    delete_document = RouteByUid(SqliteStore.delete_document)
    # a new document: per-clone kinds in the clone's store, the rest in the team's
    insert_document = RouteInsert(SqliteStore.insert_document)

    # -- connection and transactions ------------------------------------------------------

    @property
    def location(self) -> str:
        return self.team.location

    @property
    def read_only(self) -> bool:
        return self.team.read_only

    def close(self) -> None:
        try:
            self.team.close()
        finally:
            self.local.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            with ExitStack() as stack:
                stack.enter_context(self.local.transaction())
                self._stack, self._depth, self._team_open = stack, 1, False
                try:
                    yield
                finally:
                    self._stack, self._depth, self._team_open = None, 0, False

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads by this thread in the block run on reader connections of both stores."""
        with self.team.reading(), self.local.reading():
            yield

    def concurrent_reads(self) -> bool:
        """Whether other threads may read for this one now: not inside its transaction."""
        return not _readers.owns_transaction(self) and self.local.concurrent_reads()

    def team_for_write(self) -> PostgresStore:
        """The team store, inside this transaction's team transaction when one is open."""
        with self._lock:
            if self._stack is not None and not self._team_open:
                self._stack.enter_context(self.team.transaction())
                self._team_open = True
        return self.team

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """SQL on the team store (what people wrote); the code index's is `local`'s."""
        return self.team_for_write()._rows(sql, params)

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.team_for_write()._exec(sql, params)

    def _predicate(self, filters: Filters) -> tuple[str, list[Any]]:
        return self.team._predicate(filters)

    def _target(self, to: Target) -> Store:
        """The store a routed capability goes to (see `delegation.Route`)."""
        if to == "team":
            return self.team
        return self.team_for_write() if to == "write" else self.local

    def _by_id(self, doc_id: int) -> tuple[Store, int]:
        """The store holding a document's rows, and the document's id there."""
        if doc_id < 0:
            return self.local, -doc_id
        return self.team_for_write(), doc_id

    def _by_uid(self, uid: str) -> Store:
        """The store holding a document: the team's, unless only the clone's has it."""
        if self.team.find_current(uid) is not None or self.local.find_current(uid) is None:
            return self.team_for_write()
        return self.local

    def _stores(self, kinds: Sequence[str]) -> list[tuple[Store, int]]:
        """(store, id sign) of the stores documents of these kinds may be in."""
        out: list[tuple[Store, int]] = []
        if not kinds or any(k not in PER_CLONE for k in kinds):
            out.append((self.team, 1))
        # the code index and history of this clone, when there is one: asking an empty one
        # cost a team store's search 2.5 ms (its lexical leg, feedback words and counts)
        per_clone = not kinds or any(k in PER_CLONE for k in kinds)
        if per_clone and self.local.holds_documents():
            out.append((self.local, -1))
        return out

    def _split(
        self, ids: Iterable[int], read: Callable[[Store, list[int]], dict[int, _V]]
    ) -> dict[int, _V]:
        """`read` of the team's ids and of the clone's (negative here), keyed as here."""
        wanted = list(ids)
        out = read(self.team, [i for i in wanted if i > 0])
        out.update({-k: v for k, v in read(self.local, [-i for i in wanted if i < 0]).items()})
        return out

    # -- documents ------------------------------------------------------------------------

    def find_by_source(self, source_path: str) -> DocumentRow | None:
        found = self.team.find_by_source(source_path)
        return found if found is not None else _doc(self.local.find_by_source(source_path))

    def find_by_hash(self, collection: str, content_hash: str) -> DocumentRow | None:
        found = self.team.find_by_hash(collection, content_hash)
        if found is None:
            found = _doc(self.local.find_by_hash(collection, content_hash))
        return found

    def find_current(self, uid: str, *, as_of: float | None = None) -> DocumentRow | None:
        found = self.team.find_current(uid, as_of=as_of)
        return found if found is not None else _doc(self.local.find_current(uid, as_of=as_of))

    def get_by_id(self, doc_id: int) -> DocumentRow | None:
        if doc_id < 0:
            return _doc(self.local.get_by_id(-doc_id))
        return self.team.get_by_id(doc_id)

    def versions(self, uid: str) -> list[DocumentRow]:
        found = self.team.versions(uid)
        return found or [_own_doc(d) for d in self.local.versions(uid)]

    def get_many(
        self, doc_ids: Iterable[int], *, content: bool = True, as_of: float | None = None
    ) -> dict[int, DocumentRow]:
        return self._split(
            doc_ids,
            lambda store, ids: {
                k: _own_doc(v, 1 if store is self.team else -1)
                for k, v in store.get_many(ids, content=content, as_of=as_of).items()
            },
        )

    def list_documents(
        self, filters: Filters, *, limit: int = 50, offset: int = 0, order: str = "updated"
    ) -> list[DocumentRow]:
        stores = self._stores(filters.kinds)
        if len(stores) == 1:
            store, sign = stores[0]
            rows = store.list_documents(filters, limit=limit, offset=offset, order=order)
            return [_own_doc(r, sign) for r in rows]
        found = [
            _own_doc(r, sign)
            for store, sign in stores
            for r in store.list_documents(filters, limit=limit + offset, order=order)
        ]
        key: dict[str, Callable[[DocumentRow], tuple[float, ...]]] = {
            "updated": lambda d: (d.updated_at, d.id),
            "created": lambda d: (d.created_at, d.id),
            "accessed": lambda d: (d.access_count, d.last_accessed_at or 0.0, d.id),
        }
        found.sort(key=key[order], reverse=True)
        return found[offset : offset + limit]

    def track_access(self, uids: Sequence[str], at: float) -> None:
        self.team.track_access(uids, at)
        self.local.track_access(uids, at)

    def copy_tags(self, from_doc: int, to_doc: int) -> None:
        store, own = self._by_id(to_doc)
        store.copy_tags(abs(from_doc), own)

    def tags(self, filters: Filters) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for store, _ in self._stores(filters.kinds):
            for tag, n in store.tags(filters):
                counts[tag] = counts.get(tag, 0) + n
        return sorted(counts.items(), key=lambda t: (-t[1], t[0]))

    def file_size(self) -> int:
        return self.team.logical_size() + self.local.file_size()

    def counts(self) -> dict[str, Any]:
        a, b = self.team.counts(), self.local.counts()
        merged: dict[str, Any] = {}
        for key, value in a.items():
            if isinstance(value, dict):
                both = dict(value)
                for k, n in b[key].items():
                    both[k] = both.get(k, 0) + n
                merged[key] = both
            else:
                merged[key] = value + b[key]
        return merged

    def count_documents(self, filters: Filters, cap: int) -> int:
        counted = sum(s.count_documents(filters, cap) for s, _ in self._stores(filters.kinds))
        return min(cap, counted)

    # -- chunks ---------------------------------------------------------------------------------

    def chunks_of(self, doc_id: int) -> list[tuple[int, ChunkRow]]:
        store, own = self._by_id(doc_id)
        sign = -1 if doc_id < 0 else 1
        return [(sign * i, c) for i, c in store.chunks_of(own)]

    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, tuple[str, int, int]]:
        return self._split(chunk_ids, lambda store, ids: store.chunk_texts(ids))

    def vectorless(self, chunk_ids: Iterable[int]) -> set[int]:
        return set(self._split(chunk_ids, lambda store, ids: dict.fromkeys(store.vectorless(ids))))

    def first_chunks(self, doc_ids: Sequence[int]) -> dict[int, int]:
        return self._split(
            doc_ids,
            lambda store, ids: {
                k: v if store is self.team else -v for k, v in store.first_chunks(ids).items()
            },
        )

    def chunk_texts_of_first(self, doc_ids: Sequence[int]) -> dict[int, str]:
        return self._split(doc_ids, lambda store, ids: store.chunk_texts_of_first(ids))

    def note_texts(self, doc_ids: Sequence[int]) -> dict[int, str]:
        return self._split(doc_ids, lambda store, ids: store.note_texts(ids))

    def thread_neighbours(
        self, doc_ids: Sequence[int], filters: Filters, window: int
    ) -> list[tuple[int, int, int]]:
        return self.team.thread_neighbours([i for i in doc_ids if i > 0], filters, window)

    # -- tombstones ---------------------------------------------------------------------------

    def add_tombstone(
        self, source: str, uid: str | None, title: str | None, at: float, actor: str
    ) -> None:
        store = self._by_uid(uid) if uid else self.team_for_write()
        store.add_tombstone(source, uid, title, at, actor)

    def remove_tombstone(self, source: str) -> bool:
        removed = self.team_for_write().remove_tombstone(source)
        return self.local.remove_tombstone(source) or removed

    def tombstone(self, source: str) -> Tombstone | None:
        found = self.team.tombstone(source)
        return found if found is not None else self.local.tombstone(source)

    def tombstones(self) -> list[Tombstone]:
        both = self.team.tombstones() + self.local.tombstones()
        return sorted(both, key=lambda t: t.created_at, reverse=True)

    # -- search legs ------------------------------------------------------------------------------

    def lexical(
        self,
        terms: Sequence[str],
        op: Operator,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
        *,
        kind: LexicalKind = "words",
    ) -> list[Hit]:
        hits = [
            Hit(sign * h.chunk_id, sign * h.doc_id, h.score)
            for store, sign in self._stores(filters.kinds)
            for h in store.lexical(terms, op, filters, limit, weights, kind=kind)
        ]
        hits.sort(key=lambda h: h.score)
        return hits[:limit]

    def lexical_terms(
        self,
        terms: Sequence[str],
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
    ) -> tuple[list[Hit], int]:
        every: list[Hit] = []
        anyone: list[Hit] = []
        for store, sign in self._stores(filters.kinds):
            hits, n = store.lexical_terms(terms, filters, limit, weights)
            signed = [Hit(sign * h.chunk_id, sign * h.doc_id, h.score) for h in hits]
            every += signed[:n]
            anyone += signed[n:]
        every.sort(key=lambda h: h.score)
        anyone.sort(key=lambda h: h.score)
        return every_then_any(every, anyone, limit)

    def term_counts(self, words: Sequence[str]) -> tuple[dict[str, int], int]:
        counts, total = self.team.term_counts(words)
        if not self.local.holds_documents():
            return counts, total
        local, more = self.local.term_counts(words)
        return {w: n + local.get(w, 0) for w, n in counts.items()}, total + more

    # -- vectors: code in the clone's store; text in both ---------------------------------------

    # The text space is the team's notes and sessions, and the clone's commit messages (its
    # history lives beside its code index). Both use the model the team's store records: the
    # clone's text vectors follow it (see `_local_text`). Searches ask both and hand every
    # candidate to the exact rescoring, so two stores' approximate distances never compete.

    def _holding(self, space: Space, filters: Filters | None = None) -> list[tuple[Store, int]]:
        """(store, id sign) of the stores holding a space's vectors (that ``filters`` may
        want: the clone's text is its commits)."""
        if space == "code":
            return [(self.local, -1)]
        if filters is not None and "commit" not in filters.allowed_kinds():
            return [(self.team, 1)]
        return [(self.team, 1), (self.local, -1)]

    def _local_text(self) -> tuple[str, int] | None:
        """The team's text model, the clone's text vectors moved onto it first if they were
        made by another (or none was recorded here)."""
        model = self.team.vector_model("text")
        if model is None or self.local.read_only:
            return model
        here = self.local.vector_model("text")
        if here != model:
            # none yet: a process beside this one may be recording it too
            self.local.reset_vectors(*model, space="text", only_if_absent=here is None)
        return model

    def vector_model(self, space: Space = "text") -> tuple[str, int] | None:
        if space == "code":
            return self.local.vector_model("code")
        return self._local_text()

    def reset_vectors(
        self, model: str, dim: int, *, space: Space = "text", only_if_absent: bool = False
    ) -> None:
        if space == "code":
            self.local.reset_vectors(model, dim, space=space, only_if_absent=only_if_absent)
            return
        self.team.reset_vectors(model, dim, space=space, only_if_absent=only_if_absent)
        self._local_text()

    def pending_chunks(
        self, limit: int, space: Space = "text", *, max_priority: int | None = None
    ) -> list[PendingChunk]:
        out: list[PendingChunk] = []
        for store, sign in self._holding(space):  # the team's notes before the clone's commits
            if len(out) < limit:
                chunks = store.pending_chunks(limit - len(out), space, max_priority=max_priority)
                out += [_pending(p, sign) for p in chunks]
        return out

    def pending_count(self, space: Space | None = None) -> int:
        if space is None:
            return self.team.pending_count("text") + self.local.pending_count()
        return sum(store.pending_count(space) for store, _ in self._holding(space))

    def pending_tiers(self) -> dict[int, int]:
        tiers = self.local.pending_tiers()
        for tier, waiting in self.team.pending_tiers().items():
            tiers[tier] = tiers.get(tier, 0) + waiting
        return tiers

    def set_test_vectors(self, wanted: bool) -> int:
        return self.local.set_test_vectors(wanted)

    def pending_of(self, doc_id: int) -> list[PendingChunk]:
        store, own = self._by_id(doc_id)
        return [_pending(p, -1 if doc_id < 0 else 1) for p in store.pending_of(own)]

    def copy_vectors(self, from_doc: int, to_doc: int) -> int:
        store, own = self._by_id(to_doc)
        return store.copy_vectors(abs(from_doc), own)

    def store_vectors(
        self, items: Sequence[tuple[int, int, np.ndarray]], *, space: Space = "text"
    ) -> int:
        team = [(c, d, v) for c, d, v in items if d > 0]
        local = [(-c, -d, v) for c, d, v in items if d < 0]
        if local and space == "text":
            self._local_text()
        stored = self.team.store_vectors(team, space=space) if team else 0
        return stored + (self.local.store_vectors(local, space=space) if local else 0)

    def knn(
        self, query: np.ndarray, k: int, *, space: Space = "text", filters: Filters
    ) -> list[tuple[int, float]]:
        """Up to ``k`` neighbours from each store holding the space (the caller rescores)."""
        out: list[tuple[int, float]] = []
        for store, sign in self._holding(space, filters):
            out += [(sign * c, d) for c, d in store.knn(query, k, space=space, filters=filters)]
        return out

    def vectors(
        self, chunk_ids: Sequence[int], filters: Filters
    ) -> tuple[list[int], list[int], np.ndarray]:
        team = self.team.vectors([c for c in chunk_ids if c > 0], filters)
        local = [-c for c in chunk_ids if c < 0]
        if not local:
            return team
        return _joined([team, _signed(self.local.vectors(local, filters), -1)])

    def filtered_vectors(
        self, filters: Filters, limit: int, *, space: Space = "text"
    ) -> tuple[list[int], list[int], np.ndarray]:
        return _joined(
            [
                _signed(store.filtered_vectors(filters, limit, space=space), sign)
                for store, sign in self._holding(space, filters)
            ]
        )

    def nearest_vectors(
        self, query: np.ndarray, filters: Filters, k: int, *, space: Space = "text", cap: int
    ) -> tuple[list[int], list[int], np.ndarray]:
        return _joined(
            [
                _signed(store.nearest_vectors(query, filters, k, space=space, cap=cap), sign)
                for store, sign in self._holding(space, filters)
            ]
        )

    def vector_counts(self) -> dict[str, Any]:
        local = self.local.vector_counts()
        return {"text": self.team.vector_counts()["text"] + local["text"], "code": local["code"]}

    def vectors_by_chunk(self, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        return self._split(chunk_ids, lambda store, ids: store.vectors_by_chunk(ids))

    # -- vectors shared by the team's clones (interface.SharedVectors) --------------------------

    def shares_vectors(self, doc_id: int) -> bool:
        """What the clone's store holds (its code, its commits: the same in every clone)
        reuses what other clones embedded; what people wrote is in the team's store already,
        embedded once by whoever wrote it."""
        return doc_id < 0

    def shared_vectors(
        self, model: str, dim: int, digests: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]:
        return self.team.shared_vectors(model, dim, digests)

    def share_vectors(self, model: str, dim: int, items: Sequence[tuple[bytes, np.ndarray]]) -> int:
        return self.team.share_vectors(model, dim, items)

    # -- anchors (the team's) with their symbols (this clone's), and health --------------------

    def anchor_weights(self, visible: Filters) -> list[FileWeight]:
        """Per file: visible notes anchored in it (team store), stale by this clone's code."""
        views = self.anchor_views(visible=visible, limit=1_000_000)
        per: dict[str, list[AnchorView]] = {}
        for view in views:
            per.setdefault(view.path, []).append(view)
        weights = {
            path: FileWeight(
                path,
                len({v.doc_uid for v in found}),
                len(found),
                sum(v.state != "ok" for v in found),
            )
            for path, found in per.items()
        }
        return with_commits(weights, self.commit_counts())

    def anchor_views(
        self,
        *,
        doc_uid: str | None = None,
        path: str | None = None,
        visible: Filters | None = None,
        limit: int = 500,
    ) -> list[AnchorView]:
        anchors = self.team.anchor_rows(doc_uid=doc_uid, path=path, visible=visible)
        symbols = CodeStore(self.local).symbols_now([a[4] for a in anchors])
        out = []
        for uid, title, status, where, qname, sha, _created in anchors:
            now = symbols.get(qname)
            state = "missing" if now is None else ("ok" if now[0] == sha else "changed")
            out.append(AnchorView(uid, title, status, where, qname, state,
                                  now[1] if now else None, now[2] if now else None))  # fmt: skip
        out.sort(key=lambda v: (v.path, v.start_line or 0, v.qualified_name))
        return out[:limit]

    def integrity_orphans(self) -> dict[str, int]:
        a, b = self.team.integrity_orphans(), self.local.integrity_orphans()
        return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}


def _doc(row: DocumentRow | None, sign: int = -1) -> DocumentRow | None:
    if row is None or sign > 0:
        return row
    return dataclasses.replace(row, id=-row.id)


def _own_doc(row: DocumentRow, sign: int = -1) -> DocumentRow:
    """A row of the store `sign` names, with its id as this store names it."""
    return row if sign > 0 else dataclasses.replace(row, id=-row.id)


def _pending(chunk: PendingChunk, sign: int) -> PendingChunk:
    if sign > 0:
        return chunk
    return dataclasses.replace(chunk, id=-chunk.id, doc_id=-chunk.doc_id)


def _signed(
    found: tuple[list[int], list[int], np.ndarray], sign: int
) -> tuple[list[int], list[int], np.ndarray]:
    """Chunk and document ids of vectors one store found, as this store names them."""
    ids, docs, matrix = found
    return [sign * i for i in ids], [sign * d for d in docs], matrix


def _joined(
    parts: list[tuple[list[int], list[int], np.ndarray]],
) -> tuple[list[int], list[int], np.ndarray]:
    """Vectors two stores found, as one (chunk ids, doc ids, matrix)."""
    import numpy as np

    found = [p for p in parts if p[0]]
    if len(found) <= 1:
        return found[0] if found else parts[0]
    ids = [i for p in found for i in p[0]]
    docs = [d for p in found for d in p[1]]
    return ids, docs, np.vstack([p[2] for p in found])


if TYPE_CHECKING:  # mypy checks the team store against the shared vectors' capability
    from .interface import SharedVectors

    _SHARES: type[SharedVectors] = TeamStore


__all__ = ["TeamStore", "normalise_remote", "person", "team_workspace"]
