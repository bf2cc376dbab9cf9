"""HTTP routes as front ends ask for them: list and filter them, follow a route's flow.

A route's *flow* is its handler's call tree through the calls the code index resolved
confidently (``depth`` hops at most), with the notes and decisions anchored to any symbol on
the way. Its steps are the tree in order, each callee right after its caller's line and one
level deeper. A symbol is shown in full once, under the first caller that reaches it in the
fewest hops (so ``depth`` shows as much as it can); its other callers show it again marked
``repeated``, without its calls, which also ends every cycle. At most ``MAX_FLOW_STEPS``
steps: every symbol reached first, then as many repeats as fit. The CLI
(``nano-brain routes``), the MCP tool ``code_routes`` and the editor's hover all read routes
here.
"""

from __future__ import annotations

import builtins  # in `Routes`, its method `list` hides the type in annotations
import re
from dataclasses import asdict, astuple, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from ..filters import Filters
from ..store import CodeStore
from ..store.code import EdgeRecord
from ..store.routes import RouteRecord
from .service import AnchorInfo, clean_argument

if TYPE_CHECKING:
    from ..brain import Brain

MAX_FLOW_DEPTH = 6
#: Steps one flow lists at most (a handler that reaches half the code base stops there).
MAX_FLOW_STEPS = 200
_METHOD = re.compile(r"[A-Za-z]{1,16}")
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class RouteInfo(RouteRecord):
    """A route as the front ends show it: the store's record, with its label."""

    @classmethod
    def of(cls, rec: RouteRecord) -> RouteInfo:
        return cls(*astuple(rec))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True, slots=True)
class FlowStep:
    """A symbol the handler reaches: ``depth`` calls away, called from ``via`` at path:line.

    ``repeated``: the flow shows this symbol in full under another caller, with its calls.
    """

    qualified_name: str
    depth: int
    via: str
    path: str
    line: int
    repeated: bool = False

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
                framework=clean_argument(framework, "framework") if framework else None,
                limit=limit,
            )
        ]

    def of_symbols(self, qualified_names: builtins.list[str]) -> builtins.list[RouteInfo]:
        """The routes these symbols handle."""
        return [RouteInfo.of(r) for r in self.brain.store.routes_of_handlers(qualified_names)]

    def find(self, route: str) -> builtins.list[RouteInfo]:
        """Routes named ``METHOD /path`` or ``/path`` exactly (a glob path selects several)."""
        text = clean_argument(route, "route")
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
        reached = self._reach(route.handler, depth)
        flow.steps, cut_short = _call_tree(route.handler, reached)
        flow.truncated = reached.cut_short or cut_short
        flow.unresolved = list(reached.unresolved)[:50]
        names = list(dict.fromkeys([route.handler, *(s.qualified_name for s in flow.steps)]))
        flow.notes = [
            AnchorInfo.of(a) for a in self.code.anchors(qualified_names=names, visible=Filters())
        ]
        return flow

    def _reach(self, handler: str, depth: int) -> _Reached:
        """Breadth first from the handler, one query per hop."""
        reached = _Reached()
        frontier = [handler]
        for _ in range(depth):
            by_source: dict[str, builtins.list[EdgeRecord]] = {}
            for edge in self.code.callees(frontier):
                if edge.target is None:
                    reached.unresolved.setdefault(edge.expression or edge.name, None)
                elif edge.source is not None:
                    by_source.setdefault(edge.source, []).append(edge)
            nxt: builtins.list[str] = []
            for source in frontier:  # in the order they were reached: the tree's order
                own = reached.calls[source] = _one_per_callee(by_source.get(source, []))
                for edge in own:
                    target = edge.target or ""
                    if target == handler or target in reached.first_caller:
                        continue
                    if len(reached.first_caller) >= MAX_FLOW_STEPS:
                        reached.cut_short = True
                        return reached
                    reached.first_caller[target] = source
                    nxt.append(target)
            if not nxt:
                break
            frontier = nxt
        return reached


@dataclass(slots=True)
class _Reached:
    """What a flow reaches: each caller's resolved calls (one per callee, in line order),
    the caller each symbol is first reached from in the fewest hops, the unresolved calls,
    and whether the symbol cap cut it short."""

    calls: dict[str, list[EdgeRecord]] = field(default_factory=dict)
    first_caller: dict[str, str] = field(default_factory=dict)
    unresolved: dict[str, None] = field(default_factory=dict)
    cut_short: bool = False


def _one_per_callee(edges: list[EdgeRecord]) -> list[EdgeRecord]:
    """A caller's calls to distinct symbols, each at its first line (the store gives a
    caller's calls in line order: they are all in its file)."""
    first: dict[str | None, EdgeRecord] = {}
    for edge in edges:
        first.setdefault(edge.target, edge)
    return list(first.values())


def _call_tree(handler: str, reached: _Reached) -> tuple[list[FlowStep], bool]:
    """The call tree's steps in order (each caller, then its callees one level deeper), and
    whether the step cap left references out: every symbol reached is shown in full, then
    references while the cap allows (dense code has many more of those)."""
    steps: list[FlowStep] = []
    references = MAX_FLOW_STEPS - len(reached.first_caller)
    left_out = False
    # (caller, depth of its callees, index of its next call): iterative, one frame per level
    stack: list[tuple[str, int, int]] = [(handler, 1, 0)]
    while stack:
        caller, level, at = stack.pop()
        own = reached.calls.get(caller, [])
        if at >= len(own):
            continue
        stack.append((caller, level, at + 1))
        edge = own[at]
        target = edge.target or ""
        in_full = reached.first_caller.get(target) == caller
        if in_full:
            stack.append((target, level + 1, 0))
        elif references <= 0:
            left_out = True
            continue
        else:
            references -= 1
        steps.append(FlowStep(target, level, caller, edge.path, edge.line, not in_full))
    return steps, left_out


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
    text = clean_argument(value, "path")
    if _GLOB_CHARS.search(text):
        return text
    return "*" + text + "*"
