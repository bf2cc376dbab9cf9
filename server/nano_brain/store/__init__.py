"""The store: the only place in nano-brain that speaks SQL.

Module map (docs/store.md has the format):

- `interface`: `MemoryStore`, what the rest of nano-brain calls.
- `rows`: the rows it hands back. `spaces`: embedding spaces and k-NN keys.
- `predicate`: the one predicate builder (filters -> SQL), spelled per dialect.
- `documents`, `views`: the SQL both dialects share (portable statements).
- `sqlite/`: the SQLite dialect (the default: one file per workspace) and the code index.
- `code`: the code index's rows; its store is `sqlite.code.CodeStore`.
"""

from __future__ import annotations

from .rows import AuditRow, ChunkRow, DocumentRow, Hit, PendingChunk, Tombstone
from .sqlite.code import CodeStore
from .sqlite.migrations import SCHEMA_VERSION
from .sqlite.store import BM25_WEIGHTS, SqliteStore

Store = SqliteStore
"""The default store (SQLite)."""


__all__ = [
    "BM25_WEIGHTS",
    "SCHEMA_VERSION",
    "AuditRow",
    "ChunkRow",
    "CodeStore",
    "DocumentRow",
    "Hit",
    "PendingChunk",
    "SqliteStore",
    "Store",
    "Tombstone",
]
