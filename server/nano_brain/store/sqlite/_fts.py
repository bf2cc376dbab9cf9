"""FTS5's query syntax and its vocabulary table: the pieces of the full-text search that the
store's lexical leg and the hooks' quick reader share (plain strings, no store classes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

VOCABULARY = "chunks_fts_vocab"
"""The connection's temporary fts5vocab table over `chunks_fts` (a word's chunk count)."""


def open_vocabulary(db: Any) -> None:
    """Make the connection's view of the words FTS5 indexed (`term_counts` reads it)."""
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{VOCABULARY} "
        "USING fts5vocab(main, chunks_fts, 'row')"
    )


def fts_match(terms: Sequence[str], op: Literal["AND", "OR"]) -> str:
    """An FTS5 expression of quoted terms joined by `op`."""
    return f" {op} ".join('"' + t.replace('"', '""') + '"' for t in terms)
