"""Fixtures for the language-server tests: a fixture workspace and a real stdio client.

The server is the real `nano-brain lsp` in a subprocess, spoken to by pygls's
``LanguageClient`` (nano_brain.testing, shared with the benchmarks); every test runs its
client in ``asyncio.run`` (no plugin needed).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.embedding import EmbeddingProvider
from nano_brain.testing import Session, server_command, start, stop

__all__ = ["BILLING", "UTIL", "Session", "server_command", "start", "stop"]

BILLING = textwrap.dedent(
    '''\
    """Billing: invoices and refunds."""


    def compute_invoice_total(items, tax_rate):
        """Sum the line items and add tax."""
        subtotal = sum(item.price * item.quantity for item in items)
        return round(subtotal * (1 + tax_rate), 2)


    class RefundPolicy:
        """Who may get money back, and how much."""

        def refund_amount(self, order, days_since_purchase):
            if days_since_purchase > 30:
                return 0
            return order.total
    '''
)

UTIL = textwrap.dedent(
    """\
    from billing import compute_invoice_total


    def checkout(cart):
        return compute_invoice_total(cart.items, 0.2)
    """
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "billing.py").write_text(BILLING, encoding="utf-8")
    (root / "util.py").write_text(UTIL, encoding="utf-8")
    return root


@pytest.fixture
def seeded(project: Path, real_provider: EmbeddingProvider) -> Iterator[dict[str, str]]:
    """The project indexed, with a decision anchored to ``compute_invoice_total``."""
    with Brain(project, provider=real_provider) as brain:
        index = CodeIndex(brain)
        index.index()
        decision = brain.write(
            "Invoice totals round half-even to cents\n\nWe round the final invoice total "
            "to 2 decimals after tax, never per line; finance reconciles on totals.",
            title="Invoice totals round after tax",
            tags=["decision"],
        ).document.id
        index.anchor(decision, "billing.py::compute_invoice_total")
        unrelated = brain.write(
            "The staging database is rebuilt every Sunday night.", title="Staging rebuild"
        ).document.id
    yield {"decision": decision, "unrelated": unrelated}
