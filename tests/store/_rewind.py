"""Undo migrations 10 (the git history) and 13 on an open connection, for tests that start
from an older schema. Drops what it added; the documents' CHECK keeps `commit` unless asked."""

from __future__ import annotations

from typing import Any

from nano_brain.store.sqlite.migrations import MIGRATIONS
from nano_brain.store.sqlite.store import _statements

NEW_CHECK = "CHECK (kind IN ('note', 'session', 'code', 'commit'))"
OLD_CHECK = "CHECK (kind IN ('note', 'session', 'code'))"
#: NEW_CHECK as migration 12 writes it
NEW_CHECK_12 = "CHECK (kind = 'note' OR kind = 'session' OR kind = 'code' OR kind = 'commit')"


def undo_migration_13(conn: Any) -> None:
    """Symbol chunks' trigram rows back to their whole titles, through migration 10's view
    and triggers (migration 13 deletes the rows with the values 10-12 indexed them with)."""
    conn.execute("DROP VIEW IF EXISTS chunks_tri_content")
    for trigger in ("chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for statement in _statements(MIGRATIONS[9]):
        if "chunks_tri_content AS" in statement or statement.startswith(
            ("CREATE TRIGGER chunks_ad ", "CREATE TRIGGER chunks_au ")
        ):
            conn.execute(statement)
    conn.execute("INSERT INTO chunks_tri (chunks_tri) VALUES ('rebuild')")


def undo_migration_10(conn: Any, *, check: bool = False) -> None:
    undo_migration_13(conn)
    for trigger in ("document_files_session_ai", "document_files_session_au",
                    "chunks_ad_commit", "chunks_au_commit"):  # fmt: skip
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for table in ("commits_fts", "git_changes", "git_renames", "document_files", "git_commits"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute("DROP VIEW IF EXISTS commits_fts_content")
    # chunks_fts back on the chunks table itself, as migration 1 made it
    conn.execute("DROP TABLE IF EXISTS chunks_fts")
    conn.execute("DROP VIEW IF EXISTS chunks_fts_content")
    conn.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, body, content = 'chunks', "
        "content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")
    if check:
        version = conn.execute("PRAGMA schema_version").fetchone()[0]
        conn.execute("PRAGMA writable_schema = ON")
        for new in (NEW_CHECK, NEW_CHECK_12):
            conn.execute(
                "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'documents'",
                (new, OLD_CHECK),
            )
        conn.execute(f"PRAGMA schema_version = {version + 1}")
        conn.execute("PRAGMA writable_schema = OFF")
