"""HTTP routes declared in source code: what one file says about them (no other file needed).

A file states *facts*; linking them across the workspace (``_route_links``) makes routes:

- ``route``: a method and a path declared on a router (``@bp.get("/x")``, ``app.get("/x", h)``,
  ``r.GET("/x", h)``, ``@GetMapping``, ``path("x/", view)``, Rails ``get``/``resources``), with
  its handler: a qualified name when the handler is defined right there (a decorated function,
  an annotated method), else the handler expression as written (``views.index``, ``h.List``),
  resolved later like a call written at the same place;
- ``router``: a variable holding a router and its own prefix (``Blueprint(url_prefix=)``,
  ``APIRouter(prefix=)``, ``new Router({prefix})``, ``v1 := r.Group("/v1")``, whose parent is
  ``r``);
- ``mount``: a router mounted under a prefix on another (``register_blueprint``,
  ``include_router``, ``app.use("/api", router)``, Django ``include("app.urls")``);
- ``export``: the router a JavaScript module exports (``module.exports = router``).

The tree-sitter queries (``_langs/*_routes.scm``) find the candidate nodes; the rules beside
them (``_langs/*_routes.py``) read them. Paths are kept as the framework writes their
parameters (``{id}``, ``:id``, ``<int:id>``). Only literal paths count: a path built at run
time is not a declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tree_sitter import Node

from ._langs import go_routes, java_routes, javascript_routes, python_routes, ruby_routes
from ._langs.routing import (
    ANY,
    FACT_KINDS,
    INLINE_HANDLER,
    MODULE_PREFIX,
    MODULE_ROUTER,
    RAILS_PREFIX,
    REQUIRE_PREFIX,
    RouteCtx,
    join_paths,
    literal,
)
from .model import RouteFact

__all__ = [
    "ANY",
    "FACT_KINDS",
    "INLINE_HANDLER",
    "MODULE_PREFIX",
    "MODULE_ROUTER",
    "RAILS_PREFIX",
    "REQUIRE_PREFIX",
    "extract_routes",
    "join_paths",
    "literal",
]

_READERS: dict[str, Callable[[list[dict[str, list[Node]]], RouteCtx], None]] = {
    "python": python_routes.read_routes,
    "javascript": javascript_routes.read_routes,
    "typescript": javascript_routes.read_routes,
    "tsx": javascript_routes.read_routes,
    "go": go_routes.read_routes,
    "java": java_routes.read_routes,
    "ruby": ruby_routes.read_routes,
}


def extract_routes(
    language: str,
    matches: list[dict[str, list[Node]]],
    path: str,
    defs: dict[tuple[int, int], str],
    scope_of: Callable[[int], str | None],
    imports: Iterable[str],
) -> list[RouteFact]:
    """The route facts of one file from its query matches (``@route`` captures)."""
    reader = _READERS.get(language)
    if reader is None or not matches:
        return []
    ctx = RouteCtx(path, defs, scope_of, frozenset(imports), [])
    reader(matches, ctx)
    return ctx.out
