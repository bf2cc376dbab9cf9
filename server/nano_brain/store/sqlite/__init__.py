"""The SQLite dialect: one file per workspace (FTS5 + sqlite-vec); also the code index."""

from ._driver import load_vec, sqlite_module

__all__ = ["load_vec", "sqlite_module"]
