"""Checks `nano-brain doctor` runs on a store: SQLite's own integrity check, the full-text
indexes against their content, and a rebuild of those indexes when they disagree.

The checks read only. Their errors are returned, not raised through the store's error path,
which would remember the file as damaged: an index that drifted from its content is repaired
by a rebuild, and the rest of the store is sound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._driver import sqlite_module
from .migrations import FULLTEXT_TABLES

if TYPE_CHECKING:
    from ._host import StoreHost as Store


class HealthChecks:
    """Mixed into `Store`."""

    def integrity_problems(self: Store, limit: int = 10) -> list[str]:
        """What PRAGMA integrity_check finds (at most `limit` lines); empty when sound."""
        with self._lock:
            self._check_usable()
            try:
                rows = self._db.execute(f"PRAGMA integrity_check({int(limit)})").fetchall()
            except sqlite_module().DatabaseError as exc:
                return [str(exc)]
        found = [str(r[0]) for r in rows]
        return [] if found == ["ok"] else found

    def fulltext_problems(self: Store) -> dict[str, str]:
        """Full-text indexes that disagree with their content, with SQLite's message."""
        problems: dict[str, str] = {}
        with self._lock:
            self._check_usable()
            for table in FULLTEXT_TABLES:
                try:
                    # rank 1: compare the index with the content table, not only with itself
                    self._db.execute(
                        f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)"
                    )
                except sqlite_module().DatabaseError as exc:
                    problems[table] = str(exc)
        return problems

    def rebuild_fulltext(self: Store) -> None:
        """Rebuild every full-text index from its content (one transaction)."""
        with self.transaction():
            for table in FULLTEXT_TABLES:
                self._exec(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
