"""Team mode: the workspace's shared name, the person writing, and `TeamStore`, which puts
a team's PostgreSQL store (what people write) and the clone's local store (the code index)
behind one interface.

Every clone of a repository must find the same workspace in the team's database, and the
folder's path (the local store's id) differs from machine to machine: the name comes from
`storage.workspace`, else the repository's `origin` remote (normalised: no scheme, user or
`.git`), else the local id. The person comes from `user.name`, else git's `user.name`, else
the login name.
"""

from __future__ import annotations

import dataclasses
import getpass
import re
import subprocess
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..filters import Filters
from . import _readers
from .anchors import with_commits
from .rows import (
    BM25_WEIGHTS,
    AnchorRow,
    AnchorView,
    AuditRow,
    ChunkRow,
    DocumentRow,
    FileWeight,
    Hit,
    LexicalKind,
    Operator,
    PendingChunk,
    ProposalRow,
    Tombstone,
    merge_hits,
)
from .spaces import Space
from .sqlite.code import CodeStore

if TYPE_CHECKING:
    from .postgres.store import PostgresStore
    from .routes import RouteRecord, StoredFact
    from .sqlite.store import SqliteStore

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(.+)$")
#: Document kinds kept with the clone (`TeamStore.local`), not in the team's store.
_PER_CLONE = frozenset({"code", "commit"})


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip()
    return value if out.returncode == 0 and value else None


def normalise_remote(url: str) -> str:
    """``git@github.com:org/repo.git`` and ``https://user@github.com/org/repo`` alike become
    ``github.com/org/repo``."""
    text = url.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
        text = text.split("@", 1)[1] if "@" in text.split("/", 1)[0] else text
    else:
        found = _SCP_LIKE.match(text)
        if found:
            text = f"{found.group(1)}/{found.group(2)}"
    text = text.rstrip("/")
    if text.endswith(".git"):
        text = text[:-4]
    return text.lower()


def team_workspace(configured: str | None, root: Path, local_id: str) -> str:
    if configured:
        return configured
    remote = _git(root, "config", "--get", "remote.origin.url")
    return normalise_remote(remote) if remote else local_id


def person(configured: str | None, root: Path) -> str:
    if configured:
        return configured
    found = _git(root, "config", "--get", "user.name")
    if found:
        return found
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


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
    """

    def __init__(self, team: PostgresStore, local: SqliteStore) -> None:
        self.team = team
        self.local = local
        self.workspace_id = team.workspace_id
        self.path = local.path
        self.dialect = team.dialect
        self.knn_filters_in_scan = team.knn_filters_in_scan
        self.keeps_history = True  # in `local` (store/history.py)
        self._lock = threading.RLock()
        self._depth = 0
        self._stack: ExitStack | None = None
        self._team_open = False

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

    def checkpoint(self) -> None:
        self.local.checkpoint()

    def schema_version(self) -> int:
        return self.team.schema_version()

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

    # -- routing ------------------------------------------------------------------------------

    def _by_id(self, doc_id: int) -> tuple[Any, int]:
        if doc_id < 0:
            return self.local, -doc_id
        return self.team_for_write(), doc_id

    def _by_uid(self, uid: str) -> Any:
        if self.team.find_current(uid) is not None or self.local.find_current(uid) is None:
            return self.team_for_write()
        return self.local

    def _stores(self, kinds: Sequence[str]) -> list[tuple[Any, int]]:
        """(store, id sign) of the stores documents of these kinds may be in."""
        out: list[tuple[Any, int]] = []
        if not kinds or any(k not in _PER_CLONE for k in kinds):
            out.append((self.team, 1))
        # the code index and history of this clone, when there is one: asking an empty one
        # cost a team store's search 2.5 ms (its lexical leg, feedback words and counts)
        per_clone = not kinds or any(k in _PER_CLONE for k in kinds)
        if per_clone and self.local.holds_documents():
            out.append((self.local, -1))
        return out

    def _space(self, space: Space) -> tuple[Any, int]:
        return (self.local, -1) if space == "code" else (self.team, 1)

    # -- meta -----------------------------------------------------------------------------

    def meta_get(self, key: str) -> str | None:
        return self.team.meta_get(key)

    def meta_set(self, key: str, value: str) -> None:
        self.team_for_write().meta_set(key, value)

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
        return found or [_doc(d) for d in self.local.versions(uid)]  # type: ignore[misc]

    def get_many(
        self, doc_ids: Iterable[int], *, content: bool = True, as_of: float | None = None
    ) -> dict[int, DocumentRow]:
        ids = list(doc_ids)
        out = self.team.get_many([i for i in ids if i > 0], content=content, as_of=as_of)
        local = self.local.get_many([-i for i in ids if i < 0], content=content, as_of=as_of)
        out.update({-k: _doc(v) for k, v in local.items()})  # type: ignore[misc]
        return out

    def list_documents(
        self, filters: Filters, *, limit: int = 50, offset: int = 0, order: str = "updated"
    ) -> list[DocumentRow]:
        stores = self._stores(filters.kinds)
        if len(stores) == 1:
            store, sign = stores[0]
            rows = store.list_documents(filters, limit=limit, offset=offset, order=order)
            return [_doc(r, sign) for r in rows]  # type: ignore[misc]
        rows = [
            _doc(r, sign)
            for store, sign in stores
            for r in store.list_documents(filters, limit=limit + offset, order=order)
        ]
        key = {
            "updated": lambda d: (d.updated_at, d.id),
            "created": lambda d: (d.created_at, d.id),
            "accessed": lambda d: (d.access_count, d.last_accessed_at or 0.0, d.id),
        }[order]
        found = [r for r in rows if r is not None]
        found.sort(key=key, reverse=True)
        return found[offset : offset + limit]

    def insert_document(self, **fields: Any) -> int:
        if fields.get("kind") in _PER_CLONE:
            return -self.local.insert_document(**fields)
        return self.team_for_write().insert_document(**fields)

    def update_metadata(self, doc_id: int, metadata: dict[str, Any]) -> None:
        store, own = self._by_id(doc_id)
        store.update_metadata(own, metadata)

    def close_version(self, doc_id: int, at: float) -> None:
        store, own = self._by_id(doc_id)
        store.close_version(own, at)

    def set_status(
        self, uid: str, status: str, at: float, *, actor: str, superseded_by: str | None = None
    ) -> None:
        self._by_uid(uid).set_status(uid, status, at, actor=actor, superseded_by=superseded_by)

    def set_pinned(self, uid: str, pinned: bool) -> None:
        self._by_uid(uid).set_pinned(uid, pinned)

    def track_access(self, uids: Sequence[str], at: float) -> None:
        self.team.track_access(uids, at)
        self.local.track_access(uids, at)

    def delete_document(self, uid: str) -> None:
        self._by_uid(uid).delete_document(uid)

    def copy_tags(self, from_doc: int, to_doc: int) -> None:
        store, own = self._by_id(to_doc)
        store.copy_tags(abs(from_doc), own)

    def add_tags(self, doc_id: int, tags: Iterable[str]) -> None:
        store, own = self._by_id(doc_id)
        store.add_tags(own, tags)

    def tags(self, filters: Filters) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for store, _ in self._stores(filters.kinds):
            for tag, n in store.tags(filters):
                counts[tag] = counts.get(tag, 0) + n
        return sorted(counts.items(), key=lambda t: (-t[1], t[0]))

    def eviction_candidates(self, **options: Any) -> list[DocumentRow]:
        return self.team.eviction_candidates(**options)

    def logical_size(self) -> int:
        return self.team.logical_size()

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
        counted = sum(int(s.count_documents(filters, cap)) for s, _ in self._stores(filters.kinds))
        return min(cap, counted)

    # -- chunks ---------------------------------------------------------------------------------

    def replace_chunks(self, doc_id: int, chunks: Sequence[ChunkRow]) -> None:
        store, own = self._by_id(doc_id)
        store.replace_chunks(own, chunks)

    def chunks_of(self, doc_id: int) -> list[tuple[int, ChunkRow]]:
        store, own = self._by_id(doc_id)
        sign = -1 if doc_id < 0 else 1
        return [(sign * i, c) for i, c in store.chunks_of(own)]

    def chunk_texts(self, chunk_ids: Iterable[int]) -> dict[int, tuple[str, int, int]]:
        ids = list(chunk_ids)
        out = self.team.chunk_texts([i for i in ids if i > 0])
        out.update({-k: v for k, v in self.local.chunk_texts([-i for i in ids if i < 0]).items()})
        return out

    def first_chunks(self, doc_ids: Sequence[int]) -> dict[int, int]:
        out = self.team.first_chunks([i for i in doc_ids if i > 0])
        local = self.local.first_chunks([-i for i in doc_ids if i < 0])
        out.update({-k: -v for k, v in local.items()})
        return out

    def chunk_texts_of_first(self, doc_ids: Sequence[int]) -> dict[int, str]:
        out = self.team.chunk_texts_of_first([i for i in doc_ids if i > 0])
        local = self.local.chunk_texts_of_first([-i for i in doc_ids if i < 0])
        out.update({-k: v for k, v in local.items()})
        return out

    def thread_neighbours(
        self, doc_ids: Sequence[int], filters: Filters, window: int
    ) -> list[tuple[int, int, int]]:
        return self.team.thread_neighbours([i for i in doc_ids if i > 0], filters, window)

    # -- tombstones and the audit log ---------------------------------------------------------

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

    def audit(self, **fields: Any) -> None:
        self.team_for_write().audit(**fields)

    def audit_rows(self, *, uid: str | None = None, limit: int = 50) -> list[AuditRow]:
        return self.team.audit_rows(uid=uid, limit=limit)

    def prune_audit(self, before: float, **options: Any) -> int:
        return self.team.prune_audit(before, **options)

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
        return merge_hits(every[:limit], anyone, limit), min(len(every), limit)

    def term_counts(self, words: Sequence[str]) -> tuple[dict[str, int], int]:
        counts, total = self.team.term_counts(words)
        if not self.local.holds_documents():
            return counts, total
        local, more = self.local.term_counts(words)
        return {w: n + local.get(w, 0) for w, n in counts.items()}, total + more

    # -- vectors ------------------------------------------------------------------------------

    def vector_model(self, space: Space = "text") -> tuple[str, int] | None:
        model: tuple[str, int] | None = self._space(space)[0].vector_model(space)
        return model

    def reset_vectors(self, model: str, dim: int, *, space: Space = "text", **options: Any) -> None:
        self._space(space)[0].reset_vectors(model, dim, space=space, **options)

    def pending_chunks(self, limit: int, space: Space = "text") -> list[PendingChunk]:
        store, sign = self._space(space)
        return [_pending(p, sign) for p in store.pending_chunks(limit, space)]

    def pending_count(self, space: Space | None = None) -> int:
        if space is None:
            return self.team.pending_count("text") + self.local.pending_count("code")
        return int(self._space(space)[0].pending_count(space))

    def pending_of(self, doc_id: int) -> list[PendingChunk]:
        store, own = self._by_id(doc_id)
        sign = -1 if doc_id < 0 else 1
        return [_pending(p, sign) for p in store.pending_of(own)]

    def copy_vectors(self, from_doc: int, to_doc: int) -> int:
        store, own = self._by_id(to_doc)
        return int(store.copy_vectors(abs(from_doc), own))

    def store_vectors(self, items: Sequence[tuple[int, int, Any]], *, space: Space = "text") -> int:
        team = [(c, d, v) for c, d, v in items if d > 0]
        local = [(-c, -d, v) for c, d, v in items if d < 0]
        stored = self.team.store_vectors(team, space=space) if team else 0
        return stored + (self.local.store_vectors(local, space=space) if local else 0)

    def knn(self, query: Any, k: int, *, space: Space = "text", filters: Filters) -> list[Any]:
        store, sign = self._space(space)
        return [(sign * c, d) for c, d in store.knn(query, k, space=space, filters=filters)]

    def vectors(self, chunk_ids: Sequence[int], filters: Filters) -> tuple[Any, Any, Any]:
        local = [-c for c in chunk_ids if c < 0]
        team = [c for c in chunk_ids if c > 0]
        if local and not team:
            ids, docs, matrix = self.local.vectors(local, filters)
            return [-i for i in ids], [-d for d in docs], matrix
        return self.team.vectors(team, filters)

    def filtered_vectors(self, filters: Filters, limit: int, *, space: Space = "text") -> Any:
        store, sign = self._space(space)
        ids, docs, matrix = store.filtered_vectors(filters, limit, space=space)
        return [sign * i for i in ids], [sign * d for d in docs], matrix

    def nearest_vectors(
        self, query: Any, filters: Filters, k: int, *, space: Space = "text", cap: int
    ) -> Any:
        store, sign = self._space(space)
        ids, docs, matrix = store.nearest_vectors(query, filters, k, space=space, cap=cap)
        return [sign * i for i in ids], [sign * d for d in docs], matrix

    def vector_counts(self) -> dict[str, Any]:
        return {
            "text": self.team.vector_counts()["text"],
            "code": self.local.vector_counts()["code"],
        }

    def vectors_by_chunk(self, chunk_ids: Sequence[int]) -> dict[int, Any]:
        out = self.team.vectors_by_chunk([c for c in chunk_ids if c > 0])
        out.update(
            {
                -k: v
                for k, v in self.local.vectors_by_chunk([-c for c in chunk_ids if c < 0]).items()
            }
        )
        return out

    # -- routes (the code index's: local) and consolidation (about notes: the team's) ----------

    def replace_route_facts(self, path: str, facts: Sequence[Any]) -> None:
        self.local.replace_route_facts(path, facts)

    def replace_routes(self, routes: Sequence[Any]) -> None:
        self.local.replace_routes(routes)

    def route_fact_count(self) -> int:
        return self.local.route_fact_count()

    def route_facts(self) -> list[StoredFact]:
        return self.local.route_facts()

    def list_routes(self, **options: Any) -> list[RouteRecord]:
        return self.local.list_routes(**options)

    def routes_of_handlers(self, handlers: Sequence[str]) -> list[RouteRecord]:
        return self.local.routes_of_handlers(handlers)

    def add_proposal(self, **fields: Any) -> int | None:
        return self.team_for_write().add_proposal(**fields)

    def proposed_clusters(self) -> set[str]:
        return self.team.proposed_clusters()

    def proposals(
        self, *, statuses: Sequence[str] = ("pending",), limit: int = 1000
    ) -> list[ProposalRow]:
        return self.team.proposals(statuses=statuses, limit=limit)

    def proposal(self, proposal_id: int) -> ProposalRow | None:
        return self.team.proposal(proposal_id)

    def decide_proposal(self, proposal_id: int, status: str, **fields: Any) -> None:
        self.team_for_write().decide_proposal(proposal_id, status, **fields)

    def note_texts(self, doc_ids: Sequence[int]) -> dict[int, str]:
        out = self.team.note_texts([i for i in doc_ids if i > 0])
        local = self.local.note_texts([-i for i in doc_ids if i < 0])
        out.update({-k: v for k, v in local.items()})
        return out

    def anchors_by_note(self) -> dict[str, set[str]]:
        return self.team.anchors_by_note()

    # -- anchors: with the notes (the team's), their symbols in this clone's code index ------

    def add_anchor(
        self, doc_uid: str, path: str, qualified_name: str, sha256: str, now: float
    ) -> None:
        self.team_for_write().add_anchor(doc_uid, path, qualified_name, sha256, now)

    def remove_anchor(self, doc_uid: str, qualified_name: str) -> bool:
        return self.team_for_write().remove_anchor(doc_uid, qualified_name)

    def anchor_rows(self, **options: Any) -> list[AnchorRow]:
        return self.team.anchor_rows(**options)

    # -- views and health ----------------------------------------------------------------------

    def time_span(self, filters: Filters) -> tuple[float, float] | None:
        return self.team.time_span(filters)

    def timeline_buckets(self, filters: Filters, origin: float, width: float) -> list[Any]:
        return self.team.timeline_buckets(filters, origin, width)

    def timeline_points(self, filters: Filters, limit: int) -> list[Any]:
        return self.team.timeline_points(filters, limit)

    def successors_of(self, uids: list[str]) -> dict[str, tuple[str, str]]:
        return self.team.successors_of(uids)

    def superseded_by_this(self, uid: str) -> list[tuple[str, str, str]]:
        return self.team.superseded_by_this(uid)

    def commit_counts(self) -> dict[str, int]:
        return self.local.commit_counts()  # the history is this clone's

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

    def integrity_problems(self, limit: int = 10) -> list[str]:
        return self.local.integrity_problems(limit)

    def fulltext_problems(self) -> dict[str, str]:
        return self.local.fulltext_problems()

    def rebuild_fulltext(self) -> None:
        self.local.rebuild_fulltext()

    def integrity_orphans(self) -> dict[str, int]:
        a, b = self.team.integrity_orphans(), self.local.integrity_orphans()
        return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}


def _doc(row: DocumentRow | None, sign: int = -1) -> DocumentRow | None:
    if row is None or sign > 0:
        return row
    return dataclasses.replace(row, id=-row.id)


def _pending(chunk: PendingChunk, sign: int) -> PendingChunk:
    if sign > 0:
        return chunk
    return dataclasses.replace(chunk, id=-chunk.id, doc_id=-chunk.doc_id)
