"""A read-only view of a workspace's SQLite store for agent hooks, which answer in milliseconds.

An agent runs its hooks in its own loop, one process per event: the process must start, read
and answer within tens of milliseconds. `QuickReader` opens the store file ``mode=ro`` with the
standard library and the SQLite engine only (no pydantic, no store classes, no embedding
runtime) and reads what the hooks show: the symbols an edit touches, the notes anchored to
them, the newest decisions, notes and sessions, and word matches for a prompt.

What a read may see is the store's default (`predicate.predicate(Filters())`): the current
version of a document, active or unreviewed, never a commit; the tests check the two agree.
A store whose schema is not the one this code knows is refused (`QuickReaderError`): the
caller then takes the full path, which migrates.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ...doctypes import DECISION_COLLECTION, DECISION_TAGS, DEFAULT_STATUSES
from ...errors import StoreError
from ._driver import sqlite_module
from ._file import check_is_database, check_remembered_damage, read_only_uri
from ._fts import VOCABULARY, fts_match, open_vocabulary
from .migrations import SCHEMA_VERSION

#: The default read's documents (see `predicate.predicate`): current, visible status, no commit.
_VISIBLE = (
    "d.valid_to IS NULL AND d.kind != 'commit' "
    # `+`: not by the status index, which would read every active document before the
    # newest few (the store's predicate spells it so too: `predicate.SQLITE.current_status`)
    f"AND +d.status IN ({','.join(repr(s) for s in DEFAULT_STATUSES)})"
)
_DECISION = (
    f"(d.collection = '{DECISION_COLLECTION}' OR EXISTS (SELECT 1 FROM document_tags t "
    f"WHERE t.doc_id = d.id AND t.tag IN ({','.join(repr(t) for t in DECISION_TAGS)})))"
)
_DOC = (
    "d.uid, d.kind, d.collection, d.title, substr(d.content, 1, 1200), d.status, d.pinned, "
    f"d.author, coalesce(d.source_path, ''), d.updated_at, {_DECISION}"
)
_BRIEF_KINDS = "d.kind IN ('note', 'session')"
"""The condition of the indexes migration 14 made for these lists."""
_MAX_NAMES = 200
"""Symbols one anchor read asks for at most (a Write of a whole large file)."""


class QuickReaderError(StoreError):
    """The store cannot be read on the quick path (missing, damaged, another schema)."""

    def __init__(self, message: str, *, older: bool = False) -> None:
        super().__init__(message)
        self.older = older
        """The store's schema is older than this code's: opening it the full way migrates it."""


class QuickDoc(NamedTuple):
    """A document as the hooks show it."""

    uid: str
    kind: str
    collection: str
    title: str
    text: str
    status: str
    pinned: bool
    author: str
    source_path: str
    updated_at: float
    decision: bool


class QuickSymbol(NamedTuple):
    """A symbol of the code index, with its text's hash now."""

    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    sha256: str


class QuickAnchor(NamedTuple):
    """A note anchored to a symbol, and the symbol's hash when it was anchored."""

    qualified_name: str
    symbol_sha256: str
    doc: QuickDoc


class QuickReader:
    """Read-only queries on one workspace's SQLite store (see the module docstring)."""

    def __init__(self, path: Path, workspace_id: str, *, busy_timeout_ms: int = 200) -> None:
        if not path.is_file():
            raise QuickReaderError(f"no store at {path}")
        check_is_database(path)
        check_remembered_damage(path)
        self.workspace_id = workspace_id
        try:
            self._db = sqlite_module().connect(
                read_only_uri(path), uri=True, check_same_thread=False
            )
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            open_vocabulary(self._db)  # a temporary table: made before the connection is read-only
            self._db.execute("PRAGMA query_only = ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            owner = self._db.execute("SELECT value FROM meta WHERE key = 'workspace_id'").fetchone()
        except Exception as exc:  # the engine's own error types differ per build
            raise QuickReaderError(f"cannot read {path}: {exc}") from exc
        if version != SCHEMA_VERSION:
            self.close()
            raise QuickReaderError(
                f"store schema {version}, this code reads {SCHEMA_VERSION}",
                older=version < SCHEMA_VERSION,
            )
        if owner is not None and owner[0] != workspace_id:
            self.close()
            raise QuickReaderError(f"{path} is the store of another workspace")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> QuickReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return list(self._db.execute(sql, params))
        except Exception as exc:
            raise QuickReaderError(f"store read failed: {exc}") from exc

    # -- code --------------------------------------------------------------------------------

    def symbols_touching(self, path: str, spans: Sequence[tuple[int, int]]) -> list[QuickSymbol]:
        """Symbols of the file (relative POSIX path) whose lines overlap any span (1-based,
        inclusive); every symbol of the file when `spans` is empty. Innermost first."""
        rows = self._rows(
            "SELECT s.qualified_name, s.kind, s.start_line, s.end_line, s.sha256 "
            "FROM code_files f JOIN code_symbols s ON s.file_id = f.id "
            "WHERE f.workspace_id = ? AND f.path = ? ORDER BY s.end_line - s.start_line, s.id",
            (self.workspace_id, path),
        )
        found = [QuickSymbol(*r) for r in rows]
        if not spans:
            return found[:_MAX_NAMES]
        return [
            s
            for s in found
            if any(s.start_line <= last and first <= s.end_line for first, last in spans)
        ][:_MAX_NAMES]

    def is_indexed(self, path: str) -> bool:
        """Whether the code index holds this file."""
        return bool(
            self._rows(
                "SELECT 1 FROM code_files WHERE workspace_id = ? AND path = ?",
                (self.workspace_id, path),
            )
        )

    def anchored(self, qualified_names: Sequence[str]) -> list[QuickAnchor]:
        """The visible notes anchored to these symbols: decisions first, then newest."""
        names = list(dict.fromkeys(qualified_names))[:_MAX_NAMES]
        if not names:
            return []
        rows = self._rows(
            f"SELECT a.qualified_name, a.symbol_sha256, {_DOC} FROM code_anchors a "
            "JOIN documents d ON d.uid = a.doc_uid AND d.workspace_id = a.workspace_id "
            f"WHERE a.workspace_id = ? AND a.qualified_name IN ({','.join('?' * len(names))}) "
            f"AND {_VISIBLE} ORDER BY {_DECISION} DESC, d.pinned DESC, d.updated_at DESC",
            (self.workspace_id, *names),
        )
        return [QuickAnchor(r[0], r[1], _doc(r[2:])) for r in rows]

    # -- memory ------------------------------------------------------------------------------

    def documents(
        self, *, kinds: Sequence[str], order: str, limit: int, decisions: bool = False
    ) -> list[QuickDoc]:
        """Visible notes or sessions (`kinds`), newest (`updated`, `created`) or most used first."""
        sql, params = self._documents_sql(kinds, order, limit, decisions)
        return [_doc(r) for r in self._rows(sql, params)]

    def _documents_sql(
        self, kinds: Sequence[str], order: str, limit: int, decisions: bool
    ) -> tuple[str, list[Any]]:
        orders = {
            "updated": "d.updated_at DESC, d.id DESC",
            "created": "d.created_at DESC, d.id DESC",
            "accessed": "d.access_count DESC, d.last_accessed_at DESC, d.id DESC",
        }
        # migration 14's partial indexes: `_BRIEF_KINDS` (their condition, spelled as they
        # spell it) for the newest; for the most used, the documents read at least once
        # (`+`: not a kind's index, which would sort every note of the kind)
        marks = ",".join("?" * len(kinds))
        if order == "accessed":
            where = f"{_VISIBLE} AND +d.kind IN ({marks}) AND d.access_count > 0"
        else:
            where = f"{_VISIBLE} AND {_BRIEF_KINDS} AND d.kind IN ({marks})"
        if decisions:
            where += f" AND {_DECISION}"
        sql = (
            f"SELECT {_DOC} FROM documents d WHERE d.workspace_id = ? AND {where} "
            f"ORDER BY {orders[order]} LIMIT ?"
        )
        return sql, [self.workspace_id, *kinds, limit]

    def word_matches(
        self, stems: Sequence[str], kinds: Sequence[str], limit: int
    ) -> list[QuickDoc]:
        """Visible documents whose chunks hold every one of these words (rarest first; FTS5
        stems them as it indexed them), or when none does, any of the first three; best
        bm25 first, one row per document."""
        terms = [s for s in dict.fromkeys(stems) if s]
        if not terms:
            return []
        # every word first: an intersection is cheap to rank, and a document holding all of
        # the rarest words is the one whose coverage clears the floor; any word only when no
        # document holds them all (ranking a union reads the size of every match)
        found = self._matches(fts_match(terms, "AND"), kinds, limit)
        if not found and len(terms) > 1:
            # the rarest three: the union's ranking reads the size of every match
            found = self._matches(fts_match(terms[:3], "OR"), kinds, limit)
        return found

    def _matches(self, match: str, kinds: Sequence[str], limit: int) -> list[QuickDoc]:
        rows = self._rows(
            f"SELECT {_DOC} FROM (SELECT c.doc_id, min(m.rank) AS best FROM "
            "(SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) m "
            "JOIN chunks c ON c.id = m.rowid GROUP BY c.doc_id) hit "
            # CROSS JOIN: from the few matches to their documents, never the other way (the
            # planner would walk every note by the kind index and probe the matches)
            "CROSS JOIN documents d ON d.id = hit.doc_id "
            f"WHERE d.workspace_id = ? AND {_VISIBLE} "
            f"AND d.kind IN ({','.join('?' * len(kinds))}) ORDER BY hit.best LIMIT ?",
            (match, limit * 5, self.workspace_id, *kinds, limit),
        )
        return [_doc(r) for r in rows]

    def term_counts(self, stems: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each stem, and about how many chunks there are."""
        total = int(self._rows("SELECT coalesce(max(id), 0) FROM chunks")[0][0])
        wanted = list(dict.fromkeys(stems))
        counts = dict.fromkeys(wanted, 0)
        if wanted:
            marks = ",".join("?" * len(wanted))
            counts.update(
                self._rows(
                    f"SELECT term, doc FROM temp.{VOCABULARY} WHERE term IN ({marks})", wanted
                )
            )
        return counts, total


def _doc(r: Sequence[Any]) -> QuickDoc:
    return QuickDoc(
        r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7], r[8], float(r[9]), bool(r[10])
    )
