"""The SQLite store: the only place in nano-brain that speaks SQL."""

from .migrations import SCHEMA_VERSION
from .store import BM25_WEIGHTS, ChunkRow, DocumentRow, Hit, Store

__all__ = ["BM25_WEIGHTS", "SCHEMA_VERSION", "ChunkRow", "DocumentRow", "Hit", "Store"]
