"""Numbered, forward-only schema migrations; each runs in the transaction that records it.

`PRAGMA user_version` holds the number of the last migration applied. Add a migration by
appending to `MIGRATIONS`; never edit one that has shipped.
"""

from __future__ import annotations

_V1 = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    uid          TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('note', 'session', 'code')),
    collection   TEXT NOT NULL,
    title        TEXT NOT NULL,
    content      TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    source_path  TEXT,
    metadata     TEXT NOT NULL DEFAULT '{}',
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL
);
CREATE UNIQUE INDEX documents_source ON documents (workspace_id, source_path)
    WHERE source_path IS NOT NULL;
CREATE INDEX documents_hash ON documents (workspace_id, collection, content_hash);
CREATE INDEX documents_created ON documents (workspace_id, created_at);
CREATE INDEX documents_updated ON documents (workspace_id, updated_at);

CREATE TABLE document_tags (
    doc_id       INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    tag          TEXT NOT NULL,
    PRIMARY KEY (doc_id, tag)
) WITHOUT ROWID;
CREATE INDEX document_tags_tag ON document_tags (tag, doc_id);

CREATE TABLE chunks (
    id           INTEGER PRIMARY KEY,
    doc_id       INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    heading      TEXT NOT NULL DEFAULT '',
    start_line   INTEGER NOT NULL,
    end_line     INTEGER NOT NULL,
    embedded     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (doc_id, seq)
);
CREATE INDEX chunks_pending ON chunks (id) WHERE embedded = 0;

-- Lexical leg: words (porter-stemmed), and trigrams for CJK and identifier fragments.
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    title, body, content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE chunks_tri USING fts5 (
    title, body, content = 'chunks', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO chunks_tri (rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF title, body ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO chunks_tri (rowid, title, body) VALUES (new.id, new.title, new.body);
END;

-- Full-precision vectors (for rescoring); the vec0 index over them is created per model.
CREATE TABLE chunk_vectors (
    chunk_id     INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
    doc_id       INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    embedding    BLOB NOT NULL
);
CREATE INDEX chunk_vectors_doc ON chunk_vectors (doc_id);
"""

MIGRATIONS: list[str] = [_V1]
"""MIGRATIONS[n - 1] brings a store from version n - 1 to version n."""

SCHEMA_VERSION = len(MIGRATIONS)
