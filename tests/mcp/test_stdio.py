"""stdio: stdout carries protocol only, even with debug logging on."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, stdio_client

from .conftest import make_env, nano_brain_command

pytestmark = pytest.mark.anyio


async def test_debug_logging_never_reaches_stdout(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    command = nano_brain_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "-vv", "mcp", "--workspace", str(env.workspace)],
        env=env.vars,
    )
    errlog = tmp_path / "stderr.log"
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            written = await client.call_tool("memory_write", {"content": "stdio logging check"})
            assert not written.is_error
            found = await client.call_tool("memory_query", {"query": "logging check"})
            assert found.structured_content is not None
            assert found.structured_content["results"][0]["title"] == "stdio logging check"
    logged = errlog.read_text()
    assert "DEBUG" in logged, "debug logs go to stderr (and so never corrupt the protocol)"
