"""Plain records produced by parsing: what the store layer mirrors, one row per object.

They are slotted dataclasses rather than pydantic models because a cold index creates hundreds
of thousands of them; validation belongs at the edges (config, tool arguments), not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Kinds that own methods; a function defined directly inside one becomes a ``method``.
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "module", "impl"})

#: Every kind a :class:`Symbol` can have.
SYMBOL_KINDS = frozenset(
    {
        "function",
        "method",
        "class",
        "interface",
        "struct",
        "enum",
        "trait",
        "type",
        "constant",
        "variable",
        "module",
        "macro",
    }
)

#: How a call names its receiver: none (``f()``), the enclosing instance (``self.f()``,
#: ``this.f()``, a Go method's receiver, Rust ``Self::f()``), its base (``super().f()``) or
#: anything else (``os.path.join()``, ``obj.run()``).
RECEIVER_KINDS = ("none", "self", "super", "other")


@dataclass(slots=True)
class Symbol:
    """One definition in a file.

    ``qualified_name`` is ``<path relative to root>::<dotted nesting>``, e.g.
    ``pkg/mod.py::Class.method``; it is unique within a workspace (a second definition of the
    same name in the same scope gets a ``#2`` suffix, a third ``#3``, ...).
    """

    qualified_name: str
    name: str
    kind: str
    path: str
    language: str
    signature: str
    docstring: str | None
    start_line: int
    end_line: int
    sha256: str
    parent: str | None = None
    bases: tuple[str, ...] = ()
    search_text: str = ""
    search_title: str = ""

    @property
    def local_name(self) -> str:
        """The dotted nesting without the path (``Class.method``)."""
        return self.qualified_name.split("::", 1)[1]


@dataclass(frozen=True, slots=True)
class ImportEdge:
    """One name bound by an import statement.

    ``module`` is the module as written (``a.b``, ``..pkg``, ``./util``, ``fmt``,
    ``crate::util``, ``com.x``); ``name`` is the imported member (``None`` when the statement
    binds the module itself, ``"*"`` for a wildcard, ``"default"`` for a JS default import,
    ``""`` for an import done only for its side effects);
    ``alias`` is the local name when it differs from what the statement would bind by itself.
    """

    path: str
    module: str
    name: str | None
    alias: str | None
    line: int

    @property
    def local_name(self) -> str | None:
        """The name this import binds in the importing file (None for wildcards)."""
        if self.alias:
            return self.alias
        if self.name in ("*", ""):
            return None
        if self.name is not None:
            return self.name
        return _module_binding(self.module)


def _module_binding(module: str) -> str:
    """The name a bare module import binds: ``a`` for Python ``import a.b``, ``util`` for Go."""
    if "/" in module:
        return module.rstrip("/").rsplit("/", 1)[-1]
    if "::" in module:
        return module.rsplit("::", 1)[-1]
    return module.lstrip(".").split(".", 1)[0]


@dataclass(slots=True)  # not frozen: frozen __init__ costs ~3x, and there are 100k+ of these
class CallSite:
    """One call expression: who calls, what the callee expression says, and where.

    ``caller`` is the qualified name of the innermost enclosing symbol, or None for a call at
    the top level of the file. ``name`` is the bare called name (``join`` for
    ``os.path.join(...)``); ``receiver`` is the text left of it (``os.path``), if any.
    """

    path: str
    caller: str | None
    callee: str
    name: str
    receiver: str | None
    receiver_kind: str
    line: int


@dataclass(slots=True)
class Assignment:
    """``target = value`` where target is a name or ``self.attr`` (Python for now).

    ``scope`` is the innermost enclosing symbol (None: the module's top level); ``value`` is
    the called expression when the value is a call (``Cls`` in ``x = Cls(1)``), else None.
    The resolver types a receiver by these when every assignment to it calls one class.
    """

    path: str
    scope: str | None
    target: str
    value: str | None
    line: int


@dataclass(slots=True)
class FileIndex:
    """Everything parsing one file yields; the unit the store replaces in one transaction."""

    path: str
    language: str
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[ImportEdge] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    #: Go package / Java package / None; lets the resolver see same-package names.
    namespace: str | None = None
    #: JS/TS: the local name of ``export default`` (resolves ``import x from``).
    default_export: str | None = None
    #: The grammar reported syntax errors; symbols are still extracted where possible.
    has_errors: bool = False
    #: What the file declares about HTTP routes (see ``routes``).
    routes: list[RouteFact] = field(default_factory=list)

    @property
    def contains(self) -> list[tuple[str, str]]:
        """``contains`` edges as (parent, child) qualified names."""
        return [(s.parent, s.qualified_name) for s in self.symbols if s.parent is not None]


#: (kind, framework, method, path, owner, target, handler, scope, line): a fact as the
#: indexer's workers hand it over and the store keeps it.
FactRow = tuple[
    str,
    str,
    "str | None",
    "str | None",
    "str | None",
    "str | None",
    "str | None",
    "str | None",
    int,
]


@dataclass(slots=True)
class RouteFact:
    """One thing a file says about routes (see the module docstring for the kinds)."""

    kind: str
    framework: str
    line: int
    method: str | None = None
    path: str | None = None
    """route: its path, relative to its router; router and mount: the prefix"""
    owner: str | None = None
    """route: the router it is declared on; router: the router it is a group of; mount: the
    router mounted on"""
    target: str | None = None
    """route: the handler expression; router: the variable; mount: what is mounted; export:
    the variable exported"""
    handler: str | None = None
    """route: the handler's qualified name when it is defined in place"""
    scope: str | None = None
    """the innermost enclosing symbol, where expressions are resolved"""

    def row(self) -> FactRow:
        return (
            self.kind,
            self.framework,
            self.method,
            self.path,
            self.owner,
            self.target,
            self.handler,
            self.scope,
            self.line,
        )
