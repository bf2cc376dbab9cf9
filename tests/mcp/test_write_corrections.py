"""MCP `memory_write` says what the CLI's write says (issue 32, papercuts 6 and 7): a
rewritten retracted note stays retracted, named with the way back, and a write of a source
a person forgot lifts its tombstone, as the CLI's does. Lexical only: no vector query
reaches the team store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import make_env, nano_brain_command, stdio_client
from .test_tools import ok

pytestmark = pytest.mark.anyio


async def test_memory_write_names_a_retraction_and_lifts_a_forget(
    tmp_path: Path, _mcp_store: str
) -> None:
    env = make_env(tmp_path)
    env.vars["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"

    def cli(*args: str) -> Any:
        out = subprocess.run([*nano_brain_command(), *args, "--json", "-w", str(env.workspace)],
                             env=env.vars, capture_output=True, text=True, check=True)  # fmt: skip
        return json.loads(out.stdout)

    async with stdio_client(env) as client:
        first = await ok(client, "memory_write", {
            "content": "Retries back off twice.", "source_path": "notes/retries.md",
        })  # fmt: skip
        doc = first["document"]["id"]
        assert first["notices"] == []
        await ok(client, "memory_retract", {"id": doc, "reason": "three times now"})
        again = await ok(client, "memory_write", {
            "content": "Retries back off three times.", "source_path": "notes/retries.md",
        })  # fmt: skip
        assert again["document"]["status"] == "retracted"
        assert again["notices"] == [
            f"#{doc} is retracted: hidden from searches and hovers; "
            f"`nano-brain confirm #{doc}` makes it active again"
        ]
        # a person forgets it at the terminal; the agent's explicit write brings it back
        cli("forget", f"#{doc}")
        assert [t["source"] for t in cli("tombstones")] == ["notes/retries.md"]
        back = await ok(client, "memory_write", {
            "content": "Retries back off.", "source_path": "notes/retries.md",
        })  # fmt: skip
        assert back["created"] and back["notices"] == [
            "notes/retries.md was forgotten (`nano-brain forget`): this write brings it back "
            "and lifts its tombstone (`nano-brain forget` it again to keep it deleted)"
        ]
    assert cli("tombstones") == []
    lifted = [e for e in cli("log") if e["action"] == "unforget"]
    assert [(e["actor"], e["details"]) for e in lifted] == [
        ("mcp", {"source": "notes/retries.md", "by": "write"})
    ]
