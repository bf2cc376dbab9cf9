"""Copy one workspace's memory from a store into another (SQLite to a team's PostgreSQL and
back), keeping what identifies and explains it: document ids (uid) and versions, statuses and
their history, tags, chunks, vectors (when both stores use the same model), tombstones,
anchors, consolidation proposals and the audit log with its times and actors.

Internal row ids are the target's own (a team database numbers rows across workspaces). Running
it again copies only what is missing: a version already there (same uid and version), a
status change, tombstone, anchor, proposal or audit row already there is skipped. Code
and commit documents stay behind: the code index and the git history are local to each clone
and are rebuilt by `nano-brain index`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .documents import PARAMS_PER_STATEMENT
from .spaces import SPACES, Space, space_of_kind

if TYPE_CHECKING:
    from .interface import SqlStore

_DOC = (
    "uid, kind, collection, title, content, content_hash, source_path, metadata, created_at, "
    "updated_at, version, status, status_changed_at, superseded_by, valid_from, valid_to, "
    "recorded_at, access_count, last_accessed_at, pinned, author, thread, thread_seq"
)
_CHUNK = "seq, title, body, heading, start_line, end_line"
_STATUS = "doc_uid, at, actor, status, superseded_by, prev_status, prev_superseded_by"
_TOMB = "source, doc_uid, title, created_at, actor"
_AUDIT = "at, actor, action, doc_uid, title, prev_status, new_status, details"
_ANCHOR = "doc_uid, path, qualified_name, symbol_sha256, created_at"
_PROPOSAL = (
    "created_at, action, cluster, members, survivor, title, content, reason, score, status, "
    "decided_at, actor, result"
)
_BATCH = 200


@dataclass
class Copied:
    documents: int = 0
    skipped_documents: int = 0
    chunks: int = 0
    vectors: int = 0
    status_changes: int = 0
    tombstones: int = 0
    audit_rows: int = 0
    anchors: int = 0
    proposals: int = 0
    models: dict[str, str] = field(default_factory=dict)


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _batches(rows: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(rows), _BATCH):
        yield rows[start : start + _BATCH]


def copy_memory(source: SqlStore, target: SqlStore) -> Copied:
    """Copy `source`'s workspace into `target`'s (see the module); one transaction."""
    done = Copied()
    ws_from, ws_to = source.workspace_id, target.workspace_id
    with target.transaction():
        if target.dialect.name == "postgresql":  # copied rows keep no migrator as their author
            target._rows("SELECT set_config('nano_brain.person', '', true)")
        models = _models(source, target, done)
        have = {
            (r[0], int(r[1]))
            for r in target._rows(
                "SELECT uid, version FROM documents WHERE workspace_id = ?", (ws_to,)
            )
        }
        docs = source._rows(
            f"SELECT id, {_DOC} FROM documents WHERE workspace_id = ? "
            "AND kind NOT IN ('code', 'commit') ORDER BY id",
            (ws_from,),
        )
        todo = [r for r in docs if (r[1], int(r[11])) not in have]
        done.skipped_documents = len(docs) - len(todo)
        for batch in _batches(todo):
            _copy_documents(source, target, batch, models, done)
        done.status_changes = _copy_missing(
            source, target, "status_changes", _STATUS, key=(0, 1, 3)
        )
        done.audit_rows = _copy_missing(source, target, "audit_log", _AUDIT, key=(0, 1, 2, 3, 7))
        for row in source._rows(
            f"SELECT {_TOMB} FROM tombstones WHERE workspace_id = ?", (ws_from,)
        ):
            cursor = target._exec(
                f"INSERT INTO tombstones (workspace_id, {_TOMB}) VALUES ({_marks(6)}) "
                "ON CONFLICT (workspace_id, source) DO NOTHING",
                (ws_to, *row),
            )
            done.tombstones += max(cursor.rowcount, 0)
        for row in source._rows(
            f"SELECT {_ANCHOR} FROM code_anchors WHERE workspace_id = ?", (ws_from,)
        ):
            cursor = target._exec(
                f"INSERT INTO code_anchors (workspace_id, {_ANCHOR}) VALUES ({_marks(6)}) "
                "ON CONFLICT (workspace_id, doc_uid, qualified_name) DO NOTHING",
                (ws_to, *row),
            )
            done.anchors += max(cursor.rowcount, 0)
        for row in source._rows(
            f"SELECT {_PROPOSAL} FROM consolidation_proposals WHERE workspace_id = ? ORDER BY id",
            (ws_from,),
        ):
            cursor = target._exec(
                f"INSERT INTO consolidation_proposals (workspace_id, {_PROPOSAL}) "
                f"VALUES ({_marks(14)}) ON CONFLICT (workspace_id, cluster) DO NOTHING",
                (ws_to, *row),
            )
            done.proposals += max(cursor.rowcount, 0)
    target.analyze()  # the copied rows change the workspace's statistics a great deal
    return done


def _models(source: SqlStore, target: SqlStore, done: Copied) -> dict[str, bool]:
    """Per space, whether vectors can be copied: the target records the source's model when
    it has none; a different model there means its chunks are embedded again."""
    usable: dict[str, bool] = {}
    for space in SPACES:
        model = source.vector_model(space)
        if model is None:
            usable[space] = False
            continue
        there = target.vector_model(space)
        if there is None:
            target.reset_vectors(model[0], model[1], space=space)
            there = model
        usable[space] = there == model
        done.models[space] = f"{model[0]} ({'copied' if usable[space] else 're-embed'})"
    return usable


def _copy_documents(
    source: SqlStore, target: SqlStore, rows: list[Any], models: dict[str, bool], done: Copied
) -> None:
    """Copy a batch of documents with their tags, chunks and vectors, each table in a few
    statements: per-statement triggers (the team store's word counts and chunk statistics)
    then run once a batch, not once a row. Row by row in one transaction, those counters'
    rows grew a version per row and the copy slowed quadratically (100k documents: hours)."""
    ws = target.workspace_id
    width = len(_DOC.split(","))
    new_ids: dict[tuple[str, int], int] = {}
    for group in _groups(rows, width + 1):
        found = target._rows(
            f"INSERT INTO documents (workspace_id, {_DOC}) VALUES "
            + ",".join(f"({_marks(width + 1)})" for _ in group)
            + " RETURNING id, uid, version",
            [v for r in group for v in (ws, *r[1:])],
        )
        new_ids.update({(r[1], int(r[2])): int(r[0]) for r in found})
    ids = {int(r[0]): new_ids[(r[1], int(r[11]))] for r in rows}  # source id -> target id
    kinds = {int(r[0]): r[2] for r in rows}
    done.documents += len(rows)
    old = list(ids)
    tags = source._rows(
        f"SELECT doc_id, tag FROM document_tags WHERE doc_id IN ({_marks(len(old))})", old
    )
    for group in _groups(tags, 3):
        target._exec(
            "INSERT INTO document_tags (doc_id, workspace_id, tag) VALUES "
            + ",".join("(?, ?, ?)" for _ in group)
            + " ON CONFLICT DO NOTHING",
            [v for doc_id, tag in group for v in (ids[doc_id], ws, tag)],
        )
    chunks = source._rows(
        f"SELECT id, doc_id, embedded, {_CHUNK} FROM chunks WHERE doc_id IN ({_marks(len(old))}) "
        "ORDER BY doc_id, seq",
        old,
    )
    new_chunks: dict[tuple[int, int], int] = {}
    for group in _groups(chunks, 8):
        found = target._rows(
            f"INSERT INTO chunks (doc_id, workspace_id, {_CHUNK}) VALUES "
            + ",".join(f"({_marks(8)})" for _ in group)
            + " RETURNING id, doc_id, seq",
            [v for r in group for v in (ids[r[1]], ws, *r[3:])],
        )
        new_chunks.update({(int(r[1]), int(r[2])): int(r[0]) for r in found})
    done.chunks += len(chunks)
    by_space: dict[Space, list[tuple[int, int, int]]] = {}
    for r in chunks:
        space = space_of_kind(kinds[r[1]])
        if r[2] and models.get(space):
            new_doc = ids[r[1]]
            by_space.setdefault(space, []).append((r[0], new_chunks[(new_doc, r[3])], new_doc))
    for space, pairs in by_space.items():
        vectors = source.vectors_by_chunk([p[0] for p in pairs])
        items = [(new, doc, vectors[old]) for old, new, doc in pairs if old in vectors]
        done.vectors += target.store_vectors(items, space=space)


def _groups(rows: list[Any], width: int) -> Iterator[list[Any]]:
    """Rows in groups small enough for one statement's parameters."""
    step = max(1, PARAMS_PER_STATEMENT // width)
    for start in range(0, len(rows), step):
        yield rows[start : start + step]


def _copy_missing(
    source: SqlStore, target: SqlStore, table: str, columns: str, key: tuple[int, ...]
) -> int:
    """Append the rows of `table` the target lacks (compared on the `key` columns), in the
    source's order."""
    seen = {
        tuple(r[i] for i in key)
        for r in target._rows(
            f"SELECT {columns} FROM {table} WHERE workspace_id = ?", (target.workspace_id,)
        )
    }
    count = 0
    width = len(columns.split(","))
    for row in source._rows(
        f"SELECT {columns} FROM {table} WHERE workspace_id = ? ORDER BY id",
        (source.workspace_id,),
    ):
        if tuple(row[i] for i in key) in seen:
            continue
        target._exec(
            f"INSERT INTO {table} (workspace_id, {columns}) VALUES ({_marks(width + 1)})",
            (target.workspace_id, *row),
        )
        count += 1
    return count
