"""The code-index tools: find symbols, who calls what, what a change affects, code search.

Thin calls into the workspace's code index (`Workspace.code`); the index itself is kept current by
`nano-brain index` or the editor sidecar.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .. import fields
from ..codeindex import MAX_FLOW_DEPTH
from ..codeindex.service import MAX_IMPACT_DEPTH
from ..models import SearchResponse
from ..search import MAX_QUERY_CHARS
from ..why import WhyView
from ..workspace import Workspace
from .registry import StrictInput, ToolRegistry
from .tools_memory import partial_notice

SymbolRef = Field(
    min_length=1,
    max_length=1024,
    pattern=fields.ONE_LINE_PATTERN,
    description="a qualified name (`pkg/mod.py::Class.method`), `Class.method`, or a bare name "
    "when it is unique",
)


_Input = StrictInput


class SymbolsInput(_Input):
    query: str = Field(
        min_length=1,
        max_length=1024,
        pattern=fields.ONE_LINE_PATTERN,
        description="name, suffix or substring",
    )
    kind: str | None = Field(
        None,
        max_length=32,
        pattern=fields.ONE_LINE_PATTERN,
        description="function, class, method, ...",
    )
    limit: int = Field(50, ge=1, le=500)


class SymbolInput(_Input):
    symbol: str = SymbolRef


class ImpactInput(SymbolInput):
    depth: int = Field(3, ge=1, le=MAX_IMPACT_DEPTH)


class CodeSearchInput(_Input):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    max_results: int = Field(10, ge=1, le=100)
    mode: Literal["hybrid", "lexical", "vector"] = "hybrid"


class WhyInput(SymbolInput):
    max_commits: int = Field(10, ge=0, le=200, description="newest commits listed")
    max_sessions: int = Field(5, ge=0, le=100)
    related: int = Field(3, ge=0, le=20, description="related notes and sessions searched for")


class RoutesInput(_Input):
    path: str | None = Field(
        None,
        max_length=1024,
        pattern=fields.ONE_LINE_PATTERN,
        description="a glob over route paths (`/api/users/*`) or a part of them (`users`)",
    )
    method: str | None = Field(
        None, max_length=16, pattern=r"^[A-Za-z]+$", description="GET, POST, ... (ANY matches)"
    )
    flow: bool = Field(
        False,
        description="also follow each route: its handler, what it calls and the notes on the way",
    )
    depth: int = Field(3, ge=1, le=MAX_FLOW_DEPTH, description="hops of calls a flow follows")
    limit: int = Field(50, ge=1, le=500)


class RoutesOutput(BaseModel):
    routes: list[dict[str, Any]] = Field(
        description="method, path, framework, handler (qualified name; null when inline or "
        "unresolved), handler_expr, file, line"
    )
    flows: list[dict[str, Any]] = Field(
        default_factory=list,
        description="with flow: per route, steps (symbols reached, by depth), unresolved calls, "
        "and notes anchored to the handler or any step",
    )


class SymbolsOutput(BaseModel):
    symbols: list[dict[str, Any]]


class CallsOutput(BaseModel):
    calls: list[dict[str, Any]] = Field(
        description="caller, callee (None if unresolved), expression (the callee as written, "
        "blanks collapsed, clipped), line"
    )


class ImpactOutput(BaseModel):
    symbol: str
    depth: int
    affected: list[dict[str, Any]]
    notes: list[dict[str, Any]] = Field(description="notes anchored to affected symbols")


def register(registry: ToolRegistry) -> None:
    """Add the code-index tools to `registry`."""

    @registry.tool(
        "code_symbols", title="Find symbols", input=SymbolsInput, output=SymbolsOutput,
        read_only=True,
    )  # fmt: skip
    def code_symbols(ws: Workspace, p: SymbolsInput) -> SymbolsOutput:
        """Find functions, classes, methods and other symbols of this workspace's code by
        name (qualified name, `Class.method` suffix, bare name or substring), with their file,
        lines, signature and docstring. Use it to locate code before reading it."""
        found = ws.code.symbols(p.query, p.kind, p.limit)
        return SymbolsOutput(symbols=[s.to_dict() for s in found])

    @registry.tool(
        "code_callers", title="Who calls this", input=SymbolInput, output=CallsOutput,
        read_only=True,
    )  # fmt: skip
    def code_callers(ws: Workspace, p: SymbolInput) -> CallsOutput:
        """The call sites that confidently call a symbol (resolved through imports, the same
        file or `self`); calls that only share the name are not listed. Use it before
        changing a function's behaviour or signature."""
        return CallsOutput(calls=[c.to_dict() for c in ws.code.callers(p.symbol)])

    @registry.tool(
        "code_callees", title="What this calls", input=SymbolInput, output=CallsOutput,
        read_only=True,
    )  # fmt: skip
    def code_callees(ws: Workspace, p: SymbolInput) -> CallsOutput:
        """The calls a symbol makes, resolved to their definitions where unambiguous (callee
        is null otherwise). Use it to understand what a function depends on."""
        return CallsOutput(calls=[c.to_dict() for c in ws.code.callees(p.symbol)])

    @registry.tool(
        "code_impact", title="Impact of a change", input=ImpactInput, output=ImpactOutput,
        read_only=True,
    )  # fmt: skip
    def code_impact(ws: Workspace, p: ImpactInput) -> ImpactOutput:
        """Who is affected by changing a symbol: its transitive callers up to `depth`, and
        the notes and decisions anchored to any of them (with whether their code changed
        since). Use it before a refactor to find the decisions you might break."""
        return ImpactOutput.model_validate(ws.code.impact(p.symbol, p.depth).to_dict())

    @registry.tool(
        "code_why", title="Why is this code like this", input=WhyInput, output=WhyView,
        read_only=True, render=lambda view: view.text,
    )  # fmt: skip
    def code_why(ws: Workspace, p: WhyInput) -> WhyView:
        """Why a symbol is as it is: the notes and decisions anchored to it (stale ones
        flagged), the git commits that changed it (newest first, following renames), the
        agent sessions that edited its file, and related memory. Use it before changing
        code you did not write, to respect the decisions behind it."""
        return ws.why(p.symbol, commits=p.max_commits, sessions=p.max_sessions, related=p.related)

    @registry.tool(
        "code_search", title="Search code", input=CodeSearchInput, output=SearchResponse,
        read_only=True, notice=partial_notice,
    )  # fmt: skip
    def code_search(ws: Workspace, p: CodeSearchInput) -> SearchResponse:
        """Search this workspace's indexed code (one result per symbol: signature, docstring
        and body) by meaning and keywords. Use it to find where something is implemented
        when you don't know its name. While the code is still being embedded, `partial`
        says how far it is: what only its meaning would find may be missing."""
        return ws.code.search(p.query, limit=p.max_results, mode=p.mode)

    @registry.tool(
        "code_routes", title="HTTP routes", input=RoutesInput, output=RoutesOutput,
        read_only=True,
    )  # fmt: skip
    def code_routes(ws: Workspace, p: RoutesInput) -> RoutesOutput:
        """The HTTP routes this workspace's code declares (Flask, FastAPI, Django, Express,
        Koa, Go net/http, Gin, Echo, Spring, Rails), with full paths and handler symbols;
        filter by path and method. With `flow`, each route's handler, the functions it calls
        (resolved calls, `depth` hops) and the notes and decisions anchored along the way. Use
        it to find the code behind an endpoint before changing it."""
        routes = ws.routes
        found = routes.list(method=p.method, path=p.path, limit=p.limit)
        flows = [routes.flow_of(r, p.depth).to_dict() for r in found[:20]] if p.flow else []
        return RoutesOutput(routes=[r.to_dict() for r in found], flows=flows)
