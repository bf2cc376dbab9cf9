"""The SQLite dialect: one file per workspace (FTS5 + sqlite-vec); also the code index."""

from ._driver import EngineProbe, load_vec, probe_engine, sqlite_module

__all__ = ["EngineProbe", "load_vec", "probe_engine", "sqlite_module"]
