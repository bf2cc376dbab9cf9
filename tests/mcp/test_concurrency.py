"""Two servers on one workspace store: concurrent writes from both must all land."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import Client

from .conftest import Served, make_env, stdio_client

pytestmark = pytest.mark.anyio

PER_SERVER = 25


async def _write_many(client: Client, name: str, ids: list[str]) -> None:
    for i in range(PER_SERVER):
        result = await client.call_tool(
            "memory_write",
            {"content": f"note {i} from {name} about component{i % 5}", "tags": [name]},
        )
        assert not result.is_error, result.content
        assert result.structured_content is not None
        ids.append(result.structured_content["document"]["id"])


async def test_two_servers_write_concurrently(serve: Callable[..., Served], tmp_path: Path) -> None:
    env = make_env(tmp_path / "shared")
    http_server = serve(env=env)
    socket_server = serve("--socket", str(tmp_path / "second.sock"), env=env)
    ids: dict[str, list[str]] = {"http": [], "unix": [], "stdio": []}
    async with (
        http_server.client() as a,
        socket_server.client() as b,
        stdio_client(env) as c,
    ):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_write_many, a, "http", ids["http"])
            tg.start_soon(_write_many, b, "unix", ids["unix"])
            tg.start_soon(_write_many, c, "stdio", ids["stdio"])
        status = await a.call_tool("memory_status", {})
        assert status.structured_content is not None
        assert status.structured_content["documents"] == 3 * PER_SERVER
        tags = await b.call_tool("memory_tags", {})
        assert tags.structured_content is not None
        counts = {t["tag"]: t["count"] for t in tags.structured_content["tags"]}
        assert counts["http"] == counts["unix"] == counts["stdio"] == PER_SERVER
        # Each server reads what the others wrote.
        for reader, writer in ((a, "unix"), (b, "stdio"), (c, "http")):
            got = await reader.call_tool("memory_get", {"id": ids[writer][-1]})
            assert not got.is_error and got.structured_content is not None
            assert f"from {writer}" in got.structured_content["content"]
    assert "locked" not in "".join(http_server.stderr + socket_server.stderr)
