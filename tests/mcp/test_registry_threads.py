"""Tool calls on one Brain from many worker threads at once, as the MCP server runs them
(each call in `anyio.to_thread`), with the real model and the background embedder: every
call's result is about its own arguments, and every write lands once."""

from __future__ import annotations

from pathlib import Path

from nano_brain import Brain
from nano_brain.embedding import EmbeddingProvider
from nano_brain.mcp import load_registry
from nano_brain.workspace import Workspace

from ..threads import run_together

THREADS = 8
WRITES = 8


def test_threads_calling_tools_on_one_brain_get_their_own_results(
    workspace: Path, real_provider: EmbeddingProvider
) -> None:
    registry = load_registry()
    written: list[list[str]] = [[] for _ in range(THREADS)]

    def call(brain: Brain, tool: str, **arguments: object) -> dict[str, object]:
        result = registry.call(Workspace(brain), tool, arguments)
        assert not result.is_error, (tool, result.content)
        assert result.structured_content is not None
        return result.structured_content

    with Brain(workspace, provider=real_provider, actor="mcp") as brain:
        brain.embedder.start()

        def agent(n: int) -> None:
            for i in range(WRITES):
                token = f"agent{n}note{i}"
                content = f"Agent {n} decided {token}: retry the queue {i} times."
                doc = call(brain, "memory_write", content=content)["document"]
                assert isinstance(doc, dict)
                written[n].append(str(doc["id"]))
                got = call(brain, "memory_get", id=doc["id"])
                assert got["content"] == content
                found = call(brain, "memory_search", query=token, max_results=3)["results"]
                assert isinstance(found, list) and found[0]["id"] == doc["id"], token
                hybrid = call(brain, "memory_query", query=content, explain=True)
                assert isinstance(hybrid["results"], list) and hybrid["results"]
                assert all(hit["explain"] for hit in hybrid["results"])
                call(brain, "memory_status")

        run_together(agent, THREADS)
        assert brain.embedder.wait_idle(timeout=120)
        ids = [i for ids in written for i in ids]
        assert len(set(ids)) == THREADS * WRITES
        status = brain.status()
        assert status["documents"] == THREADS * WRITES
        assert status["vectors"] == status["chunks"] and status["pending_embeddings"] == 0
        # the vector leg knows every note now: each is found by meaning alone
        request = call(brain, "memory_vsearch", query="Agent 3 decided agent3note5", max_results=5)
        assert written[3][5] in [hit["id"] for hit in request["results"]]  # type: ignore[union-attr]
