"""The registration scheme and error shaping, in-process (no subprocess needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from pydantic import BaseModel, ConfigDict, Field

from nano_brain import Brain
from nano_brain.errors import InvalidInputError
from nano_brain.mcp import build_server, load_registry
from nano_brain.mcp.registry import BUILTIN_TOOL_MODULES, ToolRegistry
from nano_brain.workspace import Workspace

pytestmark = pytest.mark.anyio


class EchoIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    word: str = Field(min_length=1, max_length=5)


class EchoOut(BaseModel):
    word: str


def _family(registry: ToolRegistry) -> None:
    @registry.tool("echo_word", title="Echo", input=EchoIn, output=EchoOut, read_only=True)
    def echo(ws: Workspace, p: EchoIn) -> EchoOut:
        """Echo a word back (use it to test the registry)."""
        return EchoOut(word=p.word)

    @registry.tool("explode", title="Explode", input=EchoIn, output=EchoOut, read_only=True)
    def explode(ws: Workspace, p: EchoIn) -> EchoOut:
        """Fail with an unexpected error (use it to test error shaping)."""
        raise RuntimeError(f"secret internals {ws.brain.store.path}")


async def test_a_tool_family_plugs_in_with_one_register_function(lexical_brain: Brain) -> None:
    registry = load_registry(BUILTIN_TOOL_MODULES)
    _family(registry)
    server = build_server(Workspace(lexical_brain), registry=registry)
    async with Client(server) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names[-2:] == ["echo_word", "explode"] and "memory_write" in names
        echoed = await client.call_tool("echo_word", {"word": "hi"})
        assert echoed.structured_content == {"word": "hi"} and not echoed.is_error
        too_long = await client.call_tool("echo_word", {"word": "toolong"})
        assert too_long.is_error
        assert too_long.content[0].text == (  # type: ignore[union-attr]
            "echo_word: invalid arguments: word: String should have at most 5 characters"
        )
        several = await client.call_tool("echo_word", {"word": 1, "extra": 2})
        assert "(and 1 more)" in several.content[0].text  # type: ignore[union-attr]
        crashed = await client.call_tool("explode", {"word": "x"})
        text = crashed.content[0].text  # type: ignore[union-attr]
        assert crashed.is_error and text == "explode: internal error (RuntimeError); see server log"
        assert "secret" not in text


def test_registry_rejects_duplicates_and_missing_docs() -> None:
    registry = ToolRegistry()
    _family(registry)
    with pytest.raises(ValueError, match="registered twice"):
        _family(registry)
    with pytest.raises(ValueError, match="docstring"):

        @registry.tool("nodoc", title="x", input=EchoIn, output=EchoOut, read_only=True)
        def nodoc(brain: Brain, p: EchoIn) -> EchoOut:
            return EchoOut(word=p.word)


def test_unknown_tool_module_is_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="cannot load MCP tool module 'no.such.module'"):
        load_registry(["no.such.module"])
    with pytest.raises(InvalidInputError, match="has no register"):
        load_registry(["nano_brain.serving.security"])


async def test_in_process_server_writes_as_mcp_actor(workspace: Path, real_provider) -> None:
    with Brain(workspace, provider=real_provider, actor="mcp") as brain:
        async with Client(build_server(Workspace(brain))) as client:
            result = await client.call_tool("memory_write", {"content": "in-process note"})
            assert result.structured_content is not None
            doc_id = result.structured_content["document"]["id"]
        assert [(e.action, e.actor) for e in brain.log(ref=doc_id)] == [("write", "mcp")]
