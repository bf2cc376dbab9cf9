"""Undo migration 10 (the git history) on an open connection, for tests that start from an
older schema. Drops what it added; the documents' CHECK keeps `commit` unless asked."""

from __future__ import annotations

from typing import Any

NEW_CHECK = "CHECK (kind IN ('note', 'session', 'code', 'commit'))"
OLD_CHECK = "CHECK (kind IN ('note', 'session', 'code'))"
#: NEW_CHECK as migration 12 writes it
NEW_CHECK_12 = "CHECK (kind = 'note' OR kind = 'session' OR kind = 'code' OR kind = 'commit')"


def undo_migration_10(conn: Any, *, check: bool = False) -> None:
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
