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

from .spaces import SPACES, space_of_kind

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
        for row in docs:
            old_id, values = row[0], list(row[1:])
            if (values[0], int(values[10])) in have:
                done.skipped_documents += 1
                continue
            new_id = target._insert(
                f"INSERT INTO documents (workspace_id, {_DOC}) VALUES ({_marks(24)})",
                (ws_to, *values),
            )
            done.documents += 1
            for (tag,) in source._rows("SELECT tag FROM document_tags WHERE doc_id = ?", (old_id,)):
                target._exec(
                    "INSERT INTO document_tags (doc_id, workspace_id, tag) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (new_id, ws_to, tag),
                )
            done.chunks += _copy_chunks(source, target, old_id, new_id, values[1], models, done)
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


def _copy_chunks(
    source: SqlStore,
    target: SqlStore,
    old_id: int,
    new_id: int,
    kind: str,
    models: dict[str, bool],
    done: Copied,
) -> int:
    rows = source._rows(
        f"SELECT id, embedded, {_CHUNK} FROM chunks WHERE doc_id = ? ORDER BY seq", (old_id,)
    )
    space = space_of_kind(kind)
    pairs: list[tuple[int, int]] = []
    for row in rows:
        chunk_id = target._insert(
            f"INSERT INTO chunks (doc_id, workspace_id, {_CHUNK}) VALUES ({_marks(8)})",
            (new_id, target.workspace_id, *row[2:]),
        )
        if row[1] and models.get(space):
            pairs.append((row[0], chunk_id))
    if pairs:
        found = source.vectors_by_chunk([old for old, _ in pairs])
        items = [(new, new_id, found[old]) for old, new in pairs if old in found]
        done.vectors += target.store_vectors(items, space=space)
    return len(rows)


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
