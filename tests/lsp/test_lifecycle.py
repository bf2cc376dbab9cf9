"""initialize, options, work-done progress, multi-root folders, the index-status request."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp

from .conftest import BILLING, start, stop


def test_progress_begin_report_end_with_counts(project: Path) -> None:
    async def body() -> None:
        session = await start(project)
        try:
            await session.indexed()
            kinds = [kind for kind, _ in session.progress]
            assert kinds[0] == "create"
            assert kinds[1] == "begin" and kinds[-1] == "end"
            reports = [v["message"] for k, v in session.progress if k == "report"]
            assert any(m.startswith("parse: ") and m.endswith("/2") for m in reports), reports
            end = session.progress[-1][1]
            assert "2 files" in end["message"] and "symbols" in end["message"]
        finally:
            await stop(session)

    asyncio.run(body())


def test_bad_options_are_reported_and_defaults_used(project: Path) -> None:
    async def body() -> None:
        options = {"hover": {"max_notes": "lots"}, "colour": "blue", "mcp": {"transport": "off"}}
        session = await start(project, options=options)
        try:
            await session.wait_for(lambda: len(session.messages) >= 2, 20)
            shown = " ".join(m.message for m in session.messages)
            assert "hover.max_notes" in shown and "colour" in shown
            assert all(m.type == lsp.MessageType.Warning for m in session.messages[:2])
            logged = " ".join(m.message for m in session.logs)
            assert "hover.max_notes" in logged
            await session.indexed()
            status = await session.client.protocol.send_request_async("nano-brain/indexStatus", {})
            # the valid option in the same object still applied: no MCP listener
            assert status.folders[0].mcp is None
        finally:
            await stop(session)

    asyncio.run(body())


def test_multi_root_and_folders_added_later(tmp_path: Path) -> None:
    roots = []
    for name in ("alpha", "beta", "gamma"):
        root = tmp_path / name
        root.mkdir()
        (root / f"{name}.py").write_text(BILLING.replace("compute_invoice", name), "utf-8")
        roots.append(root)

    async def body() -> None:
        session = await start(roots[0], folders=roots[:2], options={"mcp": {"transport": "off"}})
        try:
            await session.wait_for(lambda: sum(k == "end" for k, _ in session.progress) >= 2)
            session.client.workspace_did_change_workspace_folders(
                lsp.DidChangeWorkspaceFoldersParams(
                    lsp.WorkspaceFoldersChangeEvent(
                        added=[lsp.WorkspaceFolder(roots[2].as_uri(), "gamma")],
                        removed=[lsp.WorkspaceFolder(roots[0].as_uri(), "alpha")],
                    )
                )
            )
            await session.wait_for(lambda: sum(k == "end" for k, _ in session.progress) >= 3)
            status = await session.client.protocol.send_request_async("nano-brain/indexStatus", {})
            folders = {Path(f.root).name: f for f in status.folders}
            assert set(folders) == {"beta", "gamma"}
            assert folders["gamma"].counts.symbols == 3
            found = await session.client.workspace_symbol_async(
                lsp.WorkspaceSymbolParams(query="gamma_total")
            )
            assert [s.name for s in found] == ["gamma_total"]
            assert found[0].location.uri.endswith("gamma/gamma.py")
        finally:
            await stop(session)

    asyncio.run(body())
