"""The vector leg on PostgreSQL: pgvector.

Full-precision vectors in `chunk_vectors` (the space, dimension, and the document's kind,
collection and times beside each, so k-NN applies those filters in its scan, as the SQLite
store's vec0 partitions do). The approximate index is one per (space, dimension), partial on
both, over cosine distance:

- ``ivfflat`` (the default): lists learnt from the vectors present when it is built, so it is
  built once a space holds enough vectors (`_IVF_MIN`) and built again, concurrently, each
  time the space has doubled since; below that, k-NN is an exact scan.
- ``hnsw``: no training, built when the space is made; what production servers should use.
  (The PyPI build of pgvector used by the tests here crashes building it on this CPU.)
- ``exact``: no index; every k-NN is an exact scan.

With an index, pgvector's iterative scans keep reading the index until enough rows pass the
filters. Distances are exact (full-precision vectors), and the search pipeline rescores the
candidates with the same full vectors.

`shared_vectors` (schema 7) holds vectors by model and text for every clone of every
workspace, so a clone reuses what a teammate's embedded (README "Team memory").
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...errors import StoreError
from ...filters import Filters
from .. import priority
from ..predicate import time_bounds
from ..rows import PendingChunk
from ..spaces import IN_SPACE, MAX_K, MODEL_KEYS, SPACES, Space, VectorModels

if TYPE_CHECKING:
    import numpy as np

    from ._host import PgHost as PostgresStore

log = logging.getLogger(__name__)

VECTOR_INDEXES = ("ivfflat", "hnsw", "exact")
#: An IVFFlat index is first built once a space holds this many vectors.
_IVF_MIN = 5_000
#: A workspace of at most this many chunks is searched exactly (see `knn`).
_EXACT_WORKSPACE = 10_000
#: Shared vectors read or written per statement (a 384-d vector is 1.5 KB: 400 KB at most).
SHARED_ROWS = 256


def _index_name(space: str, dim: int) -> str:
    return f"chunk_vectors_ann_{space}_{int(dim)}"


class PostgresVectors(VectorModels):
    """Mixed into PostgresStore."""

    _owner: bool | None

    def _tune_vector_scans(self: PostgresStore, db: Any) -> None:
        for setting, value in (
            ("ivfflat.probes", "10"),
            ("ivfflat.iterative_scan", "relaxed_order"),
            ("hnsw.ef_search", "100"),
            ("hnsw.iterative_scan", "relaxed_order"),
        ):
            db.execute(f"SET {setting} = {value}")

    def vector_model(self: PostgresStore, space: Space = "text") -> tuple[str, int] | None:
        """As the shared one, in one round trip (asked on every write and search)."""
        name_key, dim_key = MODEL_KEYS[space]
        found = dict(
            self._rows(
                "SELECT key, value FROM meta WHERE workspace_id = ? AND key IN (?, ?)",
                (self.workspace_id, name_key, dim_key),
            )
        )
        name, dim = found.get(name_key), found.get(dim_key)
        return (name, int(dim)) if name and dim else None

    def reset_vectors(
        self: PostgresStore,
        model: str,
        dim: int,
        *,
        space: Space = "text",
        only_if_absent: bool = False,
    ) -> None:
        """Drop a space's vectors and record `model`; its chunks become pending. With
        `only_if_absent`, do nothing when another process recorded a model first."""
        with self.transaction():
            if only_if_absent and self.vector_model(space) is not None:
                return
            ws = self.workspace_id
            self._exec(
                "DELETE FROM chunk_vectors WHERE workspace_id = ? AND space = ?", (ws, space)
            )
            self._exec(
                f"UPDATE chunks c SET embedded = {priority.PENDING} FROM documents d "
                f"WHERE d.id = c.doc_id AND c.workspace_id = ? "
                f"AND c.embedded = {priority.EMBEDDED} AND {IN_SPACE[space]}",
                (ws,),
            )
            self._record_model(space, model, dim)
            self.meta_set(f"ann_built_{space}", "0")
        if self.vector_index == "hnsw" and not self._depth and self._owns_vectors():
            with self._lock:
                build_vector_indexes(self._db, "hnsw", [(space, dim)], self.location)

    # -- pending chunks ------------------------------------------------------------------

    def pending_chunks(
        self: PostgresStore, limit: int, space: Space = "text", *, max_priority: int | None = None
    ) -> list[PendingChunk]:
        """Chunks of a space that have no vector yet, in the order they were written: a team
        store holds notes and sessions only, all of the first tier (store/priority.py)."""
        if max_priority is not None and max_priority < priority.NOTE:
            return []
        rows = self._rows(
            "SELECT c.id, c.doc_id, c.title, c.heading, c.body, c.symbol FROM chunks c "
            "JOIN documents d ON d.id = c.doc_id WHERE c.workspace_id = ? AND c.embedded = 0 "
            f"AND {IN_SPACE[space]} ORDER BY c.id LIMIT ?",
            (self.workspace_id, limit),
        )
        return [PendingChunk(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]

    def prioritize_pending(self: PostgresStore, paths: Sequence[str], tier: int) -> int:
        """Nothing to move: a team store holds no code (it stays in each clone's store)."""
        return 0

    def pending_tiers(self: PostgresStore) -> dict[int, int]:
        """Chunks waiting for a vector, per tier: a team store's are notes and sessions."""
        waiting = self.pending_count()
        return {priority.NOTE: waiting} if waiting else {}

    def set_test_vectors(self: PostgresStore, wanted: bool) -> int:
        """Nothing to choose: a team store holds no code."""
        return 0

    def pending_count(self: PostgresStore, space: Space | None = None) -> int:
        in_space = "" if space is None else f" AND {IN_SPACE[space]}"
        return int(
            self._rows(
                "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                f"WHERE c.workspace_id = ? AND c.embedded = 0{in_space}",
                (self.workspace_id,),
            )[0][0]
        )

    def copy_vectors(self: PostgresStore, from_doc: int, to_doc: int) -> int:
        """Give a new version's chunks the vectors of identical chunks of the version before."""
        with self.transaction():
            cursor = self._exec(
                "INSERT INTO chunk_vectors (chunk_id, doc_id, workspace_id, space, kind, "
                "collection, created_at, updated_at, dim, embedding) "
                "SELECT n.id, n.doc_id, n.workspace_id, v.space, d.kind, d.collection, "
                "d.created_at, d.updated_at, v.dim, v.embedding FROM chunks n "
                "JOIN documents d ON d.id = n.doc_id "
                "JOIN chunks o ON o.doc_id = ? AND o.embedded = 1 AND o.body = n.body "
                "AND o.title = n.title AND o.heading = n.heading "
                "JOIN chunk_vectors v ON v.chunk_id = o.id "
                "WHERE n.doc_id = ? AND n.embedded = 0 ON CONFLICT (chunk_id) DO NOTHING "
                "RETURNING chunk_id",
                (from_doc, to_doc),
            )
            ids = [r[0] for r in cursor.fetchall()]
            if ids:
                self._exec("UPDATE chunks SET embedded = 1 WHERE id = ANY(?)", (ids,))
        return len(ids)

    # -- writing and reading vectors ---------------------------------------------------------

    def store_vectors(
        self: PostgresStore, items: Sequence[tuple[int, int, np.ndarray]], *, space: Space = "text"
    ) -> int:
        """Save unit vectors for chunks that still exist; returns how many were stored."""
        import numpy as np

        model = self.vector_model(space)
        if model is None:
            raise StoreError(f"no {space} embedding model is recorded in the store")
        dim = model[1]
        stored = 0
        with self.transaction():
            for chunk_id, doc_id, vector in items:
                cursor = self._exec(
                    "INSERT INTO chunk_vectors (chunk_id, doc_id, workspace_id, space, kind, "
                    "collection, created_at, updated_at, dim, embedding) "
                    "SELECT c.id, c.doc_id, c.workspace_id, ?, d.kind, d.collection, "
                    "d.created_at, d.updated_at, ?, ? FROM chunks c "
                    "JOIN documents d ON d.id = c.doc_id WHERE c.id = ? AND c.doc_id = ? "
                    "ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding, "
                    "dim = excluded.dim, space = excluded.space",
                    (space, dim, np.asarray(vector, dtype=np.float32), chunk_id, doc_id),
                )
                if cursor.rowcount != 1:
                    continue  # the chunk was deleted or replaced while we embedded it
                self._exec("UPDATE chunks SET embedded = 1 WHERE id = ?", (chunk_id,))
                stored += 1
        if stored and self.vector_index == "ivfflat":
            self._maybe_build_ivfflat(space, dim)
        return stored

    def knn(
        self: PostgresStore, query: np.ndarray, k: int, *, space: Space = "text", filters: Filters
    ) -> list[tuple[int, float]]:
        """Nearest neighbours by cosine distance: (chunk id, distance). Kind, collection and
        time filters apply in the scan; the caller applies the rest."""
        import numpy as np

        model = self.vector_model(space)
        if model is None:
            return []
        dim = int(model[1])
        where, params = _pushdown(filters)
        # space and dimension as literals: they select the partial index. A small workspace
        # is scanned exactly: the index holds every workspace's vectors, and its scan for
        # the few of one workspace beside a large one read most of it (LoCoMo's 2.7k turns
        # beside 100k chunks: 71 ms a query)
        source, inner = "chunk_vectors", []
        if self._workspace_chunks() <= _EXACT_WORKSPACE:
            # OFFSET 0: the workspace's own rows, never through the shared index
            source = "(SELECT * FROM chunk_vectors WHERE workspace_id = ? OFFSET 0) v"
            inner = [self.workspace_id]
        rows = self._rows(
            f"SELECT chunk_id, embedding::vector({dim}) <=> ?::vector({dim}) AS distance "
            f"FROM {source} WHERE workspace_id = ? AND space = '{space}' AND dim = {dim}"
            f"{where} ORDER BY distance LIMIT ?",
            (
                np.asarray(query, dtype=np.float32),
                *inner,
                self.workspace_id,
                *params,
                min(int(k), MAX_K),
            ),
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    def vectors(
        self: PostgresStore, chunk_ids: Sequence[int], filters: Filters
    ) -> tuple[list[int], list[int], np.ndarray]:
        """Full vectors of those chunks that pass the filters: (chunk ids, doc ids, matrix)."""
        if not chunk_ids:
            return _unpack([])
        where, params = self._predicate(filters)
        rows = self._binary_rows(
            "SELECT v.chunk_id, v.doc_id, v.embedding FROM chunk_vectors v "
            "JOIN documents d ON d.id = v.doc_id "
            f"WHERE v.chunk_id = ANY(?) AND d.workspace_id = ? AND {where}",
            (list(chunk_ids), self.workspace_id, *params),
        )
        return _unpack(rows)

    def filtered_vectors(
        self: PostgresStore, filters: Filters, limit: int, *, space: Space = "text"
    ) -> tuple[list[int], list[int], np.ndarray]:
        """Every vector of a space that passes the filters, up to `limit` (exact search)."""
        where, params = self._predicate(filters)
        # planned for these filters every time: a generic plan joined every vector first
        rows = self._planned_rows(
            "SELECT v.chunk_id, v.doc_id, v.embedding FROM chunk_vectors v "
            "JOIN documents d ON d.id = v.doc_id WHERE v.workspace_id = ? AND v.space = ? "
            f"AND d.workspace_id = ? AND {where} LIMIT ?",
            (self.workspace_id, space, self.workspace_id, *params, limit),
            binary=True,
        )
        return _unpack(rows)

    def nearest_vectors(
        self: PostgresStore,
        query: np.ndarray,
        filters: Filters,
        k: int,
        *,
        space: Space = "text",
        cap: int,
    ) -> tuple[list[int], list[int], np.ndarray]:
        """An exact search: the vectors of the `k` chunks nearest to `query` (cosine) among
        the first `cap` of a space that pass the filters, ranked by the server.

        A tag filter leaving 1,300 of 100k documents sent all their vectors to be ranked
        here: 13 ms for the rows and as long again to decode them, against a few for these
        `k`. The inner query's OFFSET keeps the planner off the approximate index."""
        import numpy as np

        model = self.vector_model(space)
        if model is None:
            return _unpack([])
        dim = int(model[1])
        where, params = self._predicate(filters)
        rows = self._planned_rows(
            "SELECT f.chunk_id, f.doc_id, f.embedding FROM (SELECT v.chunk_id, v.doc_id, "
            "v.embedding FROM chunk_vectors v JOIN documents d ON d.id = v.doc_id "
            f"WHERE v.workspace_id = ? AND v.space = ? AND v.dim = {dim} AND d.workspace_id = ? "
            f"AND {where} LIMIT ? OFFSET 0) f "
            f"ORDER BY f.embedding::vector({dim}) <=> ?::vector({dim}), f.chunk_id LIMIT ?",
            (
                self.workspace_id,
                space,
                self.workspace_id,
                *params,
                cap,
                np.asarray(query, dtype=np.float32),
                k,
            ),
            binary=True,
        )
        return _unpack(rows)

    def vectors_by_chunk(self: PostgresStore, chunk_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The full vector of each chunk that has one (any version, any status)."""
        rows = self._binary_rows(
            "SELECT chunk_id, embedding FROM chunk_vectors WHERE chunk_id = ANY(?)",
            (list(chunk_ids),),
        )
        return {int(r[0]): _array(r[1]) for r in rows}

    def vector_index_orphans(self: PostgresStore) -> int:
        return 0  # the vectors are the index's rows

    def vector_counts(self: PostgresStore) -> dict[str, Any]:
        rows = self._rows(
            "SELECT space, count(*) FROM chunk_vectors WHERE workspace_id = ? GROUP BY space",
            (self.workspace_id,),
        )
        by = dict(rows)
        return {s: int(by.get(s, 0)) for s in SPACES}

    # -- vectors shared by every clone (schema 7) --------------------------------------------

    def shared_vectors(
        self: PostgresStore, model: str, dim: int, digests: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]:
        """The shared vectors of these texts (SHA-256 digests of what was embedded) for a
        model and dimension, `SHARED_ROWS` digests a statement."""
        found: dict[bytes, np.ndarray] = {}
        wanted = list(dict.fromkeys(digests))
        for start in range(0, len(wanted), SHARED_ROWS):
            rows = self._binary_rows(
                "SELECT text_sha256, embedding FROM shared_vectors "
                "WHERE model = ? AND dim = ? AND text_sha256 = ANY(?)",
                (model, int(dim), wanted[start : start + SHARED_ROWS]),
            )
            found.update((bytes(r[0]), _array(r[1])) for r in rows)
        return found

    def share_vectors(
        self: PostgresStore, model: str, dim: int, items: Sequence[tuple[bytes, np.ndarray]]
    ) -> int:
        """Publish vectors of texts (digest, vector) for other clones; a text already shared
        keeps its vector. Returns how many were added. Each statement commits on its own,
        outside the workspace's write lock: the rows belong to no workspace."""
        import numpy as np

        unique = list(dict(items).items())
        added = 0
        for start in range(0, len(unique), SHARED_ROWS):
            part = unique[start : start + SHARED_ROWS]
            params: list[Any] = []
            for digest, vector in part:
                params += [model, int(dim), digest, np.asarray(vector, dtype=np.float32)]
            cursor = self._exec(
                "INSERT INTO shared_vectors (model, dim, text_sha256, embedding) VALUES "
                + ", ".join(["(?, ?, ?, ?)"] * len(part))
                + " ON CONFLICT DO NOTHING",
                params,
            )
            added += max(0, cursor.rowcount)
        return added

    # -- the approximate index ----------------------------------------------------------------

    def _owns_vectors(self: PostgresStore) -> bool:
        """Whether this role may build indexes on chunk_vectors (its owner, or a superuser):
        an app role may not, and the owner's `nano-brain store init` builds them instead."""
        if self._owner is None:
            rows = self._rows(
                "SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c "
                "WHERE c.relname = 'chunk_vectors' AND c.relkind = 'r'"
            )
            owner = bool(rows and rows[0][0])
            self._owner = owner
            return owner
        return self._owner

    def _maybe_build_ivfflat(self: PostgresStore, space: Space, dim: int) -> None:
        if self._depth or not self._owns_vectors():
            return
        count = int(
            self._rows(
                "SELECT count(*) FROM chunk_vectors WHERE space = ? AND dim = ?", (space, dim)
            )[0][0]
        )
        built = int(self.meta_get(f"ann_built_{space}") or 0)
        if count >= _IVF_MIN and count >= 2 * built:
            with self._lock:
                build_vector_indexes(self._db, "ivfflat", [(space, dim)], self.location, rows=count)
            with self.transaction():
                self.meta_set(f"ann_built_{space}", str(count))

    def optimize_vectors(self: PostgresStore) -> None:
        """Build (again) each space's approximate index over the vectors present now."""
        pairs = [(s, m[1]) for s in SPACES if (m := self.vector_model(s)) is not None]
        if pairs and self.vector_index != "exact":
            with self._lock:
                build_vector_indexes(self._db, self.vector_index, pairs, self.location)


def build_vector_indexes(
    conn: Any,
    method: str,
    pairs: Sequence[tuple[str, int]],
    location: str,
    *,
    rows: int | None = None,
) -> list[str]:
    """Build the approximate index of each (space, dimension) under a new name without
    blocking writers, then swap it in; returns what was built. Run by the table's owner on
    an autocommit connection (CREATE INDEX CONCURRENTLY cannot run in a transaction); a
    process already building one makes another skip it."""
    if method not in ("ivfflat", "hnsw"):
        return []
    if rows is None:
        conn.execute("ANALYZE chunk_vectors")
        rows = int(
            conn.execute(
                "SELECT greatest(reltuples, 0) FROM pg_class WHERE relname = 'chunk_vectors'"
            ).fetchone()[0]
        )
    built = []
    for space, dim in pairs:
        if space not in SPACES:
            raise ValueError(space)
        name = _index_name(space, int(dim))
        if not conn.execute(
            "SELECT pg_try_advisory_lock(hashtextextended(%s, 7478))", (name,)
        ).fetchone()[0]:
            continue
        try:
            if method == "hnsw":
                options = "(m = 16, ef_construction = 64)"
            else:
                options = f"(lists = {max(10, min(2000, int(math.sqrt(max(rows, 1)))))})"
            fresh = f"{name}_new"
            conn.execute(f"DROP INDEX IF EXISTS {fresh}")
            conn.execute(
                f"CREATE INDEX CONCURRENTLY {fresh} ON chunk_vectors USING {method} "
                f"((embedding::vector({int(dim)})) vector_cosine_ops) WITH {options} "
                f"WHERE space = '{space}' AND dim = {int(dim)}"
            )
            conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
            conn.execute(f"ALTER INDEX {fresh} RENAME TO {name}")
            built.append(f"{method} {name} {options}")
            log.info("store %s: built %s %s over about %d vectors", location, method, name, rows)
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 7478))", (name,))
    return built


def _pushdown(filters: Filters) -> tuple[str, list[Any]]:
    """The part of the filters the k-NN scan applies: kinds, collections, time bounds."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.kinds:
        clauses.append("kind = ANY(?)")
        params.append(list(filters.kinds))
    if filters.collections:
        clauses.append("collection = ANY(?)")
        params.append(list(filters.collections))
    for column, op, value in time_bounds(filters):
        clauses.append(f"{column} {op} ?")
        params.append(value)
    return "".join(f" AND {c}" for c in clauses), params


def _unpack(rows: list[Any]) -> tuple[list[int], list[int], np.ndarray]:
    import numpy as np

    if not rows:
        return [], [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.stack([_array(r[2]) for r in rows])
    return [int(r[0]) for r in rows], [int(r[1]) for r in rows], matrix


def _array(value: Any) -> np.ndarray:
    import numpy as np

    found = value.to_numpy() if hasattr(value, "to_numpy") else value
    return np.asarray(found, dtype=np.float32)
