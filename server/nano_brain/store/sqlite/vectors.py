"""The SQLite dialect's vectors: full vectors, the quantized k-NN indexes, pending chunks.

The k-NN indexes are sqlite-vec `vec0` tables of binary-quantized vectors, one per embedding
space (``text``: `vec_chunks`, ``code``: `vec_code`), partitioned by document kind and
collection, with creation and update times as metadata columns: the filters agents use most
(kind, collection, time range) are applied inside the index scan, so a filter that excludes
the query's nearest neighbours does not make k-NN widen again and again. Other filters (tags,
status, versions, as-of) are applied afterwards on the few candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...errors import StoreError
from ...filters import Filters
from .. import priority
from ..predicate import time_bounds
from ..rows import PendingChunk
from ..spaces import (
    IN_SPACE,
    KIND_KEYS,
    KIND_SQL,
    MAX_K,
    SPACES,
    Space,
    VectorModels,
    collection_key,
    space_of_kind,
)
from .migrations import PENDING_INDEX

if TYPE_CHECKING:
    import numpy as np  # imported where vectors are read or written, not on every open

    from ._host import StoreHost as Store

_TABLES: dict[Space, str] = {"text": "vec_chunks", "code": "vec_code"}


class VectorStore(VectorModels):
    """Mixed into `Store`: everything about vectors (uses the store's connection and lock)."""

    def reset_vectors(
        self: Store, model: str, dim: int, *, space: Space = "text", only_if_absent: bool = False
    ) -> None:
        """Drop a space's vectors and (re)create its index for `model`; its chunks become
        pending. With `only_if_absent`, do nothing when another process recorded a model first.
        """
        table = _TABLES[space]
        with self.transaction():
            if only_if_absent and self.vector_model(space) is not None:
                return
            self._exec(f"DROP TRIGGER IF EXISTS {table}_ad")
            self._exec(f"DROP TABLE IF EXISTS {table}")
            in_space = f"SELECT d.id FROM documents d WHERE {IN_SPACE[space]}"
            self._exec(f"DELETE FROM chunk_vectors WHERE doc_id IN ({in_space})")
            # lexical-only chunks stay so: a new model changes no choice of what is embedded
            self._exec(
                f"UPDATE chunks SET embedded = {priority.PENDING} "
                f"WHERE embedded = {priority.EMBEDDED} AND doc_id IN ({in_space})"
            )
            self._create_vector_index(space, dim)
            self._record_model(space, model, dim)

    def _create_vector_index(self: Store, space: Space, dim: int) -> None:
        table = _TABLES[space]
        self._exec(
            f"CREATE VIRTUAL TABLE {table} USING vec0 (chunk_id INTEGER PRIMARY KEY, "
            "kind INTEGER PARTITION KEY, coll INTEGER PARTITION KEY, "
            f"created_at FLOAT, updated_at FLOAT, embedding {_vec_type(dim)})"
        )
        self._exec(
            f"CREATE TRIGGER IF NOT EXISTS {table}_ad AFTER DELETE ON chunk_vectors BEGIN "
            f"DELETE FROM {table} WHERE chunk_id = old.chunk_id; END"
        )

    def _fill_vector_index(self: Store, space: Space, dim: int) -> None:
        """Index every stored full vector of a space (used by migrations: nothing is
        embedded again)."""
        self._db.create_function("nb_collection_key", 1, collection_key, deterministic=True)
        self._exec(
            f"INSERT INTO {_TABLES[space]} "
            "(chunk_id, kind, coll, created_at, updated_at, embedding) "
            f"SELECT v.chunk_id, {KIND_SQL}, nb_collection_key(d.collection), d.created_at, "
            f"d.updated_at, {_quantizer(dim)}(v.embedding) "
            f"FROM chunk_vectors v JOIN documents d ON d.id = v.doc_id WHERE {IN_SPACE[space]}"
        )

    def _split_vector_spaces(self: Store) -> None:
        """Migration 7: one k-NN index per space, partitioned by kind and collection, with
        times as metadata. Code vectors keep the model that made them (the text model until
        now); the Brain re-embeds them when another code model is configured. Also adds the
        documents' thread columns (see early_migrations._V8)."""
        columns = {r[1] for r in self._rows("PRAGMA table_info(documents)")}
        for column, kind in (("thread", "TEXT"), ("thread_seq", "INTEGER")):
            if column not in columns:
                self._exec(f"ALTER TABLE documents ADD COLUMN {column} {kind}")
        self._exec(
            "CREATE INDEX IF NOT EXISTS documents_thread ON documents (thread, thread_seq) "
            "WHERE thread IS NOT NULL"
        )
        # symbol chunks now hold the symbol's source (and their callee text changed): every
        # code file is parsed again by the next index run
        if self._rows("SELECT 1 FROM sqlite_master WHERE name = 'code_files'"):
            self._exec(
                "UPDATE code_files SET sha256 = '', mtime_ns = -1 WHERE language IS NOT NULL"
            )
        self._exec("DROP TRIGGER IF EXISTS chunk_vectors_ad")
        for table in _TABLES.values():
            self._exec(f"DROP TRIGGER IF EXISTS {table}_ad")
            self._exec(f"DROP TABLE IF EXISTS {table}")
        model = self.vector_model("text")
        if model is None:
            return  # no index yet: reset_vectors creates each space's index on first use
        has_code = self._rows(
            "SELECT 1 FROM chunk_vectors v JOIN documents d ON d.id = v.doc_id "
            "WHERE d.kind = 'code' LIMIT 1"
        )
        for space in SPACES:
            if space == "code" and not has_code:
                continue
            self._create_vector_index(space, model[1])
            self._fill_vector_index(space, model[1])
            self._record_model(space, model[0], model[1])

    def _prioritize_chunks(self: Store) -> None:
        """Migration 15: a tier per chunk (see store/priority.py; notes and sessions keep
        the default): commits, the code's tier by its file's path, prose files as code; and
        the pending chunks' index by tier."""
        columns = {r[1] for r in self._rows("PRAGMA table_info(chunks)")}
        if "priority" not in columns:
            self._exec("ALTER TABLE chunks ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
        self._exec("DROP INDEX IF EXISTS chunks_pending")
        self._exec(PENDING_INDEX)
        self._exec(f"UPDATE chunks SET priority = {priority.COMMIT} WHERE symbol = 2")
        code = "SELECT id FROM documents WHERE kind = 'code'"
        self._exec(f"UPDATE chunks SET priority = {priority.CODE} WHERE doc_id IN ({code})")
        if not self._rows("SELECT 1 FROM sqlite_master WHERE name = 'code_files'"):
            return
        paths = self._rows(
            "SELECT s.doc_id, f.path FROM code_symbols s JOIN code_files f ON f.id = s.file_id "
            "WHERE s.doc_id IS NOT NULL UNION ALL "
            "SELECT doc_id, path FROM code_files WHERE doc_id IS NOT NULL"
        )
        tests = [(priority.TEST, doc) for doc, path in paths if priority.is_test_path(path)]
        self._db.executemany("UPDATE chunks SET priority = ? WHERE doc_id = ?", tests)

    # -- pending chunks ------------------------------------------------------------------

    def pending_chunks(
        self: Store, limit: int, space: Space = "text", *, max_priority: int | None = None
    ) -> list[PendingChunk]:
        """Chunks of a space that have no vector yet: by tier (store/priority.py), then in
        the order they were written; with `max_priority`, only tiers up to it."""
        # CROSS JOIN: walk the pending chunks' index in its order, stop at `limit`
        below = "" if max_priority is None else f" AND c.priority <= {int(max_priority)}"
        rows = self._rows(
            "SELECT c.id, c.doc_id, c.title, c.heading, c.body, c.symbol FROM chunks c "
            f"CROSS JOIN documents d ON d.id = c.doc_id WHERE c.embedded = 0{below} "
            f"AND {IN_SPACE[space]} ORDER BY c.priority, c.id LIMIT ?",
            (limit,),
        )
        return [PendingChunk(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]

    def prioritize_pending(self: Store, paths: Sequence[str], tier: int) -> int:
        """Move the pending chunks of these code files (workspace-relative) up to `tier`;
        returns how many moved (chunks already at or above it stay)."""
        if not paths or not self._rows("SELECT 1 FROM sqlite_master WHERE name = 'code_files'"):
            return 0
        moved = 0
        unique = list(dict.fromkeys(paths))
        with self.transaction():
            for start in range(0, len(unique), 400):
                part = unique[start : start + 400]
                marks = ",".join("?" * len(part))
                files = f"SELECT id FROM code_files WHERE workspace_id = ? AND path IN ({marks})"
                cursor = self._exec(
                    "UPDATE chunks SET priority = ? WHERE embedded = 0 AND priority > ? AND "
                    f"doc_id IN (SELECT doc_id FROM code_symbols WHERE file_id IN ({files}) "
                    f"UNION ALL SELECT doc_id FROM code_files WHERE id IN ({files}))",
                    (tier, tier, self.workspace_id, *part, self.workspace_id, *part),
                )
                moved += max(cursor.rowcount, 0)
        return moved

    def pending_tiers(self: Store) -> dict[int, int]:
        """Chunks waiting for a vector, per tier (read off the pending chunks' index)."""
        rows = self._rows(
            f"SELECT priority, count(*) FROM chunks WHERE embedded = {priority.PENDING} "
            "GROUP BY priority"
        )
        return {int(tier): int(n) for tier, n in rows}

    def set_test_vectors(self: Store, wanted: bool) -> int:
        """Test code's chunks get vectors (``wanted``) or stay lexical only; returns how many
        chunks changed. Cheap when nothing changed: the choice last made is kept in meta,
        and test chunks written since, all pending, are found by the pending index."""
        before = self.meta_get(priority.TEST_VECTORS_KEY)
        with self.transaction():
            if wanted:
                if before in (None, "1"):
                    return 0  # never set aside
                cursor = self._exec(
                    f"UPDATE chunks SET embedded = {priority.PENDING} "
                    f"WHERE embedded = {priority.LEXICAL_ONLY} AND priority = {priority.TEST}"
                )
            else:
                cursor = self._exec(
                    f"UPDATE chunks SET embedded = {priority.LEXICAL_ONLY} "
                    f"WHERE embedded = {priority.PENDING} AND priority = {priority.TEST}"
                )
            value = "1" if wanted else "0"
            if before != value:
                self.meta_set(priority.TEST_VECTORS_KEY, value)
        return int(cursor.rowcount or 0)

    def pending_count(self: Store, space: Space | None = None) -> int:
        if space is None:
            return int(self._rows("SELECT count(*) FROM chunks WHERE embedded = 0")[0][0])
        return int(
            self._rows(
                "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE c.embedded = 0 AND {IN_SPACE[space]}"
            )[0][0]
        )

    def copy_vectors(self: Store, from_doc: int, to_doc: int) -> int:
        """Give a new version's chunks the vectors of identical chunks of the version before
        (same title, heading and text): an edit re-embeds only what changed."""
        import numpy as np

        pairs = self._rows(
            "SELECT n.id, o.id FROM chunks n JOIN chunks o ON o.doc_id = ? AND o.embedded = 1 "
            "AND o.body = n.body AND o.title = n.title AND o.heading = n.heading "
            "WHERE n.doc_id = ? AND n.embedded = 0",
            (from_doc, to_doc),
        )
        if not pairs:
            return 0
        doc = self._rows("SELECT kind FROM documents WHERE id = ?", (to_doc,))
        space = space_of_kind(doc[0][0]) if doc else "text"
        old = dict(
            self._rows(
                f"SELECT chunk_id, embedding FROM chunk_vectors "
                f"WHERE chunk_id IN ({','.join('?' * len(pairs))})",
                [o for _, o in pairs],
            )
        )
        items = [
            (new, to_doc, np.frombuffer(old[o], dtype=np.float32)) for new, o in pairs if o in old
        ]
        return self.store_vectors(items, space=space)

    # -- writing and reading vectors ---------------------------------------------------------

    def store_vectors(
        self: Store, items: Sequence[tuple[int, int, np.ndarray]], *, space: Space = "text"
    ) -> int:
        """Save unit vectors for chunks that still exist; returns how many were stored."""
        import numpy as np

        model = self.vector_model(space)
        if model is None:
            raise StoreError(f"no {space} embedding model is recorded in the store")
        table, quantize = _TABLES[space], _quantizer(model[1])
        docs = self._doc_keys({doc_id for _, doc_id, _ in items})
        stored = 0
        with self.transaction():
            for chunk_id, doc_id, vector in items:
                keys = docs.get(doc_id)
                if keys is None:
                    continue  # the document was deleted while we embedded it
                blob = np.asarray(vector, dtype=np.float32).tobytes()
                cursor = self._exec(
                    "INSERT OR REPLACE INTO chunk_vectors "
                    "(chunk_id, doc_id, workspace_id, embedding) "
                    "SELECT id, doc_id, workspace_id, ? FROM chunks WHERE id = ? AND doc_id = ?",
                    (blob, chunk_id, doc_id),
                )
                if cursor.rowcount != 1:
                    continue  # the chunk was deleted or replaced while we embedded it
                self._exec(f"DELETE FROM {table} WHERE chunk_id = ?", (chunk_id,))
                self._exec(
                    f"INSERT INTO {table} (chunk_id, kind, coll, created_at, updated_at, "
                    f"embedding) VALUES (?, ?, ?, ?, ?, {quantize}(?))",
                    (chunk_id, *keys, blob),
                )
                self._exec("UPDATE chunks SET embedded = 1 WHERE id = ?", (chunk_id,))
                stored += 1
        return stored

    def _doc_keys(self: Store, doc_ids: set[int]) -> dict[int, tuple[int, int, float, float]]:
        if not doc_ids:
            return {}
        ids = list(doc_ids)
        rows = self._rows(
            "SELECT id, kind, collection, created_at, updated_at FROM documents "
            f"WHERE id IN ({','.join('?' * len(ids))})",
            ids,
        )
        return {r[0]: (KIND_KEYS[r[1]], collection_key(r[2]), r[3], r[4]) for r in rows}

    def knn(
        self: Store, query: np.ndarray, k: int, *, space: Space = "text", filters: Filters
    ) -> list[tuple[int, float]]:
        """Approximate neighbours from a space's quantized index: (chunk id, distance).

        Kind, collection and time filters are applied inside the index scan; the caller
        applies the rest to the candidates.
        """
        import numpy as np

        model = self.vector_model(space)
        if model is None:
            return []
        where, params = _pushdown(filters)
        rows = self._rows(
            f"SELECT chunk_id, distance FROM {_TABLES[space]} WHERE embedding MATCH "
            f"{_quantizer(model[1])}(?) AND k = ?{where}",
            (np.asarray(query, dtype=np.float32).tobytes(), min(int(k), MAX_K), *params),
        )
        # A partition-key IN list yields k rows per partition: keep the k best overall.
        rows.sort(key=lambda r: r[1])
        return [(r[0], r[1]) for r in rows[:k]]

    def vectors(
        self: Store, chunk_ids: Sequence[int], filters: Filters
    ) -> tuple[list[int], list[int], np.ndarray]:
        """Full vectors of those chunks that pass the filters: (chunk ids, doc ids, matrix)."""
        import numpy as np

        if not chunk_ids:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        where, params = self._predicate(filters)
        marks = ",".join("?" * len(chunk_ids))
        rows = self._rows(
            # CROSS JOIN pins the join order: probe the few candidates, never scan documents
            "SELECT v.chunk_id, v.doc_id, v.embedding FROM chunk_vectors v "
            "CROSS JOIN documents d ON d.id = v.doc_id "
            f"WHERE v.chunk_id IN ({marks}) AND d.workspace_id = ? AND {where}",
            (*chunk_ids, self.workspace_id, *params),
        )
        return _unpack(rows)

    def filtered_vectors(
        self: Store, filters: Filters, limit: int, *, space: Space = "text"
    ) -> tuple[list[int], list[int], np.ndarray]:
        """Every vector of a space that passes the filters, up to `limit` (exact search)."""
        where, params = self._predicate(filters)
        rows = self._rows(
            "SELECT v.chunk_id, v.doc_id, v.embedding FROM chunk_vectors v "
            f"JOIN documents d ON d.id = v.doc_id WHERE d.workspace_id = ? AND {where} "
            f"AND {IN_SPACE[space]} LIMIT ?",
            (self.workspace_id, *params, limit),
        )
        return _unpack(rows)

    def nearest_vectors(
        self: Store,
        query: np.ndarray,
        filters: Filters,
        k: int,
        *,
        space: Space = "text",
        cap: int,
    ) -> tuple[list[int], list[int], np.ndarray]:
        """An exact search: the vectors of the `k` chunks nearest to `query` (cosine) among
        the first `cap` of a space that pass the filters."""
        import numpy as np

        ids, docs, matrix = self.filtered_vectors(filters, cap, space=space)
        if len(ids) <= k:
            return ids, docs, matrix
        keep = np.argsort(-(matrix @ np.asarray(query, dtype=np.float32)))[:k]
        return [ids[i] for i in keep], [docs[i] for i in keep], matrix[keep]

    def vectors_by_chunk(self: Store, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The full vector of each chunk that has one (any version, any status)."""
        import numpy as np

        out: dict[int, np.ndarray] = {}
        ids = list(chunk_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            for chunk_id, blob in self._rows(
                "SELECT chunk_id, embedding FROM chunk_vectors "
                f"WHERE chunk_id IN ({','.join('?' * len(part))})",
                part,
            ):
                out[chunk_id] = np.frombuffer(blob, dtype=np.float32)
        return out

    def vector_index_orphans(self: Store) -> int:
        """k-NN index rows whose vector is gone, over every space (always zero when sound)."""
        return sum(
            self._rows(
                f"SELECT count(*) FROM {_TABLES[space]} q LEFT JOIN chunk_vectors v "
                "ON v.chunk_id = q.chunk_id WHERE v.chunk_id IS NULL"
            )[0][0]
            for space in SPACES
            if self.vector_model(space)
        )

    def vector_counts(self: Store) -> dict[str, Any]:
        rows = self._rows(
            "SELECT d.kind = 'code', count(*) FROM chunk_vectors v "
            "JOIN documents d ON d.id = v.doc_id GROUP BY 1"
        )
        by = {bool(r[0]): r[1] for r in rows}
        return {"text": by.get(False, 0), "code": by.get(True, 0)}


def _pushdown(filters: Filters) -> tuple[str, list[Any]]:
    """The part of the filters a vec0 scan can apply: kinds, collections, time bounds."""
    clauses: list[str] = []
    params: list[Any] = []
    kinds = filters.allowed_kinds()  # no kind named: no commits (filters.DEFAULT_KINDS)
    clauses.append(f"kind IN ({','.join('?' * len(kinds))})")
    params.extend(KIND_KEYS[k] for k in kinds)
    if filters.collections:
        clauses.append(f"coll IN ({','.join('?' * len(filters.collections))})")
        params.extend(collection_key(c) for c in filters.collections)
    for column, op, value in time_bounds(filters):
        clauses.append(f"{column} {op} ?")
        params.append(value)
    return "".join(f" AND {c}" for c in clauses), params


def _vec_type(dim: int) -> str:
    return f"bit[{dim}]" if dim % 8 == 0 else f"float[{dim}]"


def _quantizer(dim: int) -> str:
    return "vec_quantize_binary" if dim % 8 == 0 else "vec_f32"


def _unpack(rows: list[Any]) -> tuple[list[int], list[int], np.ndarray]:
    import numpy as np

    if not rows:
        return [], [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
    return [r[0] for r in rows], [r[1] for r in rows], matrix
