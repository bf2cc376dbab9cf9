"""Link every file's route facts into routes: full paths and handler symbols.

A route's path is its router's prefixes, outermost first, then its own: a router's own prefix
(``Blueprint(url_prefix=)``), the group it belongs to (``r.Group``), and every mount that puts
it under another router (``app.use("/api", router)`` in another file), followed up to the root.
A router mounted twice yields the route twice. Handlers and mounted routers written as
expressions are resolved as a call written at the same place would be (the code index's
resolver, reading only the files it needs); a Rails ``controller#action`` names the method
``action`` of the class ``<Controller>Controller``.

The linking is pure (:func:`link`, with the lookups passed in); :func:`relink` runs it on a
store after an index run.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..store import CodeStore
from ..store.routes import RouteRow, StoredFact
from ._routes import (
    INLINE_HANDLER,
    MODULE_PREFIX,
    MODULE_ROUTER,
    RAILS_PREFIX,
    REQUIRE_PREFIX,
    join_paths,
)
from .model import CallSite, ImportEdge
from .resolve import CodeGraph
from .stored import StoredDefinitions

log = logging.getLogger(__name__)

_MAX_DEPTH = 8
_MAX_PREFIXES = 16
#: Frameworks where a trailing slash makes another route.
_STRICT_SLASH = frozenset({"flask", "fastapi", "django"})

#: A router: the file that declares it and its variable (``<module>`` for Django).
RouterKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Lookups:
    """What linking needs to know beyond the facts.

    ``symbol``: the qualified name an expression written in a file (inside a scope) denotes,
    or None. ``module``: the file a module reference of a file names (``module:blog.urls``,
    ``require:./users``, or a name bound by a whole-module import), or None. ``rails``: the
    method ``action`` of a controller class (``Admin::UsersController``), or None.
    """

    symbol: Callable[[str, str | None, str, int], str | None]
    module: Callable[[str, str], str | None]
    rails: Callable[[str, str], str | None]


def link(facts: Iterable[StoredFact], lookups: Lookups) -> list[RouteRow]:
    """Every route of the workspace with its full path(s) and resolved handler."""
    routers: dict[RouterKey, StoredFact] = {}
    exports: dict[str, str] = {}
    mounts: list[StoredFact] = []
    routes: list[StoredFact] = []
    for fact in facts:
        if fact.kind == "router" and fact.target:
            routers[(fact.file, fact.target)] = fact
        elif fact.kind == "export" and fact.target:
            exports.setdefault(fact.file, fact.target)
        elif fact.kind == "mount":
            mounts.append(fact)
        elif fact.kind == "route":
            routes.append(fact)
    linker = _Linker(routers, exports, lookups)
    for mount in mounts:
        child = linker.child_key(mount)
        if child is not None:
            linker.mounted[child].append(mount)
    out: list[RouteRow] = []
    seen: set[tuple[str, str, str | None, str, int]] = set()
    for route in routes:
        handler = linker.handler(route)
        for prefix in linker.prefixes(route.file, route.owner, route.scope, route.line):
            full = _full_path(prefix, route.path or "", route.framework)
            method = route.method or "ANY"
            key = (method, full, handler, route.file, route.line)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                (route.file, route.framework, method, full, handler, route.target or "", route.line)
            )
    return out


def _full_path(prefix: str, own: str, framework: str) -> str:
    """``prefix`` then ``own``; ``/`` under a prefix is the prefix itself, with a trailing slash
    where the framework tells the two apart (Flask, FastAPI: ``/users/`` is not ``/users``)."""
    if own.strip("/") or not prefix.strip("/"):
        return join_paths(prefix, own)
    full = join_paths(prefix)
    if own == "/" and framework in _STRICT_SLASH and not full.endswith("/"):
        full += "/"
    return full


class _Linker:
    def __init__(
        self, routers: dict[RouterKey, StoredFact], exports: dict[str, str], lookups: Lookups
    ) -> None:
        self.routers = routers
        self.exports = exports
        self.lookups = lookups
        self.mounted: dict[RouterKey, list[StoredFact]] = defaultdict(list)
        self._keys: dict[tuple[str, str | None, str], RouterKey] = {}

    def handler(self, route: StoredFact) -> str | None:
        if route.handler:
            return route.handler
        expr = route.target or ""
        if not expr or expr == INLINE_HANDLER:
            return None
        if expr.startswith(RAILS_PREFIX):
            controller, _, action = expr[len(RAILS_PREFIX) :].partition("#")
            return self.lookups.rails(controller, action) if action else None
        return self.lookups.symbol(route.file, route.scope, expr, route.line)

    def router_key(self, file: str, expr: str | None, scope: str | None, line: int) -> RouterKey:
        """The router an expression of a file denotes (itself when it is declared nowhere)."""
        if not expr:
            return (file, "")
        if expr == MODULE_ROUTER:
            return (file, MODULE_ROUTER)
        memo = (file, scope, expr)
        if memo in self._keys:
            return self._keys[memo]
        key: RouterKey = (file, expr)
        if key not in self.routers:
            target = self.lookups.symbol(file, scope, expr, line)
            if target is not None and "::" in target:
                owner_file, local = target.split("::", 1)
                key = (owner_file, local)
            else:
                exported = self._exported(file, expr)
                if exported is not None:
                    key = exported
        self._keys[memo] = key
        return key

    def _exported(self, file: str, spec: str) -> RouterKey | None:
        """The router a module exports, for a module reference (or a module-bound name)."""
        module_file = self.lookups.module(file, spec)
        if module_file is None:
            return None
        name = self.exports.get(module_file)
        if name is not None:
            return (module_file, name)
        if (module_file, MODULE_ROUTER) in self.mounted or any(
            k[0] == module_file for k in self.routers
        ):
            return None
        return (module_file, MODULE_ROUTER)

    def child_key(self, mount: StoredFact) -> RouterKey | None:
        target = mount.target or ""
        if target.startswith(MODULE_PREFIX):
            module_file = self.lookups.module(mount.file, target)
            return (module_file, MODULE_ROUTER) if module_file else None
        if target.startswith(REQUIRE_PREFIX):
            return self._exported(mount.file, target)
        return self.router_key(mount.file, target, mount.scope, mount.line)

    def prefixes(
        self,
        file: str,
        owner: str | None,
        scope: str | None,
        line: int,
        depth: int = 0,
        visiting: frozenset[RouterKey] = frozenset(),
    ) -> list[str]:
        """Every prefix the router ``owner`` of ``file`` is reached under, outermost first."""
        key = self.router_key(file, owner, scope, line)
        if depth > _MAX_DEPTH or key in visiting:
            return [""]
        visiting = visiting | {key}
        fact = self.routers.get(key)
        own = (fact.path or "") if fact is not None else ""
        outer: list[str] = []
        if fact is not None and fact.owner:
            outer += self.prefixes(key[0], fact.owner, fact.scope, fact.line, depth + 1, visiting)
        for mount in self.mounted.get(key, ()):
            for above in self.prefixes(
                mount.file, mount.owner, mount.scope, mount.line, depth + 1, visiting
            ):
                outer.append(join_paths(above, mount.path or ""))
        if not outer:
            outer = [""]
        found = list(dict.fromkeys(join_paths(p, own) if (p or own) else "" for p in outer))
        return found[:_MAX_PREFIXES]


# -- on a store --------------------------------------------------------------------------------


def relink(code: CodeStore, go_modules: Mapping[str, str] | None = None) -> int:
    """Link the store's route facts and replace its routes (one transaction); the count."""
    store = code.store
    started = time.perf_counter()
    if store.route_fact_count() == 0:
        if store.list_routes(limit=1):
            with store.transaction():
                store.replace_routes([])
        return 0
    facts = store.route_facts()
    lookups = store_lookups(code, go_modules or {})
    rows = link(facts, lookups)
    with store.transaction():
        store.replace_routes(rows)
    log.debug("linked %d routes in %.3fs", len(rows), time.perf_counter() - started)
    return len(rows)


def store_lookups(code: CodeStore, go_modules: Mapping[str, str]) -> Lookups:
    """Lookups answered by the code index's resolver over the stored files."""

    definitions = StoredDefinitions(code)
    catalog_of = definitions.catalog
    graph = CodeGraph(
        [], catalog=catalog_of.values(), loader=definitions, resolve_all=False,
        go_modules=go_modules,
    )  # fmt: skip

    def symbol(file: str, scope: str | None, expr: str, line: int) -> str | None:
        if file not in catalog_of:
            return None
        head, _, name = expr.rpartition(".")
        receiver = head or None
        kind = "none" if receiver is None else "other"
        site = CallSite(file, scope, expr, name, receiver, kind, line)
        ref = graph.resolve_sites([site])[0]
        if ref.target is None and receiver is not None and scope is not None:
            # a method value on the enclosing instance (Go `s.handle`): its receiver names it
            ref = graph.resolve_sites([CallSite(file, scope, expr, name, receiver, "self", line)])[
                0
            ]
        return ref.target

    def module(file: str, spec: str) -> str | None:
        if file not in catalog_of:
            return None
        if spec.startswith(MODULE_PREFIX):
            edge = ImportEdge(file, spec[len(MODULE_PREFIX) :], None, "_", 0)
        elif spec.startswith(REQUIRE_PREFIX):
            edge = ImportEdge(file, spec[len(REQUIRE_PREFIX) :], None, "_", 0)
        else:
            bound = graph.imports_binding(file, spec)
            if not bound:
                return None
            edge = bound[0]
        return graph.import_scope(edge)

    def rails(controller: str, action: str) -> str | None:
        parts = [p for p in controller.split("::") if p]
        if not parts:
            return None
        candidates = [
            s for s in code.find_symbols(f"{parts[-1]}.{action}", None, 50) if s.name == action
        ]
        if len(candidates) > 1:  # Admin::UsersController beside UsersController
            inner = [
                s
                for s in candidates
                if all(p in s.qualified_name.split("::", 1)[1].split(".")[:-1] for p in parts)
            ]
            nested = len(parts) > 1
            candidates = (
                inner
                if nested
                else [
                    s
                    for s in candidates
                    if s.qualified_name.split("::", 1)[1].split(".")[:-1] == parts
                ]
                or candidates
            )
        return candidates[0].qualified_name if len(candidates) == 1 else None

    return Lookups(symbol, module, rails)
