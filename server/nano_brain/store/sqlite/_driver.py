"""Pick an SQLite that can load sqlite-vec: the interpreter's when it can, else sqlean.

Never load two packaged SQLite libraries into one process (they crash each other), so the
choice is made once and cached.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sqlite3 as _stdlib_sqlite3
from types import ModuleType
from typing import NamedTuple

from ...errors import StoreError
from ...lazylog import LazyLogger

log = LazyLogger(__name__)  # on an agent hook's path: see lazylog


@functools.cache
def sqlite_module() -> ModuleType:
    """The DB-API module to use for every connection of this process."""
    probe = _stdlib_sqlite3.connect(":memory:")
    try:
        if hasattr(probe, "enable_load_extension"):
            return _bind_none_directly(_stdlib_sqlite3)
    finally:
        probe.close()
    import sqlean  # packaged SQLite with extension loading

    log.debug("stdlib sqlite3 cannot load extensions; using sqlean %s", sqlean.sqlite_version)
    module: ModuleType = sqlean  # sqlean ships no type information
    return _bind_none_directly(module)


def _keep(value: None) -> None:
    return value


def _bind_none_directly(module: ModuleType) -> ModuleType:
    # The DB-API modules bind int, float and str directly, but look every None up as an
    # object to adapt: no adapter is registered, so they ask None for __conform__ and clear
    # the AttributeError that raises. That made a bound NULL cost 20 times an int (0.8 us
    # with sqlean; a cold code index binds ~70k). An adapter that hands None back skips the
    # search and binds the same NULL (registering one for NoneType, unlike for int or str,
    # leaves the other types' fast path alone).
    module.register_adapter(type(None), _keep)
    return module


@functools.cache
def _vec_path() -> str:
    # `import sqlite_vec` imports numpy (~80 ms) for helpers we never use: locate the
    # extension it ships (what sqlite_vec.loadable_path() returns) without importing it.
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the sqlite-vec package is not installed")
    return os.path.join(list(spec.submodule_search_locations)[0], "vec0")


def inserted_id(cursor: _stdlib_sqlite3.Cursor) -> int:
    """The row id of the row an INSERT just made (set by sqlite3 and sqlean on every INSERT)."""
    if cursor.lastrowid is None:
        raise StoreError("the INSERT made no row")
    return cursor.lastrowid


def load_vec(conn: _stdlib_sqlite3.Connection) -> None:
    """Load the sqlite-vec extension into a connection (sqlite3's or sqlean's)."""
    conn.enable_load_extension(True)
    conn.load_extension(_vec_path())
    conn.enable_load_extension(False)


class EngineProbe(NamedTuple):
    """What this process's SQLite can do, as `nano-brain doctor` reports it."""

    name: str
    """``stdlib sqlite3``, or the packaged module's name (sqlean)."""
    version: str
    fts5_error: str | None
    """Why FTS5 with the trigram tokenizer is unavailable (None: it works)."""
    vec_version: str | None
    vec_error: str | None
    """Why sqlite-vec does not load (None: it does)."""


def probe_engine() -> EngineProbe:
    """Try, on a connection to an in-memory database, what the store needs of SQLite: its
    version, FTS5 with trigrams, and loading sqlite-vec."""
    sqlite = sqlite_module()
    name = "stdlib sqlite3" if sqlite.__name__ == "sqlite3" else sqlite.__name__
    db = sqlite.connect(":memory:")
    try:
        version = str(db.execute("SELECT sqlite_version()").fetchone()[0])
        fts5_error = None
        try:
            db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'trigram')")
        except sqlite.DatabaseError as exc:
            fts5_error = str(exc)
        vec_version = vec_error = None
        try:
            load_vec(db)
            vec_version = str(db.execute("SELECT vec_version()").fetchone()[0])
        except Exception as exc:  # any failure to load is what the doctor reports
            vec_error = str(exc)
    finally:
        db.close()
    return EngineProbe(name, version, fts5_error, vec_version, vec_error)
