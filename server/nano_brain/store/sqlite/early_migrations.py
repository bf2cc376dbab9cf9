"""Migrations 1 to 9: shipped, so never edited (see `migrations`, which lists every one)."""

from __future__ import annotations

_V1 = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    uid          TEXT NOT NULL,
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
CREATE UNIQUE INDEX documents_uid ON documents (uid);
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

# Lifecycle: versions, status, supersede, bitemporal times, access tracking, tombstones, audit.
# Every version of a document is a row sharing its `uid`; the current one has valid_to NULL.
_V2 = """
DROP INDEX documents_uid;
DROP INDEX documents_source;
ALTER TABLE documents ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE documents ADD COLUMN status TEXT NOT NULL DEFAULT 'active'
    CHECK (status IN ('active', 'superseded', 'retracted', 'unreviewed'));
ALTER TABLE documents ADD COLUMN status_changed_at REAL;
ALTER TABLE documents ADD COLUMN superseded_by TEXT;
ALTER TABLE documents ADD COLUMN valid_from REAL;
ALTER TABLE documents ADD COLUMN valid_to REAL;
ALTER TABLE documents ADD COLUMN recorded_at REAL;
ALTER TABLE documents ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN last_accessed_at REAL;
ALTER TABLE documents ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN author TEXT NOT NULL DEFAULT 'cli';
UPDATE documents SET valid_from = created_at, recorded_at = created_at;
CREATE UNIQUE INDEX documents_uid_version ON documents (uid, version);
CREATE UNIQUE INDEX documents_current_uid ON documents (uid) WHERE valid_to IS NULL;
CREATE UNIQUE INDEX documents_source ON documents (workspace_id, source_path)
    WHERE source_path IS NOT NULL AND valid_to IS NULL;
-- A store holds one workspace, so workspace_id leads no index: as a leading column it only
-- misleads the planner into scanning the whole workspace.
DROP INDEX documents_hash;
DROP INDEX documents_created;
DROP INDEX documents_updated;
CREATE INDEX documents_hash ON documents (collection, content_hash) WHERE valid_to IS NULL;
CREATE INDEX documents_created ON documents (created_at);
CREATE INDEX documents_updated ON documents (updated_at);
CREATE INDEX documents_status ON documents (status) WHERE valid_to IS NULL;

CREATE TABLE tombstones (
    workspace_id TEXT NOT NULL,
    source       TEXT NOT NULL,
    doc_uid      TEXT,
    title        TEXT,
    created_at   REAL NOT NULL,
    actor        TEXT NOT NULL,
    PRIMARY KEY (workspace_id, source)
) WITHOUT ROWID;

CREATE TABLE audit_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    at           REAL NOT NULL,
    actor        TEXT NOT NULL,
    action       TEXT NOT NULL,
    doc_uid      TEXT,
    title        TEXT,
    prev_status  TEXT,
    new_status   TEXT,
    details      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_doc ON audit_log (doc_uid, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
    WHEN coalesce((SELECT value FROM meta WHERE key = 'audit_prune'), '') != '1'
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only (use an explicit prune)');
END;
"""

# Code index: files, symbols, edges, and notes anchored to symbols. Rows derived from a file
# carry its workspace id and cascade from it; a symbol's search document (kind 'code') is
# deleted with it by the code store (documents cannot reference code tables: the engine owns
# them). Anchors outlive symbols on purpose: a vanished symbol is how a note becomes stale.
_V3 = """
CREATE TABLE code_files (
    id             INTEGER PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    path           TEXT NOT NULL,
    size           INTEGER NOT NULL,
    mtime_ns       INTEGER NOT NULL,
    sha256         TEXT NOT NULL,
    language       TEXT,
    namespace      TEXT,
    default_export TEXT,
    has_errors     INTEGER NOT NULL DEFAULT 0,
    doc_id         INTEGER REFERENCES documents (id) ON DELETE SET NULL,
    indexed_at     REAL NOT NULL,
    UNIQUE (workspace_id, path)
);

CREATE TABLE code_symbols (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    workspace_id   TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    name           TEXT NOT NULL,
    kind           TEXT NOT NULL,
    parent         TEXT,
    signature      TEXT NOT NULL,
    docstring      TEXT,
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    sha256         TEXT NOT NULL,
    bases          TEXT NOT NULL DEFAULT '',
    doc_id         INTEGER REFERENCES documents (id) ON DELETE SET NULL,
    UNIQUE (workspace_id, qualified_name)
);
CREATE INDEX code_symbols_file ON code_symbols (file_id);
CREATE INDEX code_symbols_name ON code_symbols (workspace_id, name);
CREATE INDEX code_symbols_doc ON code_symbols (doc_id) WHERE doc_id IS NOT NULL;

CREATE TABLE code_edges (
    id            INTEGER PRIMARY KEY,
    file_id       INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    workspace_id  TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('contains', 'imports', 'calls')),
    source        TEXT,
    target        TEXT,
    name          TEXT NOT NULL,
    receiver      TEXT,
    receiver_kind TEXT,
    expression    TEXT,
    module        TEXT,
    alias         TEXT,
    how           TEXT,
    line          INTEGER NOT NULL
);
CREATE INDEX code_edges_file ON code_edges (file_id);
CREATE INDEX code_edges_target ON code_edges (workspace_id, target, kind) WHERE target IS NOT NULL;
CREATE INDEX code_edges_source ON code_edges (workspace_id, source, kind);
CREATE INDEX code_edges_name ON code_edges (workspace_id, name) WHERE kind = 'calls';

CREATE TABLE code_anchors (
    id             INTEGER PRIMARY KEY,
    workspace_id   TEXT NOT NULL,
    doc_uid        TEXT NOT NULL,
    path           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    symbol_sha256  TEXT NOT NULL,
    created_at     REAL NOT NULL,
    UNIQUE (workspace_id, doc_uid, qualified_name)
);
CREATE INDEX code_anchors_symbol ON code_anchors (workspace_id, qualified_name);
-- a note's anchors go when its last version goes
CREATE TRIGGER code_anchors_doc_ad AFTER DELETE ON documents
    WHEN NOT EXISTS (SELECT 1 FROM documents WHERE uid = old.uid)
BEGIN
    DELETE FROM code_anchors WHERE doc_uid = old.uid;
END;
"""

# Code index: 'assigns' edges (Python `x = Cls()`, `self.a = Cls()`), which let the resolver
# type receivers without re-parsing. SQLite cannot alter a CHECK: rebuild the table, and clear
# the files' hashes so the next index re-parses every file once and records its assignments
# (symbols whose text is unchanged keep their search documents).
_V4 = """
CREATE TABLE code_edges_v4 (
    id            INTEGER PRIMARY KEY,
    file_id       INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    workspace_id  TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('contains', 'imports', 'calls', 'assigns')),
    source        TEXT,
    target        TEXT,
    name          TEXT NOT NULL,
    receiver      TEXT,
    receiver_kind TEXT,
    expression    TEXT,
    module        TEXT,
    alias         TEXT,
    how           TEXT,
    line          INTEGER NOT NULL
);
INSERT INTO code_edges_v4 SELECT id, file_id, workspace_id, kind, source, target, name, receiver,
    receiver_kind, expression, module, alias, how, line FROM code_edges;
DROP TABLE code_edges;
ALTER TABLE code_edges_v4 RENAME TO code_edges;
CREATE INDEX code_edges_file ON code_edges (file_id);
CREATE INDEX code_edges_target ON code_edges (workspace_id, target, kind) WHERE target IS NOT NULL;
CREATE INDEX code_edges_source ON code_edges (workspace_id, source, kind);
CREATE INDEX code_edges_name ON code_edges (workspace_id, name) WHERE kind = 'calls';
UPDATE code_files SET sha256 = '', mtime_ns = -1 WHERE language IS NOT NULL;
"""

# Symbol chunks (``chunks.symbol = 1``) are put into the lexical indexes by the code store, one
# INSERT ... SELECT per file: a trigger per row made full-text indexing several times slower,
# and it dominated a cold index. Their trigram rows hold the title (the qualified name) only:
# the words of a body are found through chunks_fts, and trigram bodies doubled the store. The
# trigram index reads its content through a view that says so, which keeps FTS5's 'rebuild'
# and 'integrity-check' meaningful; it is rebuilt once here.
# The call-edge indexes cover calls only (nothing looks other edges up by name, source or
# target) and drop the leading workspace_id, constant within a store: a third of their size.
_V5 = """
DROP INDEX code_edges_target;
DROP INDEX code_edges_source;
DROP INDEX code_edges_name;
CREATE INDEX code_edges_target ON code_edges (target) WHERE kind = 'calls' AND target IS NOT NULL;
CREATE INDEX code_edges_source ON code_edges (source) WHERE kind = 'calls';
CREATE INDEX code_edges_name ON code_edges (name) WHERE kind = 'calls';
ALTER TABLE chunks ADD COLUMN symbol INTEGER NOT NULL DEFAULT 0;
UPDATE chunks SET symbol = 1 WHERE doc_id IN (
    SELECT id FROM documents WHERE kind = 'code' AND source_path LIKE 'code://%'
);
DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_ad;
DROP TRIGGER chunks_au;
DROP TABLE chunks_tri;
CREATE VIEW chunks_tri_content AS
    SELECT id, title, CASE WHEN symbol = 1 THEN '' ELSE body END AS body FROM chunks;
CREATE VIRTUAL TABLE chunks_tri USING fts5 (
    title, body, content = 'chunks_tri_content', content_rowid = 'id', tokenize = 'trigram'
);
INSERT INTO chunks_tri (chunks_tri) VALUES ('rebuild');
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks WHEN new.symbol = 0 BEGIN
    INSERT INTO chunks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO chunks_tri (rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, old.title, CASE WHEN old.symbol = 1 THEN '' ELSE old.body END);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF title, body ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO chunks_tri (chunks_tri, rowid, title, body)
        VALUES ('delete', old.id, old.title, CASE WHEN old.symbol = 1 THEN '' ELSE old.body END);
    INSERT INTO chunks_fts (rowid, title, body) VALUES (new.id, new.title, new.body);
    INSERT INTO chunks_tri (rowid, title, body)
        VALUES (new.id, new.title, CASE WHEN new.symbol = 1 THEN '' ELSE new.body END);
END;
"""

# The k-NN index (vec_chunks) gains a partition key, code or not, so that a search of notes
# and sessions never walks the code index's vectors (77k for a stdlib-sized repository, where
# a workspace has a few thousand notes). The index exists only once an embedding model is
# recorded and its column type follows the model's dimension, so the rebuild is a Python step
# (store.Store._partition_vector_index) run right after this script, in its transaction.
_V6 = """
-- see store.Store._partition_vector_index
"""

# Status history and an audit log that stays append-only.
# - status_changes: one row per status change (who, when, from what to what), so an "as of"
#   read finds the status a document had then (documents keep only the current one). Rebuilt
#   here from the audit log's supersede/retract/confirm rows; where the log was pruned, the
#   last change is taken from the documents themselves (before it, the default status).
# - audit_log: an INSERT OR REPLACE with an existing id used to delete the old row without
#   firing the delete trigger; now no insert may take an id at or below the highest ever
#   given (AUTOINCREMENT's sqlite_sequence) or one that exists. Deletes were allowed while a
#   flag in meta was set, which any writer could set; now only while the connection-local
#   function nano_brain_audit_prune() says so (Store.prune_audit), and a connection that does
#   not define it cannot delete at all.
# It may be applied again to a store that has it (a user_version set back): nothing is doubled.
_V7 = """
CREATE TABLE IF NOT EXISTS status_changes (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id       TEXT NOT NULL,
    doc_uid            TEXT NOT NULL,
    at                 REAL NOT NULL,
    actor              TEXT NOT NULL,
    status             TEXT NOT NULL,
    superseded_by      TEXT,
    prev_status        TEXT NOT NULL,
    prev_superseded_by TEXT
);
CREATE INDEX IF NOT EXISTS status_changes_doc ON status_changes (doc_uid, at);
-- a document's history goes when its last version goes
CREATE TRIGGER IF NOT EXISTS status_changes_doc_ad AFTER DELETE ON documents
    WHEN NOT EXISTS (SELECT 1 FROM documents WHERE uid = old.uid)
BEGIN
    DELETE FROM status_changes WHERE doc_uid = old.uid;
END;

INSERT INTO status_changes (workspace_id, doc_uid, at, actor, status, superseded_by,
                            prev_status, prev_superseded_by)
SELECT workspace_id, doc_uid, at, actor, new_status, successor, prev_status,
       CASE WHEN action = 'supersede' THEN previous
            ELSE lag(successor) OVER (PARTITION BY doc_uid ORDER BY id) END
FROM (
    SELECT a.id, a.workspace_id, a.doc_uid, a.at, a.actor, a.action, a.new_status,
           coalesce(a.prev_status, 'active') AS prev_status,
           CASE WHEN a.action = 'supersede'
                THEN json_extract(a.details, '$.superseded_by') END AS successor,
           json_extract(a.details, '$.previous_successor') AS previous
    FROM audit_log a
    WHERE a.action IN ('supersede', 'retract', 'confirm') AND a.new_status IS NOT NULL
      AND EXISTS (SELECT 1 FROM documents d WHERE d.uid = a.doc_uid)
      AND NOT EXISTS (SELECT 1 FROM status_changes s WHERE s.doc_uid = a.doc_uid)
)
ORDER BY id;

INSERT INTO status_changes (workspace_id, doc_uid, at, actor, status, superseded_by,
                            prev_status, prev_superseded_by)
SELECT d.workspace_id, d.uid, d.status_changed_at, 'unknown', d.status, d.superseded_by,
       coalesce((SELECT s.status FROM status_changes s WHERE s.doc_uid = d.uid
                 ORDER BY s.at DESC, s.id DESC LIMIT 1), 'active'),
       (SELECT s.superseded_by FROM status_changes s WHERE s.doc_uid = d.uid
        ORDER BY s.at DESC, s.id DESC LIMIT 1)
FROM documents d
WHERE d.valid_to IS NULL AND d.status_changed_at IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM status_changes s
                  WHERE s.doc_uid = d.uid AND s.at >= d.status_changed_at);

DROP TRIGGER IF EXISTS audit_log_no_delete;
DELETE FROM meta WHERE key = 'audit_prune';
CREATE TRIGGER IF NOT EXISTS audit_log_no_reuse BEFORE INSERT ON audit_log
    WHEN new.id > 0 AND (
        new.id <= coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'), 0)
        OR EXISTS (SELECT 1 FROM audit_log WHERE id = new.id))
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only: its ids are never reused');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
    WHEN NOT nano_brain_audit_prune()
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only (only a logged prune removes rows)');
END;
"""

# Threads: notes written one after another by one writer (an MCP session, an editor sidecar,
# a script) into one collection, without a long pause, share a thread; `thread_seq` orders
# them. Search lends a note's relevance to its neighbours in the thread, as a reader of a
# conversation reads a reply together with what it answers.
# The k-NN index is split per embedding space (text: notes and sessions; code), each
# partitioned by kind and collection with the times as metadata, so those filters are applied
# inside the index scan; rebuilt from the stored vectors by store.VectorStore._split_vector_spaces.
# The columns are added by that Python step too, only when missing: like migration 7 this one
# may be applied again to a store that has it (a user_version set back).
_V8 = """
-- see store.VectorStore._split_vector_spaces
"""

# HTTP routes and consolidation proposals.
# - code_route_facts: what one source file declares about routes (a route with its handler, a
#   router and its prefix, a mount, an export; see codeindex/_routes.py), going with the file;
# - code_routes: the routes linked across files (prefixes of routers and mounts applied,
#   handlers resolved to symbols), replaced whole after each index run that changed files;
# - consolidation_proposals: near-duplicate or contradicting notes and what to do with them
#   (supersede the older, write a merged note, keep both), waiting for review or applied.
# Source files are parsed again once (their hashes are cleared, as migration 4 did) so that
# their route facts are recorded; symbols whose text did not change keep their documents.
# Like 7 and 8, it may be applied again to a store that has it.
_V9 = """
CREATE TABLE IF NOT EXISTS code_route_facts (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('route', 'router', 'mount', 'export')),
    framework    TEXT NOT NULL,
    method       TEXT,
    path         TEXT,
    owner        TEXT,
    target       TEXT,
    handler      TEXT,
    scope        TEXT,
    line         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS code_route_facts_file ON code_route_facts (file_id);
CREATE TABLE IF NOT EXISTS code_routes (
    id           INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    file_id      INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    framework    TEXT NOT NULL,
    method       TEXT NOT NULL,
    path         TEXT NOT NULL,
    handler      TEXT,
    handler_expr TEXT NOT NULL,
    line         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS code_routes_handler ON code_routes (handler) WHERE handler IS NOT NULL;
CREATE INDEX IF NOT EXISTS code_routes_file ON code_routes (file_id);
CREATE TABLE IF NOT EXISTS consolidation_proposals (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    created_at   REAL NOT NULL,
    action       TEXT NOT NULL CHECK (action IN ('supersede', 'merge', 'keep')),
    cluster      TEXT NOT NULL,
    members      TEXT NOT NULL,
    survivor     TEXT,
    title        TEXT,
    content      TEXT,
    reason       TEXT NOT NULL,
    score        REAL NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'applied', 'dismissed', 'stale')),
    decided_at   REAL,
    actor        TEXT,
    result       TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS consolidation_proposals_cluster
    ON consolidation_proposals (workspace_id, cluster);
CREATE INDEX IF NOT EXISTS consolidation_proposals_status
    ON consolidation_proposals (status, id);
UPDATE code_files SET sha256 = '', mtime_ns = -1 WHERE language IS NOT NULL;
"""


EARLY_MIGRATIONS: list[str] = [_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9]
"""EARLY_MIGRATIONS[n - 1] brings a store from version n - 1 to version n."""
