"""HTTP routes as front ends ask for them: list and filter them, follow a route's flow.

A route's *flow* is its handler, then what the handler calls, breadth first, through calls the
code index resolved confidently (``depth`` hops at most), with the notes and decisions
anchored to any symbol on the way. The CLI (``nano-brain routes``), the MCP tool
``code_routes`` and the editor's hover all read routes here.
"""

from __future__ import annotations

import builtins  # in `Routes`, its method `list` hides the type in annotations
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from ..filters import Filters
from ..store import CodeStore
from ..store.routes import RouteRecord
from .service import AnchorInfo

if TYPE_CHECKING:
    from ..brain import Brain

MAX_FLOW_DEPTH = 6
#: Symbols one flow lists at most (a handler that reaches half the code base stops there).
MAX_FLOW_STEPS = 200
_METHOD = re.compile(r"[A-Za-z]{1,16}")
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class RouteInfo:
    method: str
    path: str
    framework: str
    handler: str | None
    """the handler's qualified name; None when it is inline or did not resolve"""
    handler_expr: str
    file: str
    line: int

    @classmethod
    def of(cls, rec: RouteRecord) -> RouteInfo:
        return cls(
            rec.method, rec.path, rec.framework, rec.handler, rec.handler_expr, rec.file, rec.line
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True, slots=True)
class FlowStep:
    """A symbol the handler reaches: ``depth`` calls away, called from ``via`` at path:line."""

    qualified_name: str
    depth: int
    via: str
    path: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class RouteFlow:
    route: RouteInfo
    depth: int
    steps: list[FlowStep] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    """calls on the way that did not resolve (their expressions), where the flow may go on"""
    notes: list[AnchorInfo] = field(default_factory=list)
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "route": self.route.to_dict(),
            "depth": self.depth,
            "steps": [s.to_dict() for s in self.steps],
            "unresolved": self.unresolved,
            "notes": [n.to_dict() for n in self.notes],
            "truncated": self.truncated,
        }


class Routes:
    """The routes of one workspace's code index."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.code = CodeStore(brain.store)

    def list(
        self,
        *,
        method: str | None = None,
        path: str | None = None,
        framework: str | None = None,
        limit: int = 200,
    ) -> list[RouteInfo]:
        """Routes by path; ``method`` also matches routes that take any method; ``path`` is a
        glob (``/api/*``) when it has ``*``, ``?`` or ``[``, else a part of the path."""
        if limit < 1:
            raise InvalidInputError("limit must be >= 1")
        return [
            RouteInfo.of(r)
            for r in self.brain.store.list_routes(
                method=_method(method),
                path_like=_glob(path),
                framework=_clean(framework, "framework") if framework else None,
                limit=limit,
            )
        ]

    def of_symbols(self, qualified_names: builtins.list[str]) -> builtins.list[RouteInfo]:
        """The routes these symbols handle."""
        return [RouteInfo.of(r) for r in self.brain.store.routes_of_handlers(qualified_names)]

    def find(self, route: str) -> builtins.list[RouteInfo]:
        """Routes named ``METHOD /path`` or ``/path`` exactly (a glob path selects several)."""
        text = _clean(route, "route")
        method, _, rest = text.partition(" ")
        if rest and _METHOD.fullmatch(method) and not method.startswith("/"):
            wanted_method, wanted_path = method.upper(), rest.strip()
        else:
            wanted_method, wanted_path = None, text
        if _GLOB_CHARS.search(wanted_path):
            found = self.list(method=wanted_method, path=wanted_path, limit=1000)
        else:
            found = [
                r
                for r in self.list(method=wanted_method, path=wanted_path, limit=1000)
                if r.path == wanted_path
            ]
        if wanted_method:
            exact = [r for r in found if r.method == wanted_method]
            found = exact or found
        return found

    def flow(self, route: str, depth: int = 3) -> builtins.list[RouteFlow]:
        """The flow of each route ``route`` names (see the module docstring)."""
        if not isinstance(depth, int) or not 1 <= depth <= MAX_FLOW_DEPTH:
            raise InvalidInputError(f"flow depth must be 1..{MAX_FLOW_DEPTH}")
        return [self.flow_of(r, depth) for r in self.find(route)]

    def flow_of(self, route: RouteInfo, depth: int = 3) -> RouteFlow:
        """The flow of one route (as :meth:`list` returned it)."""
        if not isinstance(depth, int) or not 1 <= depth <= MAX_FLOW_DEPTH:
            raise InvalidInputError(f"flow depth must be 1..{MAX_FLOW_DEPTH}")
        flow = RouteFlow(route, depth)
        if route.handler is None:
            return flow
        seen = {route.handler}
        frontier = [route.handler]
        unresolved: dict[str, None] = {}
        for level in range(1, depth + 1):
            nxt: list[str] = []
            for edge in self.code.callees(frontier):
                if edge.target is None:
                    unresolved.setdefault(edge.expression or edge.name, None)
                    continue
                if edge.target in seen:
                    continue
                if len(flow.steps) >= MAX_FLOW_STEPS:
                    flow.truncated = True
                    break
                seen.add(edge.target)
                flow.steps.append(
                    FlowStep(edge.target, level, edge.source or "", edge.path, edge.line)
                )
                nxt.append(edge.target)
            if not nxt or flow.truncated:
                break
            frontier = nxt
        flow.unresolved = list(unresolved)[:50]
        names = [route.handler, *(s.qualified_name for s in flow.steps)]
        flow.notes = [
            AnchorInfo.of(a) for a in self.code.anchors(qualified_names=names, visible=Filters())
        ]
        return flow


def _clean(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} is empty")
    if len(value) > 1000:
        raise InvalidInputError(f"{what} is over 1000 characters")
    return value.strip()


def _method(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    if not _METHOD.fullmatch(value.strip()):
        raise InvalidInputError(f"invalid HTTP method {value!r}")
    return value.strip().upper()


def _glob(value: str | None) -> str | None:
    """An SQL GLOB for a path filter: as given when it is a glob, else "contains"."""
    if value is None or not value.strip():
        return None
    text = _clean(value, "path")
    if _GLOB_CHARS.search(text):
        return text
    return "*" + text + "*"
