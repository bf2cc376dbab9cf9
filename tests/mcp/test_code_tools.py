"""The code-index tools over MCP, on a small indexed workspace (real model, in-process server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from nano_brain import Brain
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config
from nano_brain.mcp import build_server
from nano_brain.workspace import Workspace

pytestmark = pytest.mark.anyio

PRICING = '''\
def apply_discount(total, rate):
    """Reduce a cart total by a percentage rate."""
    return total * (1 - rate)


def checkout(cart):
    return apply_discount(sum(cart), 0.1)
'''


async def test_code_tools_answer_from_the_index(workspace: Path, real_provider) -> None:
    (workspace / "shop").mkdir()
    (workspace / "shop" / "pricing.py").write_text(PRICING)
    with Brain(workspace, provider=real_provider, actor="mcp") as brain:
        CodeIndex(brain).index()
        brain.embed_pending()
        async with Client(build_server(Workspace(brain))) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {
                "code_symbols",
                "code_callers",
                "code_callees",
                "code_impact",
                "code_search",
            } <= names
            found = await client.call_tool("code_symbols", {"query": "apply_discount"})
            symbols = found.structured_content["symbols"]
            assert symbols[0]["qualified_name"] == "shop/pricing.py::apply_discount"
            assert symbols[0]["docstring"].startswith("Reduce a cart total")
            callers = await client.call_tool("code_callers", {"symbol": "apply_discount"})
            assert [c["caller"] for c in callers.structured_content["calls"]] == [
                "shop/pricing.py::checkout"
            ]
            impact = await client.call_tool("code_impact", {"symbol": "apply_discount"})
            assert [a["qualified_name"] for a in impact.structured_content["affected"]] == [
                "shop/pricing.py::checkout"
            ]
            hits = await client.call_tool("code_search", {"query": "percentage price reduction"})
            assert hits.structured_content["results"][0]["title"].endswith("apply_discount")
            bad = await client.call_tool("code_impact", {"symbol": "apply_discount", "depth": 99})
            assert bad.is_error
            missing = await client.call_tool("code_callers", {"symbol": "no_such_function"})
            assert missing.is_error


ROUTES = """\
from flask import Blueprint

from .pricing import checkout

bp = Blueprint("cart", __name__, url_prefix="/cart")


@bp.post("/checkout")
def pay():
    return checkout([1, 2])
"""


async def test_code_routes_lists_routes_and_their_flows(workspace: Path) -> None:
    (workspace / "shop").mkdir()
    (workspace / "shop" / "pricing.py").write_text(PRICING)
    (workspace / "shop" / "views.py").write_text(ROUTES)
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, actor="mcp") as brain:
        CodeIndex(brain).index()
        async with Client(build_server(Workspace(brain))) as client:
            found = await client.call_tool("code_routes", {"path": "/cart/*", "flow": True})
            data = found.structured_content
            assert [(r["method"], r["path"], r["handler"]) for r in data["routes"]] == [
                ("POST", "/cart/checkout", "shop/views.py::pay")
            ]
            steps = [s["qualified_name"] for s in data["flows"][0]["steps"]]
            assert steps == ["shop/pricing.py::checkout", "shop/pricing.py::apply_discount"]
            none = await client.call_tool("code_routes", {"method": "PUT"})
            assert none.structured_content["routes"] == []
            bad = await client.call_tool("code_routes", {"method": "G E T"})
            assert bad.is_error
