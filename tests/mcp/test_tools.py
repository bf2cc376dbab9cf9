"""Every memory tool through the SDK client over stdio, loopback HTTP and a unix socket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult

from nano_brain.config import WORKSPACE_CONFIG_NAME
from nano_brain.mcp.tools_memory import MAX_CONTENT_CHARS

from .conftest import ClientFactory, Env, make_env

pytestmark = pytest.mark.anyio

EXPECTED_HINTS = {
    # name: (readOnly, destructive, idempotent)
    "memory_write": (False, False, True),
    "memory_anchor": (False, False, True),
    "memory_unanchor": (False, False, True),
    "memory_query": (True, False, True),
    "memory_search": (True, False, True),
    "memory_vsearch": (True, False, True),
    "memory_get": (True, False, True),
    "memory_delete": (False, True, True),
    "memory_supersede": (False, True, True),
    "memory_retract": (False, True, True),
    "memory_history": (True, False, True),
    "memory_wake_up": (True, False, True),
    "memory_tags": (True, False, True),
    "memory_status": (True, False, True),
    "code_symbols": (True, False, True),
    "code_callers": (True, False, True),
    "code_callees": (True, False, True),
    "code_impact": (True, False, True),
    "code_why": (True, False, True),
    "code_search": (True, False, True),
    "code_routes": (True, False, True),
}


async def _embedded(client: Any, timeout: float = 30.0) -> None:
    """Wait until the server's background embedder has no pending chunk left."""
    deadline = anyio.current_time() + timeout
    while (await ok(client, "memory_status", {}))["pending_embeddings"]:
        assert anyio.current_time() < deadline, "vectors did not follow the write"
        await anyio.sleep(0.05)


async def ok(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call a tool that must succeed; its text is the JSON of its structured content."""
    result = await client.call_tool(tool, args or {})
    assert not result.is_error, f"{tool} failed: {result.content}"
    data = result.structured_content
    assert isinstance(data, dict)
    if tool != "memory_wake_up":
        assert json.loads(result.content[0].text) == data  # type: ignore[union-attr]
    return data


async def fails(client: Client, tool: str, args: dict[str, Any]) -> str:
    result: CallToolResult = await client.call_tool(tool, args)
    assert result.is_error, f"{tool}({args!r}) should have failed: {result.structured_content}"
    text = result.content[0].text  # type: ignore[union-attr]
    assert "\n" not in text, f"error message is not one line: {text!r}"
    assert result.structured_content is None
    return text


async def test_tools_are_listed_with_schemas_and_hints(
    transport: tuple[str, Env, ClientFactory],
) -> None:
    _, _, connect = transport
    async with connect() as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == set(EXPECTED_HINTS)
    for name, tool in listed.items():
        assert tool.description and "use" in tool.description.lower(), name
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema.get("additionalProperties") is False, name
        assert tool.output_schema and tool.output_schema["type"] == "object", name
        hints = tool.annotations
        assert hints is not None
        assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) == (
            EXPECTED_HINTS[name]
        ), name
    write = listed["memory_write"].input_schema
    assert write["required"] == ["content"]
    assert write["properties"]["content"]["maxLength"] == MAX_CONTENT_CHARS
    query = listed["memory_query"].input_schema["properties"]
    assert query["max_results"]["maximum"] == 100 and query["max_results"]["minimum"] == 1
    assert {
        "collection",
        "tags",
        "kind",
        "created_after",
        "updated_before",
        "status",
        "include_superseded",
        "as_of",
        "include_content",
        "explain",
    } <= set(query)


async def test_every_tool_round_trip(transport: tuple[str, Env, ClientFactory]) -> None:
    name, _, connect = transport
    tag = f"via-{name}"
    async with connect() as client:
        body = "# Queue choice\nWe use SQLite WAL for the job queue.\nLine three: retries.\nEnd."
        first = await ok(
            client,
            "memory_write",
            {
                "content": body,
                "tags": [tag, "decision"],
                "collection": "decisions",
                "source_path": f"adr/{name}-queue.md",
                "metadata": {"ticket": 42},
            },
        )
        # acknowledged before its vectors exist: the server embeds in the background
        assert first["created"] is True and first["embedded"] is False
        a = first["document"]["id"]
        assert first["document"]["author"] == "mcp"
        again = await ok(
            client,
            "memory_write",
            {"content": body, "collection": "decisions", "source_path": f"adr/{name}-queue.md"},
        )
        assert again["created"] is False and again["document"]["id"] == a

        lexical = await ok(client, "memory_search", {"query": "WAL job queue", "tags": [tag]})
        assert lexical["mode"] == "lexical" and [r["id"] for r in lexical["results"]] == [a]
        await _embedded(client)
        vector = await ok(
            client,
            "memory_vsearch",
            {"query": "which database backs our task backlog", "tags": [tag]},
        )
        assert vector["legs"]["vector"] == "ok" and vector["results"][0]["id"] == a
        hybrid = await ok(
            client,
            "memory_query",
            {
                "query": "queue storage decision",
                "collection": ["decisions"],
                "kind": ["note"],
                "created_after": "1d",
                "explain": True,
                "include_content": True,
                "max_results": 3,
            },
        )
        assert hybrid["results"][0]["id"] == a
        assert hybrid["results"][0]["content"] == body
        assert "fused" in hybrid["results"][0]["explain"]
        none = await ok(
            client,
            "memory_query",
            {"query": "queue", "created_before": "2001-01-01", "tags": [tag]},
        )
        assert none["results"] == []

        part = await ok(client, "memory_get", {"id": f"#{a}", "start_line": 2, "end_line": 3})
        assert part["content"] == "We use SQLite WAL for the job queue.\nLine three: retries."
        by_path = await ok(client, "memory_get", {"id": f"adr/{name}-queue.md"})
        assert by_path["id"] == a and by_path["metadata"] == {"ticket": 42}

        newer = await ok(
            client,
            "memory_write",
            {
                "content": f"We moved the job queue from SQLite to Redis streams ({name}).",
                "tags": [tag],
                "supersedes": a,
            },
        )
        b = newer["document"]["id"]
        hidden = await ok(client, "memory_search", {"query": "job queue", "tags": [tag]})
        assert [r["id"] for r in hidden["results"]] == [b]
        shown = await ok(
            client,
            "memory_search",
            {"query": "job queue", "tags": [tag], "include_superseded": True},
        )
        old = next(r for r in shown["results"] if r["id"] == a)
        assert old["status"] == "superseded" and old["superseded_by"]["id"] == b

        c = (
            await ok(
                client,
                "memory_write",
                {"content": f"Job queue is Kafka now ({name}).", "tags": [tag]},
            )
        )["document"]["id"]
        replaced = await ok(client, "memory_supersede", {"old": b, "new": c})
        assert replaced["id"] == b and replaced["status"] == "superseded"
        assert replaced["superseded_by"] == c
        retracted = await ok(client, "memory_retract", {"id": c, "reason": "never shipped"})
        assert retracted["status"] == "retracted"
        after = await ok(client, "memory_search", {"query": "job queue", "tags": [tag]})
        assert after["results"] == []

        history = await ok(client, "memory_history", {"id": a})
        actions = {(e["action"], e["actor"]) for e in history["events"]}
        assert {("write", "mcp"), ("supersede", "mcp")} <= actions
        assert history["versions"][-1]["status"] == "superseded"

        doomed = (
            await ok(client, "memory_write", {"content": f"temporary {name}", "tags": [tag]})
        )["document"]
        tags = await ok(client, "memory_tags", {"collection": ["memory"]})
        # Only active documents count: b is superseded and c retracted by now.
        assert {"tag": tag, "count": 1} in tags["tags"]

        wake = await client.call_tool("memory_wake_up", {"budget_chars": 600})
        assert not wake.is_error
        text = wake.content[0].text  # type: ignore[union-attr]
        assert text.startswith("# Workspace memory") and len(text) <= 600
        assert wake.structured_content and wake.structured_content["text"] == text
        assert wake.structured_content["collections"]["decisions"] >= 1

        status = await ok(client, "memory_status")
        assert status["documents"] >= 3 and status["legs"]["lexical"] == "ok"
        assert status["embedding"]["model"] and status["pending_embeddings"] == 0

        gone = await ok(client, "memory_delete", {"id": doomed["id"]})
        assert gone["deleted"]["id"] == doomed["id"]
        missing = await fails(client, "memory_get", {"id": doomed["id"]})
        assert "no document" in missing


BAD_INPUT: list[tuple[str, dict[str, Any], str]] = [
    ("memory_write", {}, "content: Field required"),
    ("memory_write", {"content": 42}, "content: Input should be a valid string"),
    ("memory_write", {"content": "x", "tags": "not-a-list"}, "tags: Input should be a valid list"),
    ("memory_write", {"content": "x", "tags": ["has space"]}, "tags.0"),
    ("memory_write", {"content": "x", "colour": "red"}, "colour: unknown argument"),
    ("memory_write", {"content": "   "}, "content is empty"),
    ("memory_write", {"content": "x" * (MAX_CONTENT_CHARS + 1)}, "at most"),
    ("memory_write", {"content": "é" * (MAX_CONTENT_CHARS // 2 + 1)}, "byte cap"),
    ("memory_write", {"content": "x", "supersedes": "#0123456789ab"}, "no document"),
    ("memory_write", {"content": "x", "collection": "bad name!"}, "collection"),
    ("memory_query", {}, "query: Field required"),
    ("memory_query", {"query": "x", "max_results": 0}, "max_results"),
    ("memory_query", {"query": "x", "max_results": "many"}, "max_results"),
    ("memory_query", {"query": "x", "created_after": "last tuesday"}, "invalid time"),
    ("memory_query", {"query": "x", "kind": ["poem"]}, "kind.0"),
    ("memory_search", {"query": ""}, "query"),
    ("memory_get", {"id": "#0123456789ab"}, "no document #0123456789ab"),
    ("memory_get", {"id": "nowhere/at/all.md"}, "no document"),
    ("memory_get", {"id": "x", "start_line": 5, "end_line": 2}, "end_line must be >= start_line"),
    ("memory_get", {"id": "x", "start_line": 0}, "start_line"),
    ("memory_delete", {"id": "#0123456789ab"}, "no document"),
    ("memory_delete", {}, "id: Field required"),
    ("memory_supersede", {"old": "#0123456789ab", "new": "#ba9876543210"}, "no document"),
    ("memory_retract", {"id": "#0123456789ab"}, "no document"),
    ("memory_history", {"id": 7}, "id: Input should be a valid string"),
    ("memory_wake_up", {"budget_chars": 10}, "budget_chars"),
    ("memory_status", {"verbose": True}, "unknown argument"),
    # Strict types at the edge: no JSON value stands in for another.
    ("memory_query", {"query": "x", "max_results": True}, "max_results: Input should be a valid"),
    ("memory_query", {"query": "x", "max_results": "10"}, "max_results: Input should be a valid"),
    ("memory_query", {"query": "x", "max_results": 10.0}, "max_results: Input should be a valid"),
    ("memory_query", {"query": "x", "include_content": "yes"}, "include_content: Input should"),
    ("memory_query", {"query": "x", "explain": 1}, "explain: Input should be a valid boolean"),
    ("memory_wake_up", {"budget_chars": "4000"}, "budget_chars: Input should be a valid"),
    ("code_impact", {"symbol": "f", "depth": False}, "depth: Input should be a valid integer"),
    # No control characters where a field is one line; bounded times.
    ("memory_write", {"content": "x", "title": "nul\x00title"}, "title: must be one line"),
    ("memory_write", {"content": "x", "source_path": "a\x00b.md"}, "source_path: must be one"),
    ("memory_write", {"content": "x", "tags": ["nul\x00"]}, "tags.0: must be 1-64 characters"),
    ("memory_write", {"content": "x", "metadata": {"k": "v\x00"}}, "metadata.k: text holds a"),
    ("memory_write", {"content": "x", "metadata": {"k\x00": 1}}, "metadata.k\\x00.[key]: must be"),
    ("memory_write", {"content": "x", "metadata": {"k": 2**70}}, "64-bit"),
    ("memory_write", {"content": "x", "collection": "memory\n"}, "collection: must be letters"),
    ("memory_write", {"content": "nul\x00content"}, "NUL"),
    ("memory_query", {"query": "x", "created_after": "99999999999d"}, "longer than 9999 years"),
    ("memory_query", {"query": "x", "as_of": "9999-12-31T23:59:59-01:00"}, "after year 9999"),
    ("memory_query", {"query": "x", "created_before": "1" * 65}, "at most 64 characters"),
    ("memory_retract", {"id": "x", "reason": "nul\x00"}, "reason: must be no control"),
    ("code_callers", {"symbol": "f\x00"}, "symbol: must be one line without control"),
    ("memory_teleport", {}, "unknown tool"),
]


async def test_bad_input_is_an_error_and_writes_nothing(
    transport: tuple[str, Env, ClientFactory],
) -> None:
    _, _, connect = transport
    async with connect() as client:
        before = await ok(client, "memory_status")
        for tool, args, expected in BAD_INPUT:
            message = await fails(client, tool, args)
            assert message.startswith(f"{tool}:") or tool == "memory_teleport", message
            assert expected in message, (tool, args, message)
        after = await ok(client, "memory_status")
        log_free = {k: v for k, v in after.items() if k not in ("store_bytes",)}
        assert log_free["documents"] == before["documents"]
        assert after["by_status"] == before["by_status"]
        assert after["chunks"] == before["chunks"]


async def test_vector_search_without_a_model_says_so(serve: Any, tmp_path: Path) -> None:
    """With embeddings switched off, memory_vsearch is a clear error, memory_query degrades."""
    env = make_env(tmp_path / "novec")
    (env.workspace / WORKSPACE_CONFIG_NAME).write_text("embedding:\n  provider: none\n")
    served = serve(env=env)
    async with served.client() as client:
        await ok(client, "memory_write", {"content": "lexical only note about parsers"})
        status = await ok(client, "memory_status")
        assert status["legs"]["vector"].startswith("unavailable")
        message = await fails(client, "memory_vsearch", {"query": "parsers"})
        assert "vector search is unavailable" in message
        hybrid = await ok(client, "memory_query", {"query": "parsers"})
        assert hybrid["results"] and hybrid["legs"]["vector"].startswith("unavailable")


async def test_a_leading_bom_is_dropped_from_title_and_content(
    transport: tuple[str, Env, ClientFactory],
) -> None:
    name, _, connect = transport
    async with connect() as client:
        args = {"content": f"\ufeffBOM note over {name}", "title": f"\ufeffBOM title {name}"}
        written = await ok(client, "memory_write", args)
        doc = await ok(client, "memory_get", {"id": written["document"]["id"]})
    assert doc["title"] == f"BOM title {name}"
    assert doc["content"] == f"BOM note over {name}"
