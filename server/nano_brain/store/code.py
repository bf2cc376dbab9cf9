"""The code index's rows and names: files, symbols, edges, anchors.

The SQL is in `sqlite.code` (`CodeStore`): the code index is always in the workspace's local
SQLite store, also when its notes are in a team's PostgreSQL store (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Collection of one-chunk-per-symbol documents, and of Markdown/text files of the workspace.
CODE_COLLECTION = "code"
DOCS_COLLECTION = "docs"
#: Prefix of a symbol document's ``source_path`` (``code://pkg/mod.py::Class.method``); the
#: tombstone Brain.delete leaves for a code document is keyed on it.
SYMBOL_SOURCE_PREFIX = "code://"
#: Meta key set while a bulk load's symbol chunks wait for their full-text rows ("1"): a run
#: killed before adding them leaves it set, and the next process repairs the indexes.
FULLTEXT_PENDING_KEY = "code_fulltext_pending"

# (qualified_name, name, kind, parent, signature, docstring, start, end, sha256, bases,
#  search_text, content_hash, search_title, document metadata JSON, document uid)
SymbolRow = tuple[
    str, str, str, "str | None", str, "str | None", int, int, str, str, str, str, str, str, str
]
# (module, name, alias, line)
ImportRow = tuple[str, "str | None", "str | None", int]
# (caller, callee, name, receiver, receiver_kind, line)
CallRow = tuple["str | None", str, str, "str | None", str, int]
# (scope, target, called value or None, line)
AssignRow = tuple["str | None", str, "str | None", int]
# (seq, body, heading, start_line, end_line)
TextChunkRow = tuple[int, str, str, int, int]


@dataclass(slots=True)
class FileRecord:
    """What a previous index recorded about one file."""

    id: int
    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str | None


@dataclass(slots=True)
class BulkFile:
    """A parsed source file for :meth:`CodeStore.add_code_files` (rows as the indexer makes
    them)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    language: str
    namespace: str | None
    default_export: str | None
    has_errors: bool
    symbols: Sequence[SymbolRow]
    imports: Sequence[ImportRow]
    calls: Sequence[CallRow]
    assignments: Sequence[AssignRow]


@dataclass(frozen=True, slots=True)
class SymbolRecord:
    qualified_name: str
    name: str
    kind: str
    path: str
    language: str | None
    parent: str | None
    signature: str
    docstring: str | None
    start_line: int
    end_line: int
    sha256: str
    doc_uid: str | None


@dataclass(frozen=True, slots=True)
class EdgeRecord:
    """A ``calls`` edge: ``source`` calls ``target`` (None when unresolved) at path:line."""

    source: str | None
    target: str | None
    name: str
    expression: str | None
    how: str | None
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class AnchorRecord:
    doc_uid: str
    doc_title: str | None
    doc_status: str | None
    path: str
    qualified_name: str
    symbol_sha256: str
    created_at: float
    current_sha256: str | None

    @property
    def state(self) -> str:
        """``ok``, ``changed`` (the symbol's text differs) or ``missing`` (it is gone)."""
        if self.current_sha256 is None:
            return "missing"
        return "ok" if self.current_sha256 == self.symbol_sha256 else "changed"
