"""Hover: anchored notes first, related memory, nothing on unrelated words, live staleness."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.embedding import EmbeddingProvider

from .conftest import BILLING, start, stop

DEF_LINE = 3  # `def compute_invoice_total(...)` (0-based)


def _text(hover: lsp.Hover | None) -> str:
    assert hover is not None
    assert isinstance(hover.contents, lsp.MarkupContent)
    return hover.contents.value


def test_hover_shows_anchored_decision_at_definition_and_call_site(
    project: Path, seeded: dict[str, str]
) -> None:
    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}})
        try:
            await session.indexed()
            uri = session.open("billing.py")
            text = _text(await session.hover(uri, DEF_LINE, 10))
            assert f"#{seeded['decision']}" in text
            assert "Invoice totals round after tax" in text
            assert "decision" in text and "may be stale" not in text
            assert "finance reconciles" in text  # the snippet
            # at a call site in another file, through the code index
            other = session.open("util.py")
            text = _text(await session.hover(other, 4, 15))
            assert f"#{seeded['decision']}" in text
            # a word that names nothing and relates to no memory: no hover at all
            assert await session.hover(uri, 14, 16) is None  # `return`
        finally:
            await stop(session)

    asyncio.run(body())


def test_editing_anchored_symbol_marks_note_possibly_stale(
    project: Path, seeded: dict[str, str]
) -> None:
    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}})
        try:
            await session.indexed()
            uri = session.open("billing.py")
            await session.wait_for(lambda: uri in session.diagnostics, 20)
            assert list(session.diagnostics[uri]) == []
            edited = BILLING.replace("round(subtotal * (1 + tax_rate), 2)", "subtotal + tax_rate")
            session.replace(uri, edited)
            await session.wait_for(lambda: bool(session.diagnostics.get(uri)), 20)
            [diag] = session.diagnostics[uri]
            assert diag.severity == lsp.DiagnosticSeverity.Hint
            assert seeded["decision"] in diag.message and diag.range.start.line == DEF_LINE
            assert "may be stale" in _text(await session.hover(uri, DEF_LINE, 10))
            # saved to disk and re-indexed: the index itself now reports the change
            (project / "billing.py").write_text(edited, encoding="utf-8")
            ends = sum(k == "end" for k, _ in session.progress)
            session.client.text_document_did_save(
                lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri))
            )
            await session.wait_for(lambda: sum(k == "end" for k, _ in session.progress) > ends)
            # the save named its file: the pass looked at it alone, not at the whole folder
            last = (await session.status()).folders[0].last_pass
            assert (last.paths, last.changed, last.unchanged) == (1, 1, 0)
            lenses = await session.client.text_document_code_lens_async(
                lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri))
            )
            assert [lens.command.title for lens in lenses] == ["1 note (1 may be stale)"]
        finally:
            await stop(session)

    asyncio.run(body())


def test_a_note_written_elsewhere_shows_in_the_next_hover(
    project: Path, seeded: dict[str, str], real_provider: EmbeddingProvider
) -> None:
    """Related-memory results are cached between hovers, and any write drops them."""
    title = "Checkout applies discounts first"

    async def body() -> None:
        # budget 0: this test is about what the hover shows, not about how fast
        options = {"mcp": {"transport": "off"}, "hover": {"related_budget_ms": 0}}
        session = await start(project, options=options)
        try:
            await session.indexed()
            uri = session.open("util.py")
            before = await session.hover(uri, 3, 6)  # `checkout`: nothing anchored
            assert before is None or title not in _text(before)
            hits = (await session.status()).folders[0].hover_cache.hits
            await session.hover(uri, 3, 6)
            assert (await session.status()).folders[0].hover_cache.hits == hits + 1
            # another process writes (as the CLI or an agent over MCP would)
            with Brain(project, provider=real_provider) as brain:
                brain.write("Checkout must apply the cart discount before tax.", title=title)
            text = _text(await session.hover(uri, 3, 6))
            assert "**Related memory**" in text and title in text
        finally:
            await stop(session)

    asyncio.run(body())


def test_opening_a_file_prefetches_its_hovers(project: Path, seeded: dict[str, str]) -> None:
    """The related memories of a file's symbols and of what it calls are searched when it
    opens, so the first hover on them finds them ready."""

    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}})
        try:
            await session.indexed()
            uri = session.open("util.py")  # defines checkout, calls compute_invoice_total

            async def misses() -> int:
                return (await session.status()).folders[0].hover_cache.misses

            await asyncio.sleep(3)  # two searches; nothing else runs
            before = await misses()
            for line, character in ((3, 6), (4, 15)):  # `checkout`, the call
                await session.hover(uri, line, character)
            assert await misses() == before  # both answered from the prefetched results
            await session.hover(uri, 4, 35)  # `cart`: a word nobody prefetched
            assert await misses() == before + 1
        finally:
            await stop(session)

    asyncio.run(body())


def test_retracted_and_superseded_anchored_notes_stay_hidden(
    project: Path, real_provider: EmbeddingProvider
) -> None:
    """Hover, the "N notes" lens, stale hints and the notes command read anchored notes with
    the default statuses of a search: retracted and superseded notes are not shown."""
    symbol = "billing.py::compute_invoice_total"
    with Brain(project, provider=real_provider) as brain:
        index = CodeIndex(brain)
        index.index()
        shown = brain.write(
            "Invoice totals round after tax\n\nRound once, at the end.",
            title="Invoice totals round after tax", tags=["decision"],
        ).document.id  # fmt: skip
        old = brain.write(
            "Invoice lines round one by one\n\nEach line is rounded.",
            title="Invoice lines round one by one",
        ).document.id  # fmt: skip
        wrong = brain.write(
            "Invoices carry no tax\n\nTax is never added.", title="Invoices carry no tax"
        ).document.id
        successor = brain.write(
            "Rounding moved to the finance service.", title="Rounding moved to finance"
        ).document.id
        for note in (shown, old, wrong):
            index.anchor(note, symbol)
        brain.supersede(old, successor)
        brain.retract(wrong)

    async def body() -> None:
        session = await start(project, options={"mcp": {"transport": "off"}})
        try:
            await session.indexed()
            uri = session.open("billing.py")
            text = _text(await session.hover(uri, DEF_LINE, 10))
            assert f"#{shown}" in text
            assert f"#{old}" not in text and f"#{wrong}" not in text
            lenses = await session.client.text_document_code_lens_async(
                lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri))
            )
            assert [lens.command.title for lens in lenses] == ["1 note"]
            notes = await session.command("nano-brain.notes", {"uri": uri, "symbol": symbol})
            assert [n["id"] for n in notes["notes"]] == [shown]
            await session.wait_for(lambda: uri in session.diagnostics, 20)
            edited = BILLING.replace("round(subtotal * (1 + tax_rate), 2)", "subtotal + tax_rate")
            session.replace(uri, edited)
            await session.wait_for(lambda: bool(session.diagnostics.get(uri)), 20)
            await asyncio.sleep(0.5)  # every hint of this change has arrived
            assert [d.data["note"] for d in session.diagnostics[uri]] == [shown]
        finally:
            await stop(session)

    asyncio.run(body())
