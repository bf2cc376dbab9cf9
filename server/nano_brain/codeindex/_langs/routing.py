"""What every language's route reader (``_langs/*_routes.py``) shares: the facts' vocabulary,
the per-file context the facts are added to, string literals and path joining.

See :mod:`nano_brain.codeindex._routes` for what the facts are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from ..model import RouteFact
from .base import text

FACT_KINDS = ("route", "router", "mount", "export")
#: Django's routes belong to their module, not to a variable.
MODULE_ROUTER = "<module>"
#: Mount targets that name a module rather than an expression.
MODULE_PREFIX = "module:"
REQUIRE_PREFIX = "require:"
#: A Rails handler (``Admin::UsersController#index``), resolved by class and method name.
RAILS_PREFIX = "rails:"
INLINE_HANDLER = "(inline function)"
ANY = "ANY"
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE")
_MAX_ROUTES_PER_FILE = 5000
_SLASHES = re.compile(r"/{2,}")


@dataclass(slots=True)
class RouteCtx:
    """One file's route facts as a language's reader finds them."""

    path: str
    #: (start byte, end byte) of a definition node -> its qualified name
    defs: dict[tuple[int, int], str]
    #: innermost symbol around a byte offset
    scope_of: Callable[[int], str | None]
    #: modules the file imports, as written
    imports: frozenset[str]
    out: list[RouteFact]

    def add(self, fact: RouteFact) -> None:
        if len(self.out) < _MAX_ROUTES_PER_FILE:
            self.out.append(fact)

    def add_router(
        self,
        framework: str,
        line: int,
        prefix: str,
        name: str,
        scope: str | None,
        owner: str | None = None,
    ) -> None:
        """A router held in variable ``name``: its routes sit under ``prefix``, and under
        ``owner``'s when it is a group of another router."""
        self.add(
            RouteFact("router", framework, line, path=prefix, owner=owner, target=name, scope=scope)
        )

    def imports_any(self, *needles: str) -> bool:
        return any(n in m for m in self.imports for n in needles)


# -- shared helpers ----------------------------------------------------------------------------

_STRING_TYPES = frozenset(
    {
        "string",
        "string_literal",
        "interpreted_string_literal",
        "raw_string_literal",
        "template_string",
    }
)
_INTERPOLATION = frozenset({"interpolation", "template_substitution", "escape_interpolation"})


def literal(node: Node | None) -> str | None:
    """The value of a string literal without interpolation (None for anything else)."""
    if node is None:
        return None
    if node.type == "simple_symbol":  # Ruby :photos
        return text(node)[1:]
    if node.type == "hash_key_symbol":
        return text(node)
    if node.type not in _STRING_TYPES:
        return None
    if any(c.type in _INTERPOLATION for c in node.named_children):
        return None
    raw = text(node)
    raw = raw.lstrip("rRbBuU")  # Python prefixes (an f-string has interpolation or is plain)
    if raw[:1] in "fF":
        raw = raw[1:]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(raw) >= 2 * len(quote) and raw.startswith(quote) and raw.endswith(quote):
            return raw[len(quote) : -len(quote)]
    return None


def flat(node: Node | None) -> str | None:
    """An expression's text with its blanks removed (``a . b`` -> ``a.b``)."""
    return "".join(text(node).split()) if node is not None else None


def join_paths(*parts: str) -> str:
    """Route paths joined with one slash between parts; a trailing slash of the last part is
    kept (``/api`` + ``users/`` -> ``/api/users/``); runs of slashes become one."""
    pieces = [_SLASHES.sub("/", p).strip("/") for p in parts if p and p.strip("/")]
    joined = "/" + "/".join(pieces)
    last = next((p for p in reversed(parts) if p and p.strip("/")), "")
    if last.endswith("/") and joined != "/":
        joined += "/"
    return joined
