"""Over MCP: memory_status carries each space's embedding progress, and a search made before
every chunk has its vector says so (a field, and a second text block beside the JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from nano_brain import Brain
from nano_brain.codeindex.service import CodeIndex
from nano_brain.embedding import EmbeddingProvider
from nano_brain.mcp import build_server
from nano_brain.workspace import Workspace

from .test_code_tools import PRICING  # the same small module the code tools index

pytestmark = pytest.mark.anyio


async def test_status_and_searches_tell_how_far_embedding_is(
    workspace: Path, real_provider: EmbeddingProvider
) -> None:
    (workspace / "pricing.py").write_text(PRICING, encoding="utf-8")
    with Brain(workspace, provider=real_provider, actor="mcp") as brain:
        CodeIndex(brain).index()  # two symbols, no vector yet (as after a first index)
        async with Client(build_server(Workspace(brain))) as client:
            status = (await client.call_tool("memory_status", {})).structured_content
            assert status is not None
            code = status["embedding_progress"]["code"]
            assert (code["embedded"], code["pending"], code["fraction"]) == (0, 2, 0.0)

            found = await client.call_tool("code_search", {"query": "discount a total"})
            assert not found.is_error and found.structured_content is not None
            partial = found.structured_content["partial"]
            assert partial.startswith("code search is partial: 0% of code has vectors")
            blocks = [c.text for c in found.content]  # type: ignore[union-attr]
            assert json.loads(blocks[0]) == found.structured_content
            assert blocks[1:] == [f"note: {partial}"]

            brain.embed_pending()
            status = (await client.call_tool("memory_status", {})).structured_content
            assert status is not None
            code = status["embedding_progress"]["code"]
            assert (code["embedded"], code["pending"], code["fraction"]) == (2, 0, 1.0)
            assert code["rate_per_s"] > 0 and code["eta_s"] == 0.0
            found = await client.call_tool("memory_query", {"query": "discount a total"})
            assert found.structured_content is not None
            assert found.structured_content["partial"] == "" and len(found.content) == 1
