"""Resolve call sites to definitions across a workspace, and answer callers/callees/impact.

Precision comes first: a call is bound to a definition only when the rules below name exactly
one target. Everything else stays unresolved (with its bare name) or ambiguous (with the
candidates), and :meth:`CodeGraph.callers` never reports those; they are offered separately by
:meth:`CodeGraph.possible_callers`, labelled as guesses.

Rules, tried in order for a call without a receiver (``f()``):

1. a function nested in an enclosing function (``def outer(): def inner(): ...; inner()``);
2. Java and Ruby only: a method of the enclosing class (``m()`` means ``this.m()``), then of an
   enclosing outer class;
3. a top-level definition of the same file (Go: of the same package directory) or a name bound
   by an import (``from a.b import f``, ``import {f} from './m'``, ``const {f} = require()``,
   ``use crate::m::f``, Java ``import static``); both at once is ambiguous;
4. Java: a class of the same package; then wildcard imports.

With a receiver: ``self``/``this``/``cls``/Go's receiver/Rust ``Self`` look the method up in the
enclosing class, then in its bases in order (a base outside the workspace stops the search:
it might define the method); ``super`` looks only in the bases; any other receiver is bound
only when it names an imported module or package (``m.f()``, ``os.path.join()``,
``ns.f()``, ``util.Do()``) or a class (``Cls.create()``, ``P::new()``). Python receivers are
also typed by what makes them, when that names exactly one class: a fresh instance
(``Cls(...).m()``, ``mod.Cls().m()``), a call whose declared return type is a plain class name
(``Cls.create().m()`` with ``def create(cls) -> "Cls"`` or ``-> Self``), or a variable every
assignment of which makes one (``x = Cls(); x.m()``). Other calls on instances held in
variables (``obj.run()``) stay unresolved: their type is unknown without inference.
"""

from __future__ import annotations

import functools
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InvalidInputError, NotFoundError
from ._imports import ImportTargets
from ._python_types import SELF_TYPES, call_chain, return_annotation
from ._symbol_table import TYPE_KINDS
from .model import CallSite, FileIndex, ImportEdge, Symbol

log = logging.getLogger(__name__)

#: Kinds that have members a qualified call can reach (``Cls.m()``, ``NS.f()``, ``P::new()``).
_MEMBER_OWNERS = frozenset({"class", "interface", "struct", "enum", "trait", "module"})
_FUNCTION_KINDS = frozenset({"function", "method"})
MODULE_CALLER = "<module>"


@dataclass(frozen=True, slots=True)
class Reference:
    """A call site and what it resolved to.

    ``how`` names the rule that bound it (``local``, ``nested``, ``import``, ``package``,
    ``self``, ``inherited``, ``super``, ``static``, ``module``, ``wildcard``, ``typed``,
    ``constructed``) or says why not
    (``unresolved``, ``ambiguous``; then ``target`` is None and ``candidates`` may list
    guesses).
    """

    site: CallSite
    target: str | None
    how: str
    candidates: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return self.target is not None

    @property
    def caller_key(self) -> str:
        """The caller's qualified name, or ``path::<module>`` for a top-level call."""
        return self.site.caller or f"{self.site.path}::{MODULE_CALLER}"


@dataclass(frozen=True, slots=True)
class ImpactEntry:
    """A symbol affected by a change: it calls ``via`` (at ``path``:``line``), ``depth`` hops
    away from the changed symbol."""

    qualified_name: str
    depth: int
    via: str
    path: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: A call one level up: (caller key, the callee it calls, path, line, whether the caller is
#: a symbol whose own callers are followed; top-level code is not).
CallerStep = tuple[str, str, str, int, bool]


def reach_callers(
    start: str, depth: int, callers: Callable[[list[str]], Iterable[CallerStep]]
) -> list[ImpactEntry]:
    """The transitive callers of ``start``, breadth first, up to ``depth`` levels; each once,
    at its smallest distance. ``callers`` gives the calls into a level's symbols."""
    seen = {start}
    out: list[ImpactEntry] = []
    frontier = [start]
    for level in range(1, depth + 1):
        found: list[str] = []
        for key, via, path, line, follow in callers(frontier):
            if key in seen:
                continue
            seen.add(key)
            out.append(ImpactEntry(key, level, via, path, line))
            if follow:
                found.append(key)
        if not found:
            break
        frontier = found
    return out


class CodeGraph(ImportTargets):
    """Every symbol and call of a workspace, with calls resolved; pure and in memory.

    ``go_modules`` maps a directory (relative to the root, ``""`` for the root) holding a
    ``go.mod`` to its module path; without it Go imports are matched by directory suffix.
    """

    def __init__(
        self,
        files: Iterable[FileIndex],
        *,
        go_modules: Mapping[str, str] | None = None,
        catalog: Iterable[FileIndex] = (),
        loader: Callable[[list[str]], list[FileIndex]] | None = None,
        resolve_all: bool = True,
    ) -> None:
        given = list(files)
        super().__init__(given, go_modules=go_modules, catalog=catalog, loader=loader)
        # memos of pure lookups repeated for most call sites (same callers, same imports)
        self._ancestors_memo: dict[str, tuple[tuple[str, Symbol | None], ...]] = {}
        self._module_memo: dict[tuple[str, str], str | None] = {}
        self._site_memo: dict[tuple[str | None, ...], tuple[str | None, str, tuple[str, ...]]] = {}
        # receivers being typed: `x = x.make()` must not type `x` by itself forever
        self._typing: set[tuple[str, str | None, str]] = set()
        self.references: list[Reference] = []
        if resolve_all:
            self.references = self.resolve_sites(site for f in given for site in f.calls)

    @functools.cached_property
    def _by_target(self) -> dict[str, list[Reference]]:
        # the query maps are built on first use: the indexer only reads ``references``
        out: dict[str, list[Reference]] = defaultdict(list)
        for ref in self.references:
            if ref.target is not None:
                out[ref.target].append(ref)
        return out

    @functools.cached_property
    def _by_caller(self) -> dict[str, list[Reference]]:
        out: dict[str, list[Reference]] = defaultdict(list)
        for ref in self.references:
            out[ref.caller_key].append(ref)
        return out

    @functools.cached_property
    def _unresolved_by_name(self) -> dict[str, list[Reference]]:
        out: dict[str, list[Reference]] = defaultdict(list)
        for ref in self.references:
            if ref.target is None:
                out[ref.site.name].append(ref)
        return out

    def resolve_sites(self, sites: Iterable[CallSite]) -> list[Reference]:
        """Resolve call sites of files this graph knows (given or in the catalog)."""
        return [Reference(site, *self._binding(site)) for site in sites]

    def bindings(self, sites: Iterable[CallSite]) -> list[tuple[str | None, str]]:
        """(target, how) of each call site, as ``resolve_sites`` finds them, without making a
        Reference of each (the indexer keeps nothing else; a fifth of a cold resolution)."""
        return [self._binding(site)[:2] for site in sites]

    def imports_binding(self, path: str, local_name: str) -> list[ImportEdge]:
        """The imports of ``path`` that bind ``local_name``."""
        return list(self._binds(path).get(local_name, ()))

    def import_scope(self, imp: ImportEdge) -> str | None:
        """The workspace file (a Go package: its directory) an import's module is, if any."""
        if self._lazy:
            self._ensure(imp.path)
        bare = ImportEdge(imp.path, imp.module, None, imp.alias, imp.line)
        target = self._import_target(bare, 0)
        return target.scope if target is not None else None

    # -- queries -----------------------------------------------------------------------------

    def symbol(self, qualified_name: str) -> Symbol:
        try:
            return self.symbols[qualified_name]
        except KeyError:
            raise NotFoundError(f"no symbol {qualified_name!r}") from None

    def find_symbols(self, query: str, kind: str | None = None) -> list[Symbol]:
        """Symbols named by a qualified name, a ``Class.method`` suffix or a bare name."""
        if "::" in query:
            found = [self.symbols[query]] if query in self.symbols else []
        elif "." in query:
            found = [
                s
                for s in self.symbols.values()
                if s.local_name == query or s.local_name.endswith("." + query)
            ]
        else:
            found = [s for s in self.symbols.values() if s.name == query]
        if kind is not None:
            found = [s for s in found if s.kind == kind]
        return sorted(found, key=lambda s: (s.path, s.start_line))

    def callers(self, qualified_name: str) -> list[Reference]:
        """Call sites confidently resolved to ``qualified_name``."""
        self.symbol(qualified_name)
        return list(self._by_target.get(qualified_name, ()))

    def callees(self, qualified_name: str, *, include_unresolved: bool = True) -> list[Reference]:
        """The calls made directly inside ``qualified_name`` (or ``path::<module>``)."""
        if not qualified_name.endswith("::" + MODULE_CALLER):
            self.symbol(qualified_name)
        refs = self._by_caller.get(qualified_name, ())
        return [r for r in refs if include_unresolved or r.resolved]

    def possible_callers(self, qualified_name: str) -> list[Reference]:
        """Unresolved or ambiguous calls with the same bare name: guesses, never confident."""
        name = self.symbol(qualified_name).name
        return list(self._unresolved_by_name.get(name, ()))

    def impact(self, qualified_name: str, depth: int = 3) -> list[ImpactEntry]:
        """Transitive confident callers of ``qualified_name``, breadth first, up to ``depth``.

        Each affected symbol appears once, at its smallest distance; top-level code of a file
        appears as ``path::<module>`` and is not followed further.
        """
        if depth < 1:
            raise InvalidInputError("impact depth must be at least 1")
        self.symbol(qualified_name)

        def callers(targets: list[str]) -> Iterator[CallerStep]:
            for target in targets:
                for ref in self._by_target.get(target, ()):
                    site = ref.site
                    yield ref.caller_key, target, site.path, site.line, site.caller is not None

        return reach_callers(qualified_name, depth, callers)

    def stats(self) -> dict[str, int]:
        resolved = sum(1 for r in self.references if r.resolved)
        ambiguous = sum(1 for r in self.references if r.how == "ambiguous")
        return {
            "files": len(self.files),
            "symbols": len(self.symbols),
            "calls": len(self.references),
            "resolved": resolved,
            "ambiguous": ambiguous,
        }

    # -- resolution --------------------------------------------------------------------------

    def _binding(self, site: CallSite) -> tuple[str | None, str, tuple[str, ...]]:
        if self._lazy:
            self._ensure(site.path)
        # the same call in the same function resolves the same way (a fifth of all calls)
        key = (site.path, site.caller, site.receiver_kind, site.receiver, site.name)
        known = self._site_memo.get(key)
        if known is None:
            known = self._site_memo[key] = self._bind(site)
        return known

    def _bind(self, site: CallSite) -> tuple[str | None, str, tuple[str, ...]]:
        try:
            found, how = self._candidates(site)
        except RecursionError:  # pathological inheritance or import cycles
            found, how = [], "unresolved"
        unique = list({s.qualified_name: s for s in found}.values())
        if len(unique) == 1:
            return unique[0].qualified_name, how, ()
        if len(unique) > 1:
            return None, "ambiguous", tuple(sorted(s.qualified_name for s in unique))
        return None, "unresolved", ()

    def _candidates(self, site: CallSite) -> tuple[list[Symbol], str]:
        if site.receiver_kind == "self":
            return self._self_call(site, include_own=True)
        if site.receiver_kind == "super":
            if site.receiver not in (None, "super") and call_chain(site.receiver) != ["super"]:
                return [], "unresolved"  # super().f().g(): what f returns is not known
            return self._self_call(site, include_own=False)
        if site.receiver_kind == "none":
            return self._bare(site.path, site.name, site.caller)
        return self._qualified(site.path, site.receiver or "", site.name, site.caller)

    def _ancestors(self, caller: str | None) -> tuple[tuple[str, Symbol | None], ...]:
        """Enclosing scopes of a caller, innermost first: (local name, symbol or None)."""
        if caller is None or "::" not in caller:
            return ()
        memo = self._ancestors_memo.get(caller)
        if memo is not None:
            return memo
        path, local = caller.split("::", 1)
        parts = local.split(".")
        out = []
        for k in range(len(parts), 0, -1):
            owner = ".".join(parts[:k])
            out.append((owner, self._sym(f"{path}::{owner}")))
        self._ancestors_memo[caller] = found = tuple(out)
        return found

    def _enclosing_types(self, caller: str | None) -> list[str]:
        """Local names of the classes around a caller, innermost first.

        A scope without a symbol is a Rust ``impl`` or a Go receiver type declared elsewhere;
        it still owns methods.
        """
        out: list[str] = []
        for owner, sym in self._ancestors(caller)[1:]:
            if sym is None or sym.kind in TYPE_KINDS or sym.kind == "module":
                out.append(owner)
        return out

    def _self_call(self, site: CallSite, *, include_own: bool) -> tuple[list[Symbol], str]:
        types = self._enclosing_types(site.caller)
        if not types:
            return [], "unresolved"
        owner = types[0]
        if include_own:
            found, inherited = self._method(site.path, owner, site.name, set())
            return found, ("inherited" if inherited else "self")
        owner_sym = self._sym(f"{site.path}::{owner}")
        if owner_sym is None:
            return [], "unresolved"
        found = self._in_bases(owner_sym, site.name, set())
        return found, "super"

    def _method(
        self, path: str, owner: str, name: str, visited: set[str]
    ) -> tuple[list[Symbol], bool]:
        """``name`` in class ``owner`` of ``path``, else in its bases; (found, inherited)."""
        direct = self._members_of(self._scope_of(path), owner).get(name)
        if direct:
            return list(direct), False
        owner_sym = self._sym(f"{path}::{owner}")
        if owner_sym is None:
            return [], False
        return self._in_bases(owner_sym, name, visited), True

    def _in_bases(self, cls: Symbol, name: str, visited: set[str]) -> list[Symbol]:
        if cls.qualified_name in visited:
            return []
        visited.add(cls.qualified_name)
        for base in cls.bases:
            base_sym = self._type_named(cls.path, base)
            if base_sym is None:
                return []  # an unknown base may define it: do not guess past it
            found, _ = self._method(base_sym.path, base_sym.local_name, name, visited)
            if found:
                return found
        return []

    def _type_named(self, path: str, text: str) -> Symbol | None:
        """The single class a type expression (``Base``, ``m.Base``) names, if any.

        Looked up from the file's top level: a lookup from inside the class would consult the
        class's own bases again (Java's implicit ``this``) and never end.
        """
        if "." in text:
            receiver, _, name = text.rpartition(".")
            found, _ = self._qualified(path, receiver, name, None)
        else:
            found, _ = self._bare(path, text, None)
        types = {s.qualified_name: s for s in found if s.kind in TYPE_KINDS}
        return next(iter(types.values())) if len(types) == 1 else None

    def _bare(self, path: str, name: str, caller: str | None) -> tuple[list[Symbol], str]:
        lang = self._lang(path)
        scope = self._scope_of(path)
        implicit_self = lang in ("java", "ruby")
        for owner, sym in self._ancestors(caller):
            if sym is not None and sym.kind in _FUNCTION_KINDS:
                nested = self._members_of(scope, owner).get(name)
                if nested:
                    return list(nested), "nested"
            elif implicit_self:
                found, inherited = self._method(path, owner, name, set())
                if found:
                    return found, ("inherited" if inherited else "self")
        local = list(self._top_of(scope).get(name, ()))
        imported: list[Symbol] = []
        for imp in self._binds(path).get(name, ()):
            target = self._import_target(imp, 0)
            if target is not None and target.symbols:
                imported.extend(target.symbols)
        if local or imported:
            how = "import" if not local else ("package" if local[0].path != path else "local")
            return local + imported, how
        if lang == "java":
            same_package = self._java(self.files[path].namespace or "", name)
            if same_package:
                return list(same_package), "package"
        wild: list[Symbol] = []
        for imp in self._wilds(path):
            if lang == "java":
                wild.extend(self._java(imp.module, name))
                continue
            target = self._import_target(imp, 0)
            if target is not None and target.scope is not None:
                wild.extend(self._lookup(target, name))
        return wild, "wildcard"

    def _qualified(
        self, path: str, receiver: str, name: str, caller: str | None
    ) -> tuple[list[Symbol], str]:
        lang = self._lang(path)
        sep = "::" if lang == "rust" else "."
        if lang == "rust" and receiver.split("::", 1)[0] in ("crate", "super", "self"):
            target = self._rust_path(path, receiver.split("::"))
            if target is not None:
                return self._lookup(target, name), "module"
        if lang == "python" and receiver.endswith(")"):
            return self._on_made_instance(path, receiver, name, caller)
        head, _, rest = receiver.partition(sep)
        if not head.isidentifier():
            return [], "unresolved"
        # a module bound by an import: m.f(), util.Do(), ns.f(), os.path.join()
        for imp in self._binds(path).get(head, ()):
            if rest:
                if lang != "python":
                    continue
                target = self._python_submodule(imp, head, rest)
            else:
                target = self._import_target(imp, 0)
            if target is not None and target.scope is not None:
                return self._lookup(target, name), "module"
        typed = self._typed_receiver(path, receiver, caller)
        if typed is not None:
            members, _ = self._method(typed.path, typed.local_name, name, set())
            return members, "typed"
        # a class (or namespace) by name: Cls.create(), P::new(), NS.f()
        if not rest:
            found, _ = self._bare(path, head, caller)
            owners = {s.qualified_name: s for s in found if s.kind in _MEMBER_OWNERS}
            if len(owners) == 1:
                owner = next(iter(owners.values()))
                members, _ = self._method(owner.path, owner.local_name, name, set())
                return members, "static"
        elif lang == "java":
            # fully qualified: com.x.Util.go()
            pkg, _, cls = receiver.rpartition(".")
            types = self._java(pkg, cls)
            if types and len(types) == 1:
                members, _ = self._method(types[0].path, types[0].local_name, name, set())
                return members, "static"
        return [], "unresolved"

    def _typed_receiver(self, path: str, receiver: str, caller: str | None) -> Symbol | None:
        """The class of a variable or ``self.attr`` when every assignment to it constructs it.

        ``x.m()``: the assignments to ``x`` in the calling function, or (when the function
        neither assigns nor takes ``x``) at the module's top level; ``self.a.m()``: the
        assignments to ``self.a`` in the methods of the enclosing class. Each must call the
        same name, and that name must denote exactly one class.
        """
        if self._lazy:
            self._ensure(path)
        if not self._assigned or self._lang(path) != "python":
            return None
        head, _, attr = receiver.partition(".")
        if attr:
            if head != "self" or "." in attr:
                return None
            types = self._enclosing_types(caller)
            if not types:
                return None
            values = self._assigned.get((path, f"{path}::{types[0]}", receiver))
        else:
            values = None
            if caller is not None:
                values = self._assigned.get((path, caller, receiver))
                sym = self._sym(caller)
                if values is None and sym is not None and _is_parameter(sym, receiver):
                    return None
            if values is None:
                values = self._assigned.get((path, None, receiver))
        if not values or len(set(values)) != 1 or values[0] is None:
            return None
        key = (path, caller, receiver)
        if key in self._typing:
            return None
        self._typing.add(key)
        try:
            return self._type_made_by(path, values[0], None)
        finally:
            self._typing.discard(key)

    def _on_made_instance(
        self, path: str, receiver: str, name: str, caller: str | None
    ) -> tuple[list[Symbol], str]:
        """``Cls(...).m()``, ``Cls.create().m()``: the method of the class the calls make."""
        chain = call_chain(receiver)
        made = self._type_made_by(path, chain[0], caller) if chain else None
        for method in chain[1:] if chain else ():
            if made is None:
                break
            found, _ = self._method(made.path, made.local_name, method, set())
            returned, is_self = self._returned(found)
            made = made if is_self else returned  # `-> Self`: the class it is called on
        if made is None:
            return [], "unresolved"
        members, _ = self._method(made.path, made.local_name, name, set())
        return members, "constructed"

    def _type_made_by(self, path: str, called: str, caller: str | None) -> Symbol | None:
        """The one class a call of ``called`` (a dotted name) returns: the class it names,
        or the class a function it names declares it returns; None when either is unsure."""
        owner, _, fn = called.rpartition(".")
        if not owner:
            found, _ = self._bare(path, called, caller)
        elif owner in ("self", "cls"):
            site = CallSite(path, caller, called, fn, owner, "self", 0)
            found, _ = self._self_call(site, include_own=True)
        else:
            found, _ = self._qualified(path, owner, fn, caller)
        returned, is_self = self._returned(found)
        return self._self_type(path, owner, caller) if is_self else returned

    def _returned(self, found: list[Symbol]) -> tuple[Symbol | None, bool]:
        """The class a call of the one symbol ``found`` makes: itself if it is a class, else
        its declared return type if that names one class; and whether it is ``-> Self``."""
        unique = {s.qualified_name: s for s in found}
        if len(unique) != 1:
            return None, False
        made = next(iter(unique.values()))
        if made.kind == "class":
            return made, False
        annotation = return_annotation(made.signature) if made.kind in _FUNCTION_KINDS else None
        if annotation is None:
            return None, False
        if annotation in SELF_TYPES:
            return None, True
        returned = self._type_named(made.path, annotation)
        return (returned if returned is not None and returned.kind == "class" else None), False

    def _self_type(self, path: str, owner: str, caller: str | None) -> Symbol | None:
        """What ``-> Self`` is for a call on ``owner``: the enclosing class for ``self.`` and
        ``cls.``, the class named for ``Cls.``; on an instance it may be any subclass."""
        if owner in ("self", "cls"):
            types = self._enclosing_types(caller)
            found = self._sym(f"{path}::{types[0]}") if types else None
        else:
            found = self._type_named(path, owner) if owner else None
        return found if found is not None and found.kind == "class" else None


def _is_parameter(sym: Symbol, name: str) -> bool:
    """Whether ``name`` is among a function's parameters (read from its signature)."""
    sig = sym.signature
    open_at, close_at = sig.find("("), sig.rfind(")")
    if open_at < 0:
        return False
    params = sig[open_at + 1 : close_at if close_at > open_at else len(sig)]
    return any(
        part.strip().lstrip("*").split(":", 1)[0].split("=", 1)[0].strip() == name
        for part in params.split(",")
    )


def build_graph(
    files: Iterable[FileIndex], *, go_modules: Mapping[str, str] | None = None
) -> CodeGraph:
    """Resolve every call of ``files`` (one workspace) and return the graph."""
    return CodeGraph(files, go_modules=go_modules)
