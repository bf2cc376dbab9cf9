"""The hover's "Changed by" on a team store's clone: the same commits as on a local store
(issue 32: the git history stays with the clone, beside its code index, and is shown).

Both sidecars run lexical only (`embedding.provider: none`): no vector query reaches the
team store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from nano_brain.store.postgres import testserver

from ._history import REFUND_COMMIT, make_history
from .conftest import start, stop

REFUND_LINE = 12  # `def refund_amount(...)` (0-based)


def _changed_by(text: str) -> list[str]:
    """The lines of the hover's "Changed by" list."""
    lines = text.splitlines()
    if "**Changed by**" not in lines:
        return []
    out = []
    for line in lines[lines.index("**Changed by**") + 1 :]:
        if not line.startswith("- "):
            break
        out.append(line)
    return out


def _same(commits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The commits as each store shows them, but for their document ids (each store's own)."""
    return [{k: v for k, v in c.items() if k != "id"} for c in commits]


async def _hover_history(project: Path) -> tuple[list[str], dict[str, Any]]:
    session = await start(project, options={"mcp": {"transport": "off"}})
    try:
        await session.indexed()
        uri = session.open("billing.py")
        hover = await session.hover(uri, REFUND_LINE, 10)
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        view = await session.command(
            "nano-brain.why",
            {"symbol": "billing.py::RefundPolicy.refund_amount", "root": str(project),
             "related": 0},
        )  # fmt: skip
        return _changed_by(hover.contents.value), view
    finally:
        await stop(session)


def test_a_team_clone_hovers_the_same_commits_as_a_local_store(
    project: Path, pg_server: testserver.TestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_history(project)
    monkeypatch.setenv("NANO_BRAIN_EMBEDDING__PROVIDER", "none")
    local_lines, local_view = asyncio.run(_hover_history(project))
    assert len(local_lines) == 2 and REFUND_COMMIT[:40] in local_lines[0]

    monkeypatch.setenv("NANO_BRAIN_STORAGE__URL", pg_server.app_url)
    monkeypatch.setenv("NANO_BRAIN_STORAGE__WORKSPACE", "team/hover")
    team_lines, team_view = asyncio.run(_hover_history(project))
    assert team_lines == local_lines
    assert _same(team_view["commits"]) == _same(local_view["commits"])
    assert team_view["history"] == local_view["history"] == "2 commits indexed"
