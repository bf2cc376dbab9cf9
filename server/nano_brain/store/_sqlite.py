"""Pick an SQLite that can load sqlite-vec: the interpreter's when it can, else sqlean.

Never load two packaged SQLite libraries into one process (they crash each other), so the
choice is made once and cached.
"""

from __future__ import annotations

import functools
import logging
import sqlite3 as _stdlib_sqlite3
from types import ModuleType

log = logging.getLogger(__name__)


@functools.cache
def sqlite_module() -> ModuleType:
    """The DB-API module to use for every connection of this process."""
    probe = _stdlib_sqlite3.connect(":memory:")
    try:
        if hasattr(probe, "enable_load_extension"):
            return _stdlib_sqlite3
    finally:
        probe.close()
    import sqlean  # packaged SQLite with extension loading

    log.debug("stdlib sqlite3 cannot load extensions; using sqlean %s", sqlean.sqlite_version)
    return sqlean


def load_vec(conn: object) -> None:
    """Load the sqlite-vec extension into a connection."""
    import sqlite_vec

    conn.enable_load_extension(True)  # type: ignore[attr-defined]
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)  # type: ignore[attr-defined]
