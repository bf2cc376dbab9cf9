"""The hover answers "why": an agent's anchored decision (with its author), the commits that
changed the symbol, and a link to the full view, which the `nano-brain.why` command returns."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types as lsp

from ._history import AGENT_DECISION, REFUND_COMMIT, agent_decision, make_history
from .conftest import start, stop

REFUND_LINE = 12  # `def refund_amount(...)` (0-based)


def test_hover_shows_an_agents_decision_and_the_commits_behind_the_code(project: Path) -> None:
    make_history(project)
    decision = agent_decision(project)

    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}})
        try:
            await session.indexed()
            uri = session.open("billing.py")
            hover = await session.hover(uri, REFUND_LINE, 10)
            assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
            text = hover.contents.value
            assert f"**{AGENT_DECISION}** `#{decision}` · by agent (MCP)" in text
            assert "Changed by" in text and REFUND_COMMIT[:40] in text
            assert "Grace Hopper" in text
            link = text.rsplit("](", 1)[1].rstrip(")")
            assert link.startswith("command:nano-brain.why?")
            assert "billing.py::RefundPolicy.refund_amount" in unquote(link)
            # the lens counts the agent's note like one saved in the editor
            lenses = await session.client.text_document_code_lens_async(
                lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri))
            )
            titles = {lens.range.start.line: lens.command.title for lens in lenses or []}
            assert titles.get(REFUND_LINE) == "1 note"
            notes = await session.command(
                "nano-brain.notes",
                {"symbol": "billing.py::RefundPolicy.refund_amount", "root": str(project)},
            )
            assert notes["notes"][0]["author"] == "agent (MCP)"
            # the full view, as the hover's link runs it, and from a position
            view = await session.command(
                "nano-brain.why",
                {"symbol": "billing.py::RefundPolicy.refund_amount", "root": str(project)},
            )
            assert [n["id"] for n in view["notes"]] == [decision]
            assert [c["subject"] for c in view["commits"]] == [
                REFUND_COMMIT, "billing: invoices and refunds"
            ]  # fmt: skip
            assert view["text"].startswith("# Why `RefundPolicy.refund_amount`")
            at = await session.command(
                "nano-brain.why", {"uri": uri, "position": {"line": REFUND_LINE, "character": 10}}
            )
            assert at["symbol"] == view["symbol"]
        finally:
            await stop(session)

    asyncio.run(body())
