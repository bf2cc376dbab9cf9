"""A store never mixes vectors of two models; reembed switches cleanly."""

from pathlib import Path

from nano_brain import Brain, SearchRequest

from ..conftest import TinyEmbedder


def test_other_model_disables_vector_leg_until_reembed(workspace: Path) -> None:
    with Brain(workspace, provider=TinyEmbedder(64)) as brain:
        note = brain.write("the deploy pipeline runs on tags").document
    with Brain(workspace, provider=TinyEmbedder(32)) as brain:
        response = brain.search(SearchRequest(query="deploy pipeline"))
        assert "reembed" in response.legs["vector"]
        assert response.legs["lexical"] == "ok"
        assert [h.id for h in response.results] == [note.id]
        # a write under the mismatched model stores no vectors of the new model
        res = brain.write("a second note about releases")
        assert not res.embedded
        assert brain.store.vector_model() == ("test/tiny-64", 64)
        assert brain.reembed() == 2
        assert brain.store.vector_model() == ("test/tiny-32", 32)
        assert brain.status()["vectors"] == 2
        vec = brain.search(SearchRequest(query="deploy pipeline", mode="vector"))
        assert vec.legs["vector"] == "ok" and vec.results[0].id == note.id
