"""Code actions and executeCommand end to end: each note is in the store afterwards."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.filters import STATUSES, Filters

from .conftest import Session, start, stop


def _span(a: int, b: int, c: int, d: int) -> dict[str, Any]:
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


async def _ready(project: Path) -> tuple[Session, str]:
    session = await start(
        project,
        options={"mcp": {"transport": "off"}},
        workspace=lsp.WorkspaceClientCapabilities(
            workspace_folders=True,
            code_lens=lsp.CodeLensWorkspaceClientCapabilities(refresh_support=True),
        ),
    )
    await session.indexed()
    return session, session.open("billing.py")


def test_save_selection_is_anchored_and_found_by_cli_query(project: Path) -> None:
    async def body() -> dict[str, Any]:
        session, uri = await _ready(project)
        try:
            actions = await session.client.text_document_code_action_async(
                lsp.CodeActionParams(
                    lsp.TextDocumentIdentifier(uri),
                    lsp.Range(lsp.Position(13, 8), lsp.Position(15, 0)),
                    lsp.CodeActionContext(diagnostics=[]),
                )
            )
            by_command = {a.command.command: a for a in actions}
            assert "nano-brain.saveSelection" in by_command
            assert "nano-brain.supersede" not in by_command  # nothing anchored here yet
            args = by_command["nano-brain.saveSelection"].command.arguments[0]
            result = await session.command(
                "nano-brain.saveSelection", {**args, "title": "Refunds stop after thirty days"}
            )
            await session.wait_for(lambda: any("Saved #" in m.message for m in session.messages), 5)
            return result
        finally:
            await stop(session)

    result = asyncio.run(body())
    assert result["anchored_to"] == "billing.py::RefundPolicy.refund_amount"
    note_id = result["note"]["id"]
    with Brain(project) as brain:
        doc = brain.get(note_id)
        assert "days_since_purchase > 30" in (doc.content or "")
        assert doc.author == "lsp"
        anchors = CodeIndex(brain).anchors(note=note_id)
        assert [a.qualified_name for a in anchors] == ["billing.py::RefundPolicy.refund_amount"]
    out = subprocess.run(
        ["nano-brain", "query", "refunds thirty days", "--json", "-w", str(project)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert note_id in [hit["id"] for hit in json.loads(out.stdout)["results"]]


def test_decision_supersede_retract_search_and_lens(project: Path) -> None:
    async def body() -> dict[str, Any]:
        session, uri = await _ready(project)
        try:
            decision = await session.command(
                "nano-brain.recordDecision",
                {
                    "uri": uri,
                    "range": _span(3, 4, 3, 4),
                    "title": "Tax applies to the subtotal",
                    "text": "Tax is applied once to the subtotal, not per line.",
                },  # fmt: skip
            )
            old = decision["note"]["id"]
            assert decision["anchored_to"] == "billing.py::compute_invoice_total"
            # the client is asked to re-read its lenses ("N notes") after a note changes
            await session.wait_for(lambda: session.lens_refreshes > 0, 10)
            anchored = await session.command(
                "nano-brain.notes", {"uri": uri, "symbol": "billing.py::compute_invoice_total"}
            )
            [shown] = anchored["notes"]
            assert (shown["id"], shown["title"]) == (old, "Tax applies to the subtotal")
            assert "decision" in shown["tags"] and shown["collection"]
            assert shown["created_at"].startswith(str(time.gmtime().tm_year))
            lenses = await session.client.text_document_code_lens_async(
                lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri))
            )
            assert [(lens.range.start.line, lens.command.title) for lens in lenses] == [
                (3, "1 note")
            ]
            actions = await session.client.text_document_code_action_async(
                lsp.CodeActionParams(
                    lsp.TextDocumentIdentifier(uri),
                    lsp.Range(lsp.Position(5, 0), lsp.Position(5, 0)),
                    lsp.CodeActionContext(diagnostics=[]),
                )
            )
            offered = {a.command.command: a.command.arguments[0] for a in actions}
            assert offered["nano-brain.supersede"]["old"] == old
            assert offered["nano-brain.retract"]["id"] == old
            new = await session.command(
                "nano-brain.supersede",
                {**offered["nano-brain.supersede"], "text": "Tax is applied per line since v2."},
            )
            assert new["anchored_to"] == ["billing.py::compute_invoice_total"]
            related = await session.command(
                "nano-brain.searchRelated", {"uri": uri, "query": "tax per line"}
            )
            ids = [r["id"] for r in related["results"]]
            assert new["note"]["id"] in ids and old not in ids  # superseded is excluded
            structured = await session.client.protocol.send_request_async(
                "nano-brain/search", {"query": "tax per line", "limit": 5}
            )
            assert structured.results[0].id == new["note"]["id"]
            before = session.lens_refreshes
            retracted = await session.command(
                "nano-brain.retract", {"id": new["note"]["id"], "reason": "wrong"}
            )
            await session.wait_for(lambda: session.lens_refreshes > before, 10)
            assert retracted["note"]["status"] == "retracted"
            with pytest.raises(JsonRpcException, match="title or text"):
                await session.command("nano-brain.recordDecision", {"uri": uri})
            with pytest.raises(JsonRpcException, match="bogus: Extra inputs"):
                await session.command("nano-brain.retract", {"id": old, "bogus": 1})
            return {"old": old, "new": new["note"]["id"]}
        finally:
            await stop(session)

    ids = asyncio.run(body())
    with Brain(project) as brain:
        assert brain.get(ids["old"]).status == "superseded"
        assert brain.get(ids["old"]).superseded_by == ids["new"]
        assert brain.get(ids["new"]).status == "retracted"
        assert "decision" in brain.get(ids["old"]).tags
        every_note = Filters(kinds=("note",), statuses=STATUSES)
        assert len(brain.list(every_note)) == 2  # the rejected commands wrote nothing
