"""The store: the only place in nano-brain that speaks SQL.

Module map (docs/architecture.md: the layers, and where the two dialects differ):

- `interface`: `MemoryStore`, what the rest of nano-brain calls, composed of capabilities a
  caller may ask for alone: `StoreCore` (transactions, readers, meta), `Documents`, `Chunks`,
  `Audit` (tombstones, audit log), `LexicalSearch`, `Vectors`, `Anchors`, `Views`
  (timeline, counts), `Consolidation` (proposals), `CloneCode` (the clone's: `local`, routes),
  `Maintenance` (size, eviction, health). Each dialect implements each once (PostgreSQL all
  but `CloneCode`, which `TeamStore` takes from the clone's SQLite file).
- `rows`: the rows it hands back. `spaces`: embedding spaces and k-NN keys.
- `predicate`: the one predicate builder (filters -> SQL), spelled per dialect.
- `documents`, `views`, `anchors`, `consolidation`: the SQL both dialects share (portable
  statements); `commits`: the git history's tables.
- `sqlite/`: the SQLite dialect (the default: one file per workspace) and the code index.
- `postgres/`: the PostgreSQL dialect (a team's shared store). `team`: `TeamStore`, the team's
  store and the clone's behind one interface, routing by `delegation`; `identity`: the
  team workspace's name and the person writing.
- `transfer`: copying memory between stores; `admin`: `nano-brain store init|migrate`.
- `code`: the code index's rows; its store is `sqlite.code.CodeStore`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Config
    from . import interface as caps
    from .interface import MemoryStore
    from .postgres.store import PostgresStore
    from .rows import BM25_WEIGHTS, AuditRow, ChunkRow, DocumentRow, Hit, PendingChunk, Tombstone
    from .sqlite import EngineProbe, load_vec, probe_engine, sqlite_module
    from .sqlite.code import CodeStore
    from .sqlite.migrations import SCHEMA_VERSION
    from .sqlite.quick import QuickDoc, QuickReader, QuickReaderError
    from .sqlite.recovery import (
        finish_interrupted_load,
        index_run_lock,
        recover_interrupted_index,
    )
    from .sqlite.store import SqliteStore
    from .sqlite.store import SqliteStore as Store
    from .team import TeamStore

#: The public names and the module each lives in, imported on first use (PEP 562): a caller
#: that needs one small module of the store (the hooks' quick reader, `spaces`) must not pay
#: for the pydantic filters and both dialects.
_EXPORTS = {
    "BM25_WEIGHTS": "rows",
    "AuditRow": "rows",
    "ChunkRow": "rows",
    "DocumentRow": "rows",
    "Hit": "rows",
    "PendingChunk": "rows",
    "Tombstone": "rows",
    "EngineProbe": "sqlite",
    "load_vec": "sqlite",
    "probe_engine": "sqlite",
    "sqlite_module": "sqlite",
    "CodeStore": "sqlite.code",
    "SCHEMA_VERSION": "sqlite.migrations",
    "finish_interrupted_load": "sqlite.recovery",
    "index_run_lock": "sqlite.recovery",
    "recover_interrupted_index": "sqlite.recovery",
    "SqliteStore": "sqlite.store",
    "QuickReader": "sqlite.quick",
    "QuickReaderError": "sqlite.quick",
    "QuickDoc": "sqlite.quick",
}


def __getattr__(name: str) -> Any:
    if name == "Store":  # the default store (SQLite)
        name = "SqliteStore"
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


def open_store(config: Config, path: Path, workspace_id: str, root: Path) -> MemoryStore:
    """The workspace's memory: the SQLite file at `path`, or when `storage.url` is set, the
    team store with this clone's code index in a SQLite file of its own beside `path` (see
    `code_index_path`)."""
    from .sqlite.store import SqliteStore

    storage = config.storage
    if not storage.url:
        return SqliteStore(path, workspace_id, busy_timeout_ms=storage.busy_timeout_ms)
    from .postgres.store import PostgresStore
    from .team import TeamStore, person, team_workspace

    team = PostgresStore(
        storage.url,
        team_workspace(storage.workspace, root, workspace_id),
        path=path,
        user=person(config.user.name, root),
        vector_index=storage.vector_index,
        timeout_ms=storage.busy_timeout_ms,
    )
    try:
        local = SqliteStore(
            code_index_path(path), workspace_id, busy_timeout_ms=storage.busy_timeout_ms
        )
    except BaseException:
        team.close()
        raise
    return TeamStore(team, local)


def code_index_path(path: Path) -> Path:
    """Where a team store's clone keeps its code index: not in the local store's file, whose
    notes (copied to the team or not) must not show beside the team's."""
    return path.with_name(f"{path.stem}.code{path.suffix or '.db'}")


if TYPE_CHECKING:  # mypy checks each store against the capabilities it implements
    _SQLITE: type[MemoryStore] = SqliteStore
    _TEAM: type[MemoryStore] = TeamStore
    # the team's store: every capability but the clone's code index (`TeamStore.local`'s)
    _STORE_CORE: type[caps.StoreCore] = PostgresStore
    _DOCUMENTS: type[caps.Documents] = PostgresStore
    _CHUNKS: type[caps.Chunks] = PostgresStore
    _AUDIT: type[caps.Audit] = PostgresStore
    _LEXICAL: type[caps.LexicalSearch] = PostgresStore
    _VECTORS: type[caps.Vectors] = PostgresStore
    _ANCHORS: type[caps.Anchors] = PostgresStore
    _VIEWS: type[caps.Views] = PostgresStore
    _CONSOLIDATION: type[caps.Consolidation] = PostgresStore
    _MAINTENANCE: type[caps.Maintenance] = PostgresStore

__all__ = [
    "EngineProbe",
    "load_vec",
    "probe_engine",
    "sqlite_module",
    "BM25_WEIGHTS",
    "SCHEMA_VERSION",
    "AuditRow",
    "ChunkRow",
    "CodeStore",
    "DocumentRow",
    "Hit",
    "PendingChunk",
    "QuickDoc",
    "QuickReader",
    "QuickReaderError",
    "SqliteStore",
    "Store",
    "Tombstone",
    "open_store",
    "finish_interrupted_load",
    "index_run_lock",
    "recover_interrupted_index",
]
