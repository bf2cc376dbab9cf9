"""The symbol table under :class:`~.resolve.CodeGraph`: which names each scope defines, which
names each file's imports bind and what each assignment assigns, indexed once per graph; and,
for a graph over stored files, each file loaded the first time a lookup needs it."""

from __future__ import annotations

import functools
import posixpath
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .model import FileIndex, ImportEdge, Symbol

TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait"})
_EMPTY: dict[str, list[Any]] = {}  # shared by the lookups below: never written


class SymbolTable:
    """Every file of a workspace by path, and the lookups the resolution rules read."""

    def __init__(
        self,
        given: list[FileIndex],
        *,
        go_modules: Mapping[str, str] | None,
        catalog: Iterable[FileIndex],
        loader: Callable[[list[str]], list[FileIndex]] | None,
    ) -> None:
        # ``catalog``: every other file of the workspace by name, language and namespace only;
        # ``loader`` brings such a file's symbols, imports and assignments the first time a
        # lookup needs them, so that re-resolving a few calls reads a few files.
        self.files: dict[str, FileIndex] = {f.path: f for f in catalog}
        for f in given:
            self.files[f.path] = f
        self._loader = loader
        self._lazy = loader is not None
        self._loaded: set[str] = set()
        self._all_java = not self._lazy
        self.symbols: dict[str, Symbol] = {}
        self._go_modules = dict(go_modules or {})
        self._index(given if self._lazy else list(self.files.values()))

    # -- indexes -----------------------------------------------------------------------------

    def _scope_of(self, path: str) -> str:
        """Where top-level names are shared: the package directory for Go, else the file."""
        f = self.files.get(path)
        if f is not None and f.language == "go":
            return posixpath.dirname(path) + "/"
        return path

    def _index(self, files: list[FileIndex]) -> None:
        # scope -> name -> symbols defined at the top level of that scope
        self._top: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        # (scope, owner local name) -> member name -> symbols
        self._members: dict[tuple[str, str], dict[str, list[Symbol]]] = defaultdict(
            lambda: defaultdict(list)
        )
        # local bindings made by imports, per file
        self._bindings: dict[str, dict[str, list[ImportEdge]]] = {}
        self._wildcards: dict[str, list[ImportEdge]] = {}
        self._java_types: dict[tuple[str, str], list[Symbol]] = defaultdict(list)
        # (path, scope or None, target) -> values assigned; (path, class, attr) for self.attr
        self._assigned: dict[tuple[str, str | None, str], list[str | None]] = defaultdict(list)
        for f in files:
            self._add_file(f)
        self._python_modules = self._python_module_map()
        self._go_dirs = {posixpath.dirname(p) for p, f in self.files.items() if f.language == "go"}

    def _add_file(self, f: FileIndex) -> None:
        self._loaded.add(f.path)
        self.files[f.path] = f
        scope = self._scope_of(f.path)
        for s in f.symbols:
            self.symbols[s.qualified_name] = s
            local = s.local_name
            if "." not in local:
                self._top[scope][s.name].append(s)
            else:
                owner = local.rsplit(".", 1)[0]
                self._members[(scope, owner)][s.name].append(s)
            if f.language == "java" and s.parent is None and s.kind in TYPE_KINDS:
                self._java_types[(f.namespace or "", s.name)].append(s)
        bindings: dict[str, list[ImportEdge]] = defaultdict(list)
        wild: list[ImportEdge] = []
        for imp in f.imports:
            if imp.name == "*" and not imp.alias:
                wild.append(imp)
            elif imp.local_name:
                bindings[imp.local_name].append(imp)
        self._bindings[f.path] = bindings
        self._wildcards[f.path] = wild
        for a in f.assignments:
            self._assigned[(a.path, a.scope, a.target)].append(a.value)
            head, _, attr = a.target.partition(".")
            if attr and head == "self" and a.scope is not None:
                cls_name = a.scope.rsplit(".", 1)[0] if "." in a.scope.split("::", 1)[1] else None
                if cls_name is not None:
                    self._assigned[(a.path, cls_name, "self." + attr)].append(a.value)

    # -- lazy loading (a graph over stored files) -----------------------------------------------

    def _ensure(self, path: str) -> None:
        if path not in self._loaded and path in self.files and self._loader is not None:
            self._load([path])

    def _load(self, paths: list[str]) -> None:
        assert self._loader is not None
        wanted = [p for p in paths if p not in self._loaded and p in self.files]
        self._loaded.update(wanted)  # even if the loader finds nothing: never ask twice
        if wanted:
            for f in self._loader(wanted):
                self._add_file(f)

    def _ensure_scope(self, scope: str) -> None:
        if scope in self._loaded:  # a file, or a Go package loaded before (below)
            return
        if scope.endswith("/"):  # a Go package: every Go file of the directory
            d = scope[:-1]
            self._load(
                [p for p, f in self.files.items()
                 if f.language == "go" and posixpath.dirname(p) == d]
            )  # fmt: skip
            self._loaded.add(scope)  # no file path ends with "/"
        else:
            self._ensure(scope)

    def _ensure_java(self) -> None:
        if not self._all_java:
            self._all_java = True
            self._load([p for p, f in self.files.items() if f.language == "java"])

    def _sym(self, qualified_name: str) -> Symbol | None:
        found = self.symbols.get(qualified_name)
        if found is None and self._lazy:  # its file not loaded yet, or no such symbol
            self._ensure(qualified_name.split("::", 1)[0])
            found = self.symbols.get(qualified_name)
        return found

    def _top_of(self, scope: str) -> dict[str, list[Symbol]]:
        if self._lazy and scope not in self._loaded:
            self._ensure_scope(scope)
        return self._top.get(scope, _EMPTY)

    def _members_of(self, scope: str, owner: str) -> dict[str, list[Symbol]]:
        if self._lazy and scope not in self._loaded:
            self._ensure_scope(scope)
        return self._members.get((scope, owner), _EMPTY)

    def _binds(self, path: str) -> dict[str, list[ImportEdge]]:
        if self._lazy and path not in self._loaded:
            self._ensure(path)
        return self._bindings.get(path, _EMPTY)

    def _wilds(self, path: str) -> list[ImportEdge]:
        if self._lazy and path not in self._loaded:
            self._ensure(path)
        return self._wildcards.get(path, [])

    def _java(self, namespace: str, name: str) -> list[Symbol]:
        if not self._all_java:
            self._ensure_java()
        return self._java_types.get((namespace, name), [])

    def _python_module_map(self) -> dict[str, list[str]]:
        return python_module_names(p for p, f in self.files.items() if f.language == "python")

    def _lang(self, path: str) -> str:
        return self.files[path].language


def python_module_names(paths: Iterable[str]) -> dict[str, list[str]]:
    """Dotted module name -> files, from the package root and from the workspace root."""
    return _module_names(frozenset(paths))


@functools.lru_cache(maxsize=4)
def _module_names(files: frozenset[str]) -> dict[str, list[str]]:
    # cached: every incremental run of a workspace asks again for (mostly) the same files
    inits = ("__init__.py", "__init__.pyi")
    packages = {posixpath.dirname(p) for p in files if posixpath.basename(p) in inits}
    names: dict[str, set[str]] = defaultdict(set)
    for p in files:
        if p.endswith(".pyi") and p[:-1] in files:
            continue  # the stub and the module are one module
        directory, base = posixpath.split(p)
        stem = base.rsplit(".", 1)[0]
        tail = [] if stem == "__init__" else [stem]
        parts = directory.split("/") if directory else []
        names[".".join(parts + tail)].add(p)
        pkg_parts: list[str] = []
        d = directory
        while d and d in packages:
            pkg_parts.insert(0, posixpath.basename(d))
            d = posixpath.dirname(d)
        canonical = ".".join(pkg_parts + tail)
        if canonical:
            names[canonical].add(p)
    return {k: sorted(v) for k, v in names.items() if k}
