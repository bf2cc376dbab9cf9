"""All SQL of the git history: commit documents, the symbols and files they changed, renames,
and the files harvested sessions edited (migration 10).

A commit is a document of kind ``commit`` in collection ``commits`` with ``source_path``
``git:<hash>``, inserted here in bulk (like the code index's symbol documents: thousands at a
time, no audit row each); its chunks are full-text indexed by the usual triggers and left for
the embedder. Every method that writes expects the caller's ``Store.transaction()``.

A clone's git history is per clone, like its code index, and lives where the code index
does: in team mode (`TeamStore`) in the clone's own SQLite file (`TeamStore.local`), never in
the team's PostgreSQL, which holds what people write; the ids this module hands out are then
the `TeamStore`'s (negative for the local store's rows), so every read through the
`TeamStore` finds the commits. A bare PostgreSQL store keeps no history: over one, every read
here finds nothing and the indexer does not run (`kept` is false).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ..filters import Filters
from .interface import MemoryStore, SqlStore
from .priority import COMMIT, LEXICAL_ONLY, PENDING
from .rows import DocumentRow

COMMIT_COLLECTION = "commits"
COMMIT_SOURCE_PREFIX = "git:"
#: What the audit log and `documents.author` name as the writer of commit documents.
COMMIT_AUTHOR = "git"


@dataclass(slots=True)
class CommitRows:
    """One commit as the indexer built it, ready to insert: its text already redacted."""

    hash: str
    seq: int
    uid: str
    title: str
    content: str
    content_hash: str
    metadata: dict[str, Any]
    authored_at: float
    committed_at: float
    chunks: list[tuple[int, str, str, int, int]]
    """(seq, body, heading, start line, end line)"""
    vector_chunks: int | None = None
    """How many leading chunks get a vector (the message's); the rest, the commit's record
    of hashes, author, date and files, are found by words only. None: every chunk."""
    tags: list[str] = field(default_factory=list)
    changes: list[tuple[str, str]] = field(default_factory=list)
    """(qualified name at this commit, added / modified / renamed / removed)"""
    renames: list[tuple[str, str, str]] = field(default_factory=list)
    """(old name, new name, file / symbol)"""
    files: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class CommitChange:
    """A commit that changed a symbol (under ``name``, its name then)."""

    doc_id: int
    hash: str
    seq: int
    committed_at: float
    name: str
    change: str


def commit_host(store: MemoryStore) -> tuple[MemoryStore | None, int]:
    """The SQLite store that keeps ``store``'s git history (None: none does), and the sign
    of its document ids as ``store`` names them: a team store keeps the history with the
    clone's code index (`local`), whose rows it numbers negative."""
    if not store.keeps_history:
        return None, 1
    local = store.local
    return local, 1 if local is store else -1


class CommitStore:
    """The history tables of one workspace's store; shares the Store's connection and lock
    (in team mode, the clone's local store's)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        host, self._sign = commit_host(store)
        self.kept = host is not None
        """Whether this store keeps the git history (a bare PostgreSQL store does not)."""
        # the SQL dialect's store under the interface (used only when `kept`)
        self._sql = cast("SqlStore", host)
        self.ws = host.workspace_id if host is not None else store.workspace_id

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._sql._rows(sql, params)

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._sql._exec(sql, params)

    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._sql._many(sql, rows)

    def meta_get(self, key: str) -> str | None:
        """A value the history index keeps about itself (its head, its window), kept with
        the history: per clone in team mode."""
        return self._sql.meta_get(key) if self.kept else None

    def meta_set(self, key: str, value: str) -> None:
        self._sql.meta_set(key, value)

    # -- what is stored -----------------------------------------------------------------------

    def hashes(self) -> dict[str, int]:
        """Every stored commit: hash -> sequence number."""
        if not self.kept:
            return {}
        return dict(self._rows("SELECT hash, seq FROM git_commits WHERE workspace_id = ?",
                               (self.ws,)))  # fmt: skip

    def max_seq(self) -> int:
        if not self.kept:
            return 0
        return int(self._rows("SELECT coalesce(max(seq), 0) FROM git_commits")[0][0])

    def counts(self) -> dict[str, int]:
        if not self.kept:
            return {"commits": 0, "symbol_links": 0, "renames": 0, "file_links": 0}
        commits = self._rows("SELECT count(*) FROM git_commits")[0][0]
        changes = self._rows("SELECT count(*) FROM git_changes")[0][0]
        renames = self._rows("SELECT count(*) FROM git_renames")[0][0]
        files = self._rows(
            "SELECT count(*) FROM document_files f JOIN git_commits c ON c.doc_id = f.doc_id"
        )[0][0]
        return {
            "commits": int(commits),
            "symbol_links": int(changes),
            "renames": int(renames),
            "file_links": int(files),
        }

    def newest(self) -> tuple[str, float] | None:
        if not self.kept:
            return None
        rows = self._rows("SELECT hash, committed_at FROM git_commits ORDER BY seq DESC LIMIT 1")
        return (rows[0][0], rows[0][1]) if rows else None

    # -- writing --------------------------------------------------------------------------------

    def add_commits(self, commits: Sequence[CommitRows], now: float) -> int:
        """Insert commits not stored yet (call inside a transaction); returns how many."""
        if not commits:
            return 0
        known = self.hashes()
        fresh = [c for c in commits if c.hash not in known]
        if not fresh:
            return 0
        doc_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM documents")[0][0])
        chunk_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM chunks")[0][0])
        docs: list[tuple[Any, ...]] = []
        chunks: list[tuple[Any, ...]] = []
        tags: list[tuple[int, str, str]] = []
        rows: list[tuple[int, str, str, int, float]] = []
        changes: list[tuple[str, int, str]] = []
        renames: list[tuple[str, str, int, str]] = []
        files: list[tuple[str, int]] = []
        for c in fresh:
            docs.append((doc_id, self.ws, c.uid, c.title, c.content, c.content_hash,
                         COMMIT_SOURCE_PREFIX + c.hash, json.dumps(c.metadata, sort_keys=True),
                         c.authored_at, c.committed_at, now, c.authored_at))  # fmt: skip
            embed = len(c.chunks) if c.vector_chunks is None else c.vector_chunks
            for seq, body, heading, start, end in c.chunks:
                state = PENDING if seq < embed else LEXICAL_ONLY
                chunks.append(
                    (chunk_id, doc_id, self.ws, seq, c.title, body, heading, start, end, state)
                )
                chunk_id += 1
            tags.extend((doc_id, self.ws, t) for t in dict.fromkeys(c.tags))
            rows.append((doc_id, self.ws, c.hash, c.seq, c.committed_at))
            changes.extend((q, doc_id, how) for q, how in dict(c.changes).items())
            renames.extend((new, old, doc_id, kind) for old, new, kind in dict.fromkeys(c.renames))
            files.extend((p, doc_id) for p in dict.fromkeys(c.files))
            doc_id += 1
        self._many(
            "INSERT INTO documents (id, workspace_id, uid, kind, collection, title, content, "
            "content_hash, source_path, metadata, created_at, updated_at, recorded_at, "
            f"valid_from, author) VALUES (?, ?, ?, 'commit', '{COMMIT_COLLECTION}', ?, ?, ?, "
            f"?, ?, ?, ?, ?, ?, '{COMMIT_AUTHOR}')",
            docs,
        )
        # Commit chunks (symbol = 2) have their own full-text index (migration 10): indexed
        # here, one statement per batch; notes' searches never score them.
        first_chunk = chunks[0][0] if chunks else 0
        self._many(
            "INSERT INTO chunks (id, doc_id, workspace_id, seq, title, body, heading, "
            "start_line, end_line, symbol, priority, embedded) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 2, {COMMIT}, ?)",
            chunks,
        )
        if chunks:
            self._exec(
                "INSERT INTO commits_fts (rowid, title, body) SELECT id, title, body FROM chunks "
                "WHERE id BETWEEN ? AND ? AND symbol = 2",
                (first_chunk, chunk_id - 1),
            )
        self._many(
            "INSERT OR IGNORE INTO document_tags (doc_id, workspace_id, tag) VALUES (?, ?, ?)",
            tags,
        )
        self._many(
            "INSERT INTO git_commits (doc_id, workspace_id, hash, seq, committed_at) "
            "VALUES (?, ?, ?, ?, ?)",
            rows,
        )
        self._many(
            "INSERT OR IGNORE INTO git_changes (qualified_name, doc_id, change) VALUES (?, ?, ?)",
            changes,
        )
        self._many(
            "INSERT OR IGNORE INTO git_renames (new_name, old_name, doc_id, kind) "
            "VALUES (?, ?, ?, ?)",
            renames,
        )
        self._many("INSERT OR IGNORE INTO document_files (path, doc_id) VALUES (?, ?)", files)
        return len(fresh)

    def delete_commits(self, hashes: Iterable[str]) -> int:
        """Remove commits (their documents and every row derived from them)."""
        wanted = list(dict.fromkeys(hashes))
        deleted = 0
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            cursor = self._exec(
                "DELETE FROM documents WHERE id IN (SELECT doc_id FROM git_commits "
                f"WHERE workspace_id = ? AND hash IN ({marks}))",
                (self.ws, *part),
            )
            deleted += max(0, int(cursor.rowcount))
        return deleted

    def keep_newest(self, count: int) -> int:
        """Delete all but the newest ``count`` commits (by their place in the history)."""
        cursor = self._exec(
            "DELETE FROM documents WHERE id IN (SELECT doc_id FROM git_commits "
            "WHERE workspace_id = ? ORDER BY seq DESC LIMIT -1 OFFSET ?)",
            (self.ws, count),
        )
        return max(0, int(cursor.rowcount))

    def delete_older_than(self, committed_before: float) -> int:
        cursor = self._exec(
            "DELETE FROM documents WHERE id IN (SELECT doc_id FROM git_commits "
            "WHERE workspace_id = ? AND committed_at < ?)",
            (self.ws, committed_before),
        )
        return max(0, int(cursor.rowcount))

    # -- reading --------------------------------------------------------------------------------

    def renamed_from(self, name: str, before_seq: int | None) -> list[tuple[str, str, int]]:
        """(old name, file / symbol, seq of the renaming commit) for renames to ``name``
        made at or before ``before_seq`` (None: any)."""
        if not self.kept:
            return []
        bound = "" if before_seq is None else "AND c.seq <= ?"
        params: tuple[Any, ...] = (name,) if before_seq is None else (name, before_seq)
        return [
            (r[0], r[1], r[2])
            for r in self._rows(
                "SELECT r.old_name, r.kind, c.seq FROM git_renames r "
                f"JOIN git_commits c ON c.doc_id = r.doc_id WHERE r.new_name = ? {bound} "
                "ORDER BY c.seq DESC",
                params,
            )
        ]

    def changes_of(
        self, names: Sequence[tuple[str, int | None]], limit: int, visible: Filters
    ) -> list[CommitChange]:
        """Commits that changed any of ``names`` (each at or before its seq bound), newest
        first, only commits a read with ``visible`` returns."""
        if not names or not self.kept:
            return []
        where, params = self._sql._predicate(visible)
        ors: list[str] = []
        args: list[Any] = []
        for name, bound in names[:64]:
            if bound is None:
                ors.append("g.qualified_name = ?")
                args.append(name)
            else:
                ors.append("(g.qualified_name = ? AND c.seq <= ?)")
                args.extend((name, bound))
        rows = self._rows(
            "SELECT c.doc_id, c.hash, c.seq, c.committed_at, g.qualified_name, g.change "
            "FROM git_changes g CROSS JOIN git_commits c ON c.doc_id = g.doc_id "
            "CROSS JOIN documents d ON d.id = c.doc_id "
            f"WHERE ({' OR '.join(ors)}) AND d.workspace_id = ? AND {where} "
            "ORDER BY c.committed_at DESC, c.seq DESC LIMIT ?",
            (*args, self.ws, *params, limit * 2),
        )
        seen: set[int] = set()
        out: list[CommitChange] = []
        for r in rows:
            if r[0] in seen:
                continue  # one commit that changed two of the names
            seen.add(r[0])
            out.append(CommitChange(self._sign * r[0], *r[1:]))
        return out[:limit]

    def documents_touching(self, path: str, visible: Filters, limit: int) -> list[DocumentRow]:
        """Documents (commits, sessions) linked to a file, most recently updated first."""
        if not self.kept:
            return []
        where, params = self._sql._predicate(visible)
        rows = self._rows(
            "SELECT f.doc_id FROM document_files f CROSS JOIN documents d ON d.id = f.doc_id "
            f"WHERE f.path = ? AND d.workspace_id = ? AND {where} "
            "ORDER BY d.updated_at DESC LIMIT ?",
            (path, self.ws, *params, limit),
        )
        return self._documents([r[0] for r in rows])

    def documents_tagged(self, tag: str, visible: Filters, limit: int) -> list[DocumentRow]:
        """Documents with one tag, most recently updated first: looked up by the tag (the
        predicate builder's tag filter would scan every document by date)."""
        if not self.kept:
            return []
        where, params = self._sql._predicate(visible)
        rows = self._rows(
            "SELECT d.id FROM document_tags t CROSS JOIN documents d ON d.id = t.doc_id "
            f"WHERE t.tag = ? AND d.workspace_id = ? AND {where} "
            "ORDER BY d.updated_at DESC LIMIT ?",
            (tag, self.ws, *params, limit),
        )
        return self._documents([r[0] for r in rows])

    def _documents(self, own_ids: list[int]) -> list[DocumentRow]:
        """The documents of these ids of the history's store, in order, as `store` has them."""
        ids = [self._sign * i for i in own_ids]
        found = self.store.get_many(ids, content=False)
        return [found[i] for i in ids if i in found]

    def recent_files(self, commits: int) -> list[str]:
        """The files the newest `commits` commits changed, newest first, each once."""
        if not self.kept:
            return []
        rows = self._rows(
            "SELECT f.path FROM (SELECT doc_id, seq FROM git_commits WHERE workspace_id = ? "
            "ORDER BY seq DESC LIMIT ?) g JOIN document_files f ON f.doc_id = g.doc_id "
            "ORDER BY g.seq DESC",
            (self.ws, commits),
        )
        return list(dict.fromkeys(r[0] for r in rows))

    def commit_count(self) -> int:
        if not self.kept:
            return 0
        return int(self._rows("SELECT count(*) FROM git_commits")[0][0])

    def hashes_of(self, doc_ids: Sequence[int]) -> dict[int, str]:
        """Hashes of the commits among these document ids (as `store` names them)."""
        own = [self._sign * i for i in doc_ids if self._sign * i > 0]
        if not own or not self.kept:
            return {}
        marks = ",".join("?" * len(own))
        rows = self._rows(f"SELECT doc_id, hash FROM git_commits WHERE doc_id IN ({marks})", own)
        return {self._sign * r[0]: r[1] for r in rows}
