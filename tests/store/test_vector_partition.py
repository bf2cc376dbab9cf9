"""The k-NN index is partitioned into code and everything else (migration 6)."""

from __future__ import annotations

from pathlib import Path

import sqlite_vec

from nano_brain import Brain, SearchRequest
from nano_brain.codeindex import CodeIndex
from nano_brain.store import SCHEMA_VERSION
from nano_brain.store._sqlite import sqlite_module
from nano_brain.store.store import _quantizer, _vec_type

from ..conftest import TinyEmbedder

SOURCE = "def settle_invoice(total):\n    return round(total, 2)\n\n" + "".join(
    f"def ledger_step_{i}(x):\n    return x + {i}\n\n" for i in range(30)
)


def _seed(workspace: Path, db: Path) -> tuple[set[int], set[int]]:
    """A workspace with 31 code symbols and 3 notes, all embedded; (code ids, note ids)."""
    (workspace / "ledger.py").write_text(SOURCE)
    with Brain(workspace, provider=TinyEmbedder(), db_path=db) as brain:
        CodeIndex(brain).index()
        for text in ("invoices settle at month end", "ledger steps are idempotent", "refunds"):
            brain.write(text)
        brain.embed_pending()
        rows = brain.store._rows(
            "SELECT c.id, d.kind FROM chunks c JOIN documents d ON d.id = c.doc_id"
        )
    return {i for i, k in rows if k == "code"}, {i for i, k in rows if k != "code"}


def test_knn_searches_one_partition(workspace: Path) -> None:
    code, notes = _seed(workspace, workspace.parent / "p.db")
    with Brain(workspace, provider=TinyEmbedder(), db_path=workspace.parent / "p.db") as brain:
        q = TinyEmbedder().embed_query("ledger step settle invoice")
        assert {c for c, _ in brain.store.knn(q, 50, code=False)} == notes
        assert {c for c, _ in brain.store.knn(q, 50, code=True)} == code
        assert {c for c, _ in brain.store.knn(q, 50)} == code | notes
        # a note search gets notes from k-NN even though 31 code vectors are in the index
        request = SearchRequest(query="ledger steps", kind=["note"], mode="vector", limit=3)
        hits = brain.search(request)
        assert [h.kind for h in hits.results] == ["note"] * 3


def test_schema_5_index_is_partitioned_without_embedding_again(workspace: Path) -> None:
    db = workspace.parent / "v5.db"
    code, notes = _seed(workspace, db)
    conn = sqlite_module().connect(str(db), isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    # the index as schema 5 built it: no partition key
    dim = TinyEmbedder().dim
    conn.execute("DROP TABLE vec_chunks")
    conn.execute(
        "CREATE VIRTUAL TABLE vec_chunks USING vec0 ("
        f"chunk_id INTEGER PRIMARY KEY, embedding {_vec_type(dim)})"
    )
    conn.execute(
        "INSERT INTO vec_chunks (chunk_id, embedding) "
        f"SELECT chunk_id, {_quantizer(dim)}(embedding) FROM chunk_vectors"
    )
    conn.execute("PRAGMA user_version = 5")
    conn.close()

    with Brain(workspace, provider=TinyEmbedder(), db_path=db) as brain:
        assert brain.store.schema_version() == SCHEMA_VERSION
        assert brain.store.pending_count() == 0  # every vector kept, nothing to embed again
        q = TinyEmbedder().embed_query("refunds")
        assert {c for c, _ in brain.store.knn(q, 50, code=False)} == notes
        assert {c for c, _ in brain.store.knn(q, 50, code=True)} == code
