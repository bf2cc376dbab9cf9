"""The SQLite store: the only place in nano-brain that speaks SQL."""

from .migrations import SCHEMA_VERSION
from .store import ChunkRow, DocumentRow, Hit, Store

__all__ = ["SCHEMA_VERSION", "ChunkRow", "DocumentRow", "Hit", "Store"]
