"""HTTP routes' rows: what each file declares (facts), and the linked routes.

Facts are derived from one file and go with it (``code_route_facts``, replaced when the file
is indexed again); routes (``code_routes``) are computed from every file's facts at the end of
an index run and replaced whole, since a change in one file (a mount, a renamed handler) can
change routes declared in others. Their SQL is the code index's, in `sqlite.routes` (the code
index is always local).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# (kind, framework, method, path, owner, target, handler, scope, line)
FactRow = tuple[Any, ...]
# (file path, framework, method, path, handler qualified name or None, handler expression, line)
RouteRow = tuple[str, str, str, str, "str | None", str, int]


@dataclass(frozen=True, slots=True)
class StoredFact:
    file: str
    language: str | None
    kind: str
    framework: str
    method: str | None
    path: str | None
    owner: str | None
    target: str | None
    handler: str | None
    scope: str | None
    line: int


@dataclass(frozen=True, slots=True)
class RouteRecord:
    method: str
    path: str
    framework: str
    handler: str | None
    """the handler's qualified name; None when it is inline or did not resolve"""
    handler_expr: str
    file: str
    line: int
