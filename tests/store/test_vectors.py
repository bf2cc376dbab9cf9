"""The k-NN indexes: one per embedding space, kind/collection/time filters inside the scan,
migration from schema 7, and vectors kept for unchanged chunks."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import sqlite_vec

from nano_brain import Brain, Filters, SearchRequest
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.store import SCHEMA_VERSION
from nano_brain.store.sqlite._driver import sqlite_module

from ..conftest import TinyEmbedder
from ._rewind import undo_migration_13

SOURCE = "def settle_invoice(total):\n    return round(total, 2)\n\n" + "".join(
    f"def ledger_step_{i}(x):\n    return x + {i}\n\n" for i in range(30)
)
NOTES = ("invoices settle at month end", "ledger steps are idempotent", "refunds wait a day")


def _seed(workspace: Path, db: Path) -> tuple[set[int], set[int]]:
    """31 code symbols and 3 notes, all embedded with the tiny model; (code, note) chunk ids."""
    (workspace / "ledger.py").write_text(SOURCE)
    with Brain(workspace, provider=TinyEmbedder(), db_path=db) as brain:
        CodeIndex(brain).index()
        for text in NOTES:
            brain.write(text)
        brain.embed_pending()
        rows = brain.store._rows(
            "SELECT c.id, d.kind FROM chunks c JOIN documents d ON d.id = c.doc_id"
        )
    return {i for i, k in rows if k == "code"}, {i for i, k in rows if k != "code"}


def test_each_space_has_its_own_index(workspace: Path) -> None:
    code, notes = _seed(workspace, workspace.parent / "p.db")
    with Brain(workspace, provider=TinyEmbedder(), db_path=workspace.parent / "p.db") as brain:
        q = TinyEmbedder().embed_query("ledger step settle invoice")
        assert {c for c, _ in brain.store.knn(q, 50, space="text", filters=Filters())} == notes
        assert {c for c, _ in brain.store.knn(q, 50, space="code", filters=Filters())} == code
        # a note search gets notes from k-NN although 31 code vectors are nearer
        request = SearchRequest(query="ledger steps", kind=["note"], mode="vector", limit=2)
        hits = brain.search(request)
        assert [h.kind for h in hits.results] == ["note"] * 2
        assert set(hits.legs) == {"vector"}


def test_kind_collection_and_time_filters_apply_inside_the_scan(tiny_brain: Brain) -> None:
    # 60 notes nearer to the query than the one note the filter lets through: k-NN must
    # return the far one at k=5 without widening
    tiny_brain.config.embedding.batch_size = 64
    near = [tiny_brain.write(f"alpha beta gamma {i}", collection="noise") for i in range(60)]
    old = time.time() - 30 * 86400
    far = tiny_brain.write("alpha beta delta", collection="target", created_at=old)
    session = tiny_brain.write("alpha beta gamma session", kind="session", collection="noise")
    assert near and far.embedded and session.embedded
    store = tiny_brain.store
    q = TinyEmbedder().embed_query("alpha beta gamma")
    chunk = store.first_chunks([store.find_current(far.document.id).id])  # type: ignore[union-attr]
    far_chunk = next(iter(chunk.values()))

    def knn(**filters: object) -> list[int]:
        return [c for c, _ in store.knn(q, 5, space="text", filters=Filters(**filters))]

    assert far_chunk not in knn()
    assert knn(collections=("target",)) == [far_chunk]
    assert knn(created_before=old + 1) == [far_chunk]
    assert len(knn(kinds=("session",))) == 1 and far_chunk not in knn(kinds=("session",))
    assert far_chunk in knn(kinds=("note",), collections=("target", "noise"), created_after=0)
    # and through the search pipeline, every filtered variant finds it
    for filters in ({"collection": ["target"]}, {"created_before": "29d"}):
        hits = tiny_brain.search(SearchRequest(query="alpha beta gamma", mode="vector", **filters))
        assert [h.id for h in hits.results] == [far.document.id]


def _rewind_to_schema_7(db: Path, dim: int) -> None:
    """Make a current store look as schema 7 left it: one k-NN index partitioned by code,
    no threads, no code-space model."""
    conn = sqlite_module().connect(str(db), isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    for table in ("vec_chunks", "vec_code"):
        conn.execute(f"DROP TRIGGER IF EXISTS {table}_ad")
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute(
        "CREATE VIRTUAL TABLE vec_chunks USING vec0 (chunk_id INTEGER PRIMARY KEY, "
        f"code INTEGER PARTITION KEY, embedding bit[{dim}])"
    )
    conn.execute(
        "INSERT INTO vec_chunks (chunk_id, code, embedding) SELECT v.chunk_id, "
        "d.kind = 'code', vec_quantize_binary(v.embedding) FROM chunk_vectors v "
        "JOIN documents d ON d.id = v.doc_id"
    )
    conn.execute(
        "CREATE TRIGGER chunk_vectors_ad AFTER DELETE ON chunk_vectors BEGIN "
        "DELETE FROM vec_chunks WHERE chunk_id = old.chunk_id; END"
    )
    conn.execute("DELETE FROM meta WHERE key LIKE 'code_embedding_%'")
    conn.execute("DROP INDEX documents_thread")
    for column in ("thread_seq", "thread"):
        conn.execute(f"ALTER TABLE documents DROP COLUMN {column}")
    undo_migration_13(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.close()


def test_schema_7_store_splits_its_index_without_embedding_again(workspace: Path) -> None:
    db = workspace.parent / "v7.db"
    code, notes = _seed(workspace, db)
    _rewind_to_schema_7(db, TinyEmbedder().dim)
    with Brain(workspace, provider=TinyEmbedder(), db_path=db) as brain:
        assert brain.store.schema_version() == SCHEMA_VERSION >= 8
        assert brain.store.pending_count() == 0  # every vector kept
        assert brain.store.vector_model("code") == brain.store.vector_model("text")
        q = TinyEmbedder().embed_query("refunds")
        assert {c for c, _ in brain.store.knn(q, 50, space="text", filters=Filters())} == notes
        assert {c for c, _ in brain.store.knn(q, 50, space="code", filters=Filters())} == code
        # notes written before threads existed have none; new ones do
        assert {d.thread for d in brain.store.list_documents(Filters(kinds=("note",)))} == {None}
        uid = brain.write("a new note after the upgrade").document.id
        assert brain.store.find_current(uid).thread is not None  # type: ignore[union-attr]


def test_a_new_code_model_reembeds_only_code(workspace: Path) -> None:
    db = workspace.parent / "m.db"
    code, notes = _seed(workspace, db)
    config = load_config(workspace)
    text_model, other = TinyEmbedder(64), TinyEmbedder(32)
    with Brain(
        workspace, config=config, db_path=db, provider=text_model, code_provider=other
    ) as brain:
        # the code space's vectors come from another model: its leg is off until reembed
        assert brain.provider("text")[0] is text_model
        provider, why = brain.provider("code")
        assert provider is None and "reembed --code" in why
        assert brain.status()["legs"]["code_vector"].startswith("unavailable")
        assert brain.reembed(space="code") == len(code)
        assert brain.store.vector_model("code") == (other.name, other.dim)
        assert brain.store.vector_model("text") == (text_model.name, text_model.dim)
        assert brain.store.vector_counts() == {"text": len(notes), "code": len(code)}
        hits = brain.search(SearchRequest(query="settle invoice", kind=["code"], mode="vector"))
        assert hits.legs == {"code_vector": "ok"} and hits.results


def test_identical_rewrite_embeds_nothing_and_edits_reuse_unchanged_chunks(
    tiny_brain: Brain,
) -> None:
    provider = tiny_brain.embedder.loaded("text")
    assert isinstance(provider, TinyEmbedder)
    sections = [f"## Part {i}\n\n" + f"paragraph {i} " * 60 for i in range(6)]
    text = "\n\n".join(sections)
    first = tiny_brain.write(text, source_path="docs/big.md")
    chunks = first.chunks
    assert chunks > 3 and first.embedded
    embedded_texts = []
    original = provider.embed_documents

    def counting(texts: list[str]) -> np.ndarray:
        embedded_texts.extend(texts)
        return original(texts)

    provider.embed_documents = counting  # type: ignore[method-assign]
    again = tiny_brain.write(text, source_path="docs/big.md")
    assert not again.created and not again.updated and embedded_texts == []
    edited = text.replace("paragraph 5 ", "changed 5 ")
    result = tiny_brain.write(edited, source_path="docs/big.md")
    assert result.updated and result.document.version == 2
    assert 0 < len(embedded_texts) < result.chunks  # only the changed chunk(s)
    assert tiny_brain.store.pending_count() == 0
