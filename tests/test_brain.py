"""Documents: write, get, delete, idempotency and bad input (tiny embedder for speed)."""

from pathlib import Path

import pytest

from nano_brain import Brain, InvalidInputError, NotFoundError, SearchRequest
from nano_brain.config import load_config

from .conftest import TinyEmbedder


def test_write_get_by_id_hash_id_and_path(tiny_brain: Brain) -> None:
    res = tiny_brain.write(
        "# Cache policy\n\nEntries expire after 10 minutes.",
        tags=["cache"],
        collection="decisions",
        metadata={"by": "alice"},
        source_path="docs/cache.md",
    )
    doc = res.document
    assert res.created and res.embedded and res.chunks == 1
    assert doc.title == "Cache policy" and doc.tags == ["cache"] and doc.collection == "decisions"
    for ref in (doc.id, f"#{doc.id}", "docs/cache.md"):
        got = tiny_brain.get(ref)
        assert got.content == "# Cache policy\n\nEntries expire after 10 minutes."
        assert got.metadata == {"by": "alice"}


def test_identical_content_is_idempotent(tiny_brain: Brain) -> None:
    first = tiny_brain.write("Use ruff for linting.", tags=["tooling"])
    second = tiny_brain.write("Use ruff for linting.", tags=["python"])
    assert not second.created and second.document.id == first.document.id
    assert second.document.tags == ["python", "tooling"]
    assert tiny_brain.status()["documents"] == 1
    assert tiny_brain.status()["chunks"] == 1


def test_same_source_path_updates_in_place(tiny_brain: Brain) -> None:
    first = tiny_brain.write("old text about pagination", source_path="notes/a.md")
    second = tiny_brain.write("new text about cursors", source_path="notes/a.md")
    assert second.updated and second.document.id == first.document.id
    hits = tiny_brain.search(SearchRequest(query="pagination", mode="lexical")).results
    assert hits == []
    hits = tiny_brain.search(SearchRequest(query="cursors", mode="lexical")).results
    assert [h.id for h in hits] == [first.document.id]


@pytest.mark.sqlite_only  # reads the SQLite file's own tables
def test_delete_cascades_to_every_derived_row(tiny_brain: Brain) -> None:
    long_text = "\n\n".join(f"## Part {i}\n\nparagraph {i} " + "words " * 150 for i in range(6))
    res = tiny_brain.write(long_text, tags=["a", "b"])
    keep = tiny_brain.write("a memo that stays", tags=["a"])
    assert res.chunks > 1
    before = tiny_brain.status()
    assert before["vectors"] == res.chunks + 1
    tiny_brain.delete(f"#{res.document.id}")
    after = tiny_brain.status()
    assert after["documents"] == 1 and after["chunks"] == 1 and after["vectors"] == 1
    assert tiny_brain.store.integrity_orphans() == {
        "chunks": 0,
        "vectors": 0,
        "vec_index": 0,
        "fts": 0,
        "tags": 0,
    }
    assert tiny_brain.store._rows("SELECT count(*) FROM vec_chunks")[0][0] == 1
    assert tiny_brain.tags() == [("a", 1)]
    assert tiny_brain.get(keep.document.id).title == "a memo that stays"
    with pytest.raises(NotFoundError):
        tiny_brain.get(res.document.id)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"content": ""}, "content is empty"),
        ({"content": "   \n"}, "content is empty"),
        ({"content": "x", "collection": "bad name!"}, "invalid collection"),
        ({"content": "x", "kind": "poem"}, "invalid kind"),
        ({"content": "x", "tags": ["two words"]}, "invalid tag"),
        ({"content": "bad \ud800 surrogate"}, "not valid UTF-8"),
        ({"content": "nul\x00byte"}, "NUL"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(
    tiny_brain: Brain, kwargs: dict, message: str
) -> None:
    fields = dict(kwargs)  # the parameters are shared by both stores' runs
    content = fields.pop("content")
    with pytest.raises(InvalidInputError, match=message):
        tiny_brain.write(content, **fields)
    assert tiny_brain.status()["documents"] == 0


def test_content_over_the_cap(workspace: Path) -> None:
    config = load_config(workspace, overrides={"storage": {"max_content_bytes": 1000}})
    with Brain(workspace, config=config, provider=TinyEmbedder()) as brain:
        brain.write("a" * 1000)
        with pytest.raises(InvalidInputError, match="over the 1000-byte cap"):
            brain.write("é" * 501)  # 1002 bytes in UTF-8
        assert brain.status()["documents"] == 1


def test_default_cap_is_five_megabytes(tiny_brain: Brain) -> None:
    with pytest.raises(InvalidInputError, match="over the 5242880-byte cap"):
        tiny_brain.write("x" * (5 * 1024 * 1024 + 1))


@pytest.mark.parametrize("ref", ["#abcdefabcdef", "abcdefabcdef", "no/such/path.md"])
def test_unknown_ids_are_not_found(tiny_brain: Brain, ref: str) -> None:
    with pytest.raises(NotFoundError):
        tiny_brain.get(ref)
    with pytest.raises(NotFoundError):
        tiny_brain.delete(ref)


def test_failed_embedding_keeps_the_note_and_leaves_it_pending(workspace: Path) -> None:
    embedder = TinyEmbedder()
    with Brain(workspace, provider=embedder) as brain:
        embedder.fail = True
        res = brain.write("retry budget is three attempts")
        assert res.created and not res.embedded
        assert brain.status()["pending_embeddings"] == 1
        embedder.fail = False
        assert brain.embed_pending() == 1
        assert brain.status()["pending_embeddings"] == 0
        hits = brain.search(SearchRequest(query="retry budget", mode="vector")).results
        assert hits and hits[0].id == res.document.id


def test_workspace_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="not a directory"):
        Brain(tmp_path / "missing")
