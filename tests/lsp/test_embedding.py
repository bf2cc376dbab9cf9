"""Embedding in the editor: after the index pass, in the background, with work-done progress
(percentage and estimate) until every chunk has its vector; a save meanwhile is indexed at
once; a restarted sidecar carries on; ``index.embed: false`` embeds nothing.

The real sidecar and the real code model, on a few hundred functions: enough for the
embedding to last some seconds on two cores (about 35 of these chunks a second).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from nano_brain import Brain

from .conftest import Session, start, stop

FILES, PER_FILE = 8, 60
CHUNKS = FILES * PER_FILE
NO_MCP = {"mcp": {"transport": "off"}}
#: A report while chunks wait: the brief's line, e.g. `code vectors: 96 of 300 (32%), about
#: 9 s left`.
REPORT = re.compile(r"code vectors: [\d,]+ of [\d,]+ \(\d+%\), about \d+(\.\d)? (s|min|h) left")


def _function(f: int, i: int) -> str:
    return (
        f"\n\ndef shipping_cost_{f}_{i}(order, region, carrier):\n"
        f'    """Price the delivery of order {i} by weight, distance and carrier table."""\n'
        "    weight = sum(item.weight for item in order.items)\n"
        "    base = carrier.rates.get(region, carrier.default_rate)\n"
        f"    surcharge = 0.05 * weight if weight > {i % 40 + 10} else 0.0\n"
        "    return round(base * weight + surcharge, 2)\n"
    )


@pytest.fixture
def shipping(tmp_path: Path) -> Path:
    root = tmp_path / "shipping"
    root.mkdir()
    for f in range(FILES):
        body = "".join(_function(f, i) for i in range(PER_FILE))
        (root / f"rates_{f}.py").write_text(f'"""Rates {f}."""{body}', encoding="utf-8")
    return root


def _kinds(events: list[tuple[str, Any]], kind: str) -> list[Any]:
    return [value for k, value in events if k == kind]


def _waiting_report(session: Session) -> bool:
    """A report with an estimate, sent while chunks still wait."""
    return any(
        REPORT.fullmatch(r["message"]) and r["percentage"] < 100
        for r in _kinds(session.embedding, "report")
    )


def _ended(session: Session) -> bool:
    return bool(_kinds(session.embedding, "end"))


def _pending(root: Path) -> int:
    with Brain(root, provider=None, code_provider=None) as brain:
        return brain.pending_embeddings("code")


def test_embedding_reports_progress_and_a_save_meanwhile_is_indexed_at_once(
    shipping: Path,
) -> None:
    async def body() -> None:
        session = await start(shipping, options=NO_MCP)
        try:
            await session.indexed()
            await session.wait_for(lambda: _waiting_report(session), 120)
            # a file saved while the embedding runs: its pass does not wait for it
            path = shipping / "rates_0.py"
            text = path.read_text(encoding="utf-8") + "\n\ndef brand_new_rate_lookup():\n    pass\n"
            path.write_text(text, encoding="utf-8")
            uri = session.open("rates_0.py", text)
            before = session.passes()
            session.client.text_document_did_save(
                lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri))
            )
            await session.wait_for(lambda: session.passes() > before, 60)
            assert not _ended(session), "the save's pass waited for the embedding"
            assert await session.symbols("brand_new_rate_lookup") == ["brand_new_rate_lookup"]

            await session.wait_for(lambda: _ended(session), 300)
            kinds = [k for k, _ in session.embedding]
            assert kinds[:2] == ["create", "begin"] and kinds[-1] == "end"
            percentages = [r["percentage"] for r in _kinds(session.embedding, "report")]
            assert percentages == sorted(percentages) and percentages[-1] == 100
            end = _kinds(session.embedding, "end")[0]["message"]
            assert end == f"code vectors: all {CHUNKS + 1:,}", end
            # the index status says the same, per space
            folder = (await session.status()).folders[0]
            code = folder.embedding.code
            assert (code.embedded, code.pending, code.fraction) == (CHUNKS + 1, 0, 1.0)
        finally:
            await stop(session)

    asyncio.run(body())


def test_a_restarted_sidecar_carries_on_where_the_last_one_stopped(shipping: Path) -> None:
    async def body() -> None:
        session = await start(shipping, options=NO_MCP)
        try:
            await session.indexed()
            await session.wait_for(lambda: _waiting_report(session), 120)
        finally:
            await stop(session)
        left = _pending(shipping)
        assert 0 < left < CHUNKS

        session = await start(shipping, options=NO_MCP)
        try:
            await session.wait_for(lambda: _ended(session), 300)
            begin = _kinds(session.embedding, "begin")[0]
            done = int(begin["message"].split()[2].replace(",", ""))
            assert done >= CHUNKS - left, begin  # what the first sidecar embedded is kept
        finally:
            await stop(session)
        assert _pending(shipping) == 0

    asyncio.run(body())


def test_index_embed_false_embeds_nothing_and_code_search_says_so(shipping: Path) -> None:
    async def body() -> None:
        session = await start(shipping, options={**NO_MCP, "index": {"embed": False}})
        try:
            await session.indexed()
            await asyncio.sleep(3)  # what the embedder would have done by now: nothing
            assert session.embedding == []
            found = await session.client.protocol.send_request_async(
                "nano-brain/search", {"query": "shipping cost of an order", "kind": ["code"]}
            )
            assert found.results and found.partial == (
                "code search is partial: 0% of code has vectors; results found by meaning "
                "may be missing"
            )
        finally:
            await stop(session)
        assert _pending(shipping) == CHUNKS

    asyncio.run(body())
