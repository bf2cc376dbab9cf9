"""Numbered, forward-only schema migrations; each runs in the transaction that records it.

`PRAGMA user_version` holds the number of the last migration applied. Add a migration by
appending to `MIGRATIONS`; never edit one that has shipped. Migrations 1 to 9 are in
`early_migrations`.
"""

from __future__ import annotations

from .early_migrations import EARLY_MIGRATIONS

#: Lists a harvested session's changed files (migration 10); a cold code index sets it aside
#: and puts it back (store.sqlite.code_bulk), then lists every session's files again with:
SESSION_FILES_TRIGGER = """\
CREATE TRIGGER IF NOT EXISTS document_files_session_ai AFTER INSERT ON documents
    WHEN new.kind = 'session' AND json_valid(new.metadata)
BEGIN
    INSERT OR IGNORE INTO document_files (path, doc_id)
        SELECT value, new.id FROM json_each(new.metadata, '$.harvest.files_changed')
        WHERE type = 'text' AND length(value) BETWEEN 1 AND 1024;
END"""
SESSION_FILES_BACKFILL = """INSERT OR IGNORE INTO document_files (path, doc_id)
    SELECT j.value, d.id FROM documents d, json_each(d.metadata, '$.harvest.files_changed') j
    WHERE d.kind = 'session' AND json_valid(d.metadata) AND j.type = 'text'
      AND length(j.value) BETWEEN 1 AND 1024"""

# The git history as memory (docs/history.md): a commit is a document of kind 'commit' (the
# documents' kind CHECK is widened by store._allow_commit_kind: SQLite cannot alter a CHECK,
# and rebuilding `documents` would cascade into every table that references it). Beside it:
# - git_commits: its hash and its place in the history (`seq`: parents before children);
# - git_changes: the symbols whose lines it changed, by their qualified name at that commit;
# - git_renames: files and symbols it renamed, so a symbol's history follows it back;
# - document_files: the files a commit changed or a harvested session edited (kept from the
#   session's metadata by the triggers below), for "sessions that edited this file".
# Commit chunks (``chunks.symbol = 2``) have a full-text index of their own, commits_fts: a
# search of notes and sessions never scores a repository's thousands of commit messages (bm25
# is computed for every match before any filter), and the chunks_fts/chunks_tri triggers and
# content views leave them out (chunks_fts is made again on a view: store._words_without_commits).
# Every row cascades from its document. Like 7, 8 and 9, it may be applied again.
_V10 = (
    """
CREATE VIEW IF NOT EXISTS commits_fts_content AS
    SELECT id, title, body FROM chunks WHERE symbol = 2;
CREATE VIRTUAL TABLE IF NOT EXISTS commits_fts USING fts5 (
    title, body, content = 'commits_fts_content', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
DROP VIEW IF EXISTS chunks_tri_content;
CREATE VIEW chunks_tri_content AS
    SELECT id, title, CASE WHEN symbol = 1 THEN '' ELSE body END AS body FROM chunks
    WHERE symbol != 2;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS chunks_au;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks WHEN old.symbol != 2 BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, old.title, CASE WHEN old.symbol = 1 THEN '' ELSE old.body END);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF title, body ON chunks WHEN old.symbol != 2 BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, old.title, CASE WHEN old.symbol = 1 THEN '' ELSE old.body END);
    INSERT INTO chunks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO chunks_tri (rowid, title, body)
        VALUES (new.id, new.title, CASE WHEN new.symbol = 1 THEN '' ELSE new.body END);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad_commit AFTER DELETE ON chunks WHEN old.symbol = 2 BEGIN
    INSERT INTO commits_fts (commits_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au_commit AFTER UPDATE OF title, body ON chunks
    WHEN old.symbol = 2
BEGIN
    INSERT INTO commits_fts (commits_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO commits_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TABLE IF NOT EXISTS git_commits (
    doc_id       INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    hash         TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    committed_at REAL NOT NULL,
    UNIQUE (workspace_id, hash)
);
CREATE INDEX IF NOT EXISTS git_commits_seq ON git_commits (seq);
CREATE TABLE IF NOT EXISTS git_changes (
    qualified_name TEXT NOT NULL,
    doc_id         INTEGER NOT NULL REFERENCES git_commits (doc_id) ON DELETE CASCADE,
    change         TEXT NOT NULL CHECK (change IN ('added', 'modified', 'renamed', 'removed')),
    PRIMARY KEY (qualified_name, doc_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS git_changes_doc ON git_changes (doc_id);
CREATE TABLE IF NOT EXISTS git_renames (
    new_name TEXT NOT NULL,
    old_name TEXT NOT NULL,
    doc_id   INTEGER NOT NULL REFERENCES git_commits (doc_id) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('file', 'symbol')),
    PRIMARY KEY (new_name, doc_id, old_name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS git_renames_doc ON git_renames (doc_id);
CREATE TABLE IF NOT EXISTS document_files (
    path   TEXT NOT NULL,
    doc_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    PRIMARY KEY (path, doc_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS document_files_doc ON document_files (doc_id);
"""
    + SESSION_FILES_TRIGGER
    + """;
CREATE TRIGGER IF NOT EXISTS document_files_session_au AFTER UPDATE OF metadata ON documents
    WHEN new.kind = 'session' AND json_valid(new.metadata)
BEGIN
    INSERT OR IGNORE INTO document_files (path, doc_id)
        SELECT value, new.id FROM json_each(new.metadata, '$.harvest.files_changed')
        WHERE type = 'text' AND length(value) BETWEEN 1 AND 1024;
END;
"""
    + SESSION_FILES_BACKFILL
    + ";\n"
)

# Migration 11: the imports that rename what they import (``from m import f as g``), by the
# imported name. An edit that adds or removes a name asks which other files bind it under
# another name; without this index that read every edge of the workspace (10 ms at 80k).
# (A bulk load drops and builds it again from the same text: code.py's _LOOKUP_INDEXES.)
ALIAS_INDEX = (
    "CREATE INDEX IF NOT EXISTS code_edges_alias ON code_edges (expression) "
    "WHERE kind = 'imports' AND alias IS NOT NULL"
)
_V11 = ALIAS_INDEX + ";\n"

# Migration 12: every CHECK (column IN ('a', 'b', ...)) becomes CHECK (column = 'a' OR ...).
# SQLite evaluates an IN list of more than two values by building a temporary b-tree of the
# list, again for every row a statement inserts or updates: half the cost of inserting a
# code edge, more for a document (two such checks). The step that rewrites the schema text
# is store.py's _checks_without_in_lists; it has no SQL of its own.
_V12 = ""

# Migration 13: a symbol chunk's trigram row holds its qualified name, the first line of its
# title, instead of the whole title (name, the name's words, the docstring's summary). The
# trigram index answers identifier fragments the word index does not hold; the words and the
# summary are in the word index, and indexing their trigrams cost as much as the word index of
# the symbols' whole text (a third of a cold index's full-text work). The step that moves the
# existing rows is store.py's _symbol_trigrams_by_name.
SYMBOL_TRIGRAM_TITLE = "substr({t}, 1, instr({t} || char(10), char(10)) - 1)"


def _tri_title(row: str) -> str:
    """The trigram index's title of chunk ``row`` (``new``, ``old`` or a table alias)."""
    title = SYMBOL_TRIGRAM_TITLE.format(t=f"{row}.title")
    return f"CASE WHEN {row}.symbol = 1 THEN {title} ELSE {row}.title END"


_V13 = f"""
DROP VIEW IF EXISTS chunks_tri_content;
CREATE VIEW chunks_tri_content AS
    SELECT id, {_tri_title("chunks")} AS title,
           CASE WHEN symbol = 1 THEN '' ELSE body END AS body
    FROM chunks WHERE symbol != 2;
DROP TRIGGER IF EXISTS chunks_ad;
DROP TRIGGER IF EXISTS chunks_au;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks WHEN old.symbol != 2 BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, {_tri_title("old")},
                CASE WHEN old.symbol = 1 THEN '' ELSE old.body END);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF title, body ON chunks WHEN old.symbol != 2 BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, {_tri_title("old")},
                CASE WHEN old.symbol = 1 THEN '' ELSE old.body END);
    INSERT INTO chunks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO chunks_tri (rowid, title, body)
        VALUES (new.id, {_tri_title("new")}, CASE WHEN new.symbol = 1 THEN '' ELSE new.body END);
END;
"""

# The notes and sessions, newest first and most used first, for the agent hooks' quick reader
# (`quick.QuickReader.documents`: wake-up sections read from a kind's newest few, not across
# every code symbol's document). Partial indexes whose condition only that reader's queries
# spell (`d.kind IN ('note', 'session')`, `access_count > 0`): the store's other plans cannot
# pick them up.
# (Re-runnable: a user_version set back.)
_V14 = """
CREATE INDEX IF NOT EXISTS documents_brief_updated ON documents (kind, updated_at)
    WHERE valid_to IS NULL AND kind IN ('note', 'session');
CREATE INDEX IF NOT EXISTS documents_brief_created ON documents (kind, created_at)
    WHERE valid_to IS NULL AND kind IN ('note', 'session');
CREATE INDEX IF NOT EXISTS documents_brief_accessed ON documents (access_count, last_accessed_at)
    WHERE valid_to IS NULL AND access_count > 0;
"""

# Migration 15: the order of the embedding queue (store/priority.py). Each chunk has a tier,
# lowest embedded first; the pending chunks' index is by tier and id, so a batch is the first
# rows of an index scan instead of a sort of every pending chunk (50k after a first index).
# The step is vectors.py's _prioritize_chunks (re-runnable: a user_version set back).
PENDING_INDEX = "CREATE INDEX chunks_pending ON chunks (priority, id) WHERE embedded = 0"
_V15 = ""

MIGRATIONS: list[str] = [*EARLY_MIGRATIONS, _V10, _V11, _V12, _V13, _V14, _V15]
"""MIGRATIONS[n - 1] brings a store from version n - 1 to version n."""

SCHEMA_VERSION = len(MIGRATIONS)

#: The full-text tables the lexical leg searches: words, and trigrams.
LEXICAL_TABLES = ("chunks_fts", "chunks_tri")
#: Every full-text index: the two above, and the commits' own (migration 10).
FULLTEXT_TABLES = (*LEXICAL_TABLES, "commits_fts")
