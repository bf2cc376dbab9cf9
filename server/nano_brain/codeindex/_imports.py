"""What an import denotes, per language: the workspace file (or Go package, or Rust inline
``mod``) it names, or the definitions it binds, followed through re-exports."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._symbol_table import SymbolTable
from .model import ImportEdge, Symbol

_JS_LANGS = frozenset({"javascript", "typescript", "tsx"})
_JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")
#: Most imports followed through re-exports to find a definition.
_MAX_HOPS = 6


@dataclass(slots=True)
class Target:
    """What an import (or a qualified receiver) denotes: a module scope or definitions."""

    scope: str | None = None  # a module/package scope key (path, or directory for Go)
    owner: str = ""  # inside ``scope``: a namespace symbol (Rust inline ``mod``)
    symbols: tuple[Symbol, ...] = ()


class ImportTargets(SymbolTable):
    """The import rules of :class:`~.resolve.CodeGraph` (which finds methods, see ``_method``)."""

    #: memo of pure lookups repeated for most call sites: (importer, module) -> file
    _module_memo: dict[tuple[str, str], str | None]

    if TYPE_CHECKING:

        def _method(
            self, path: str, owner: str, name: str, visited: set[str]
        ) -> tuple[list[Symbol], bool]: ...

    def _lookup(self, target: Target, name: str) -> list[Symbol]:
        if target.scope is None:
            return []
        if target.owner:
            return list(self._members_of(target.scope, target.owner).get(name, ()))
        found = self._top_of(target.scope).get(name)
        if found:
            return list(found)
        # re-exported through an import of the target module
        return self._reexported(target.scope, name, 1)

    def _reexported(self, scope: str, name: str, hops: int) -> list[Symbol]:
        if hops > _MAX_HOPS or scope not in self.files:
            return []
        out: list[Symbol] = []
        for imp in self._binds(scope).get(name, ()):
            target = self._import_target(imp, hops)
            if target is not None:
                out.extend(target.symbols)
        if not out:
            for imp in self._wilds(scope):
                target = self._import_target(imp, hops)
                if target is not None and target.scope is not None:
                    out.extend(self._top_of(target.scope).get(name, ()))
        return out

    # -- imports -----------------------------------------------------------------------------

    def _import_target(self, imp: ImportEdge, hops: int) -> Target | None:
        """What an import statement's binding denotes, when it is in the workspace."""
        if hops > _MAX_HOPS:
            return None
        lang = self._lang(imp.path)
        if lang == "python":
            return self._python_import(imp, hops)
        if lang in _JS_LANGS:
            return self._js_import(imp, hops)
        if lang == "go":
            directory = self._go_package_dir(imp.module)
            return Target(scope=directory + "/") if directory is not None else None
        if lang == "rust":
            return self._rust_import(imp)
        if lang == "java":
            return self._java_import(imp)
        return None

    def _member_target(self, scope: str, name: str, hops: int) -> Target:
        found = self._top_of(scope).get(name)
        if found:
            return Target(symbols=tuple(found))
        return Target(symbols=tuple(self._reexported(scope, name, hops + 1)))

    def _python_import(self, imp: ImportEdge, hops: int) -> Target | None:
        module_path = self._python_module_file(imp.path, imp.module)
        if imp.name is None:
            if imp.alias is None and "." in imp.module:
                # `import a.b` binds `a`: the package
                module_path = self._python_module_file(imp.path, imp.module.split(".")[0])
            return Target(scope=module_path) if module_path else None
        if imp.name in ("*", ""):
            return Target(scope=module_path) if module_path else None
        if module_path is not None:
            target = self._member_target(module_path, imp.name, hops)
            if target.symbols:
                return target
        sub = imp.module + ("." if not imp.module.endswith(".") else "") + imp.name
        sub_path = self._python_module_file(imp.path, sub)
        if sub_path is not None:
            return Target(scope=sub_path)
        return None

    def _python_submodule(self, imp: ImportEdge, head: str, rest: str) -> Target | None:
        """``a.b.f()`` after ``import a.b`` (or ``import a as x``; ``x.b.f()``)."""
        if imp.name is not None:
            base = imp.module + ("." if not imp.module.endswith(".") else "") + imp.name
        elif imp.alias:
            base = imp.module
        else:
            base = head
        module_path = self._python_module_file(imp.path, f"{base}.{rest}")
        return Target(scope=module_path) if module_path else None

    def _python_module_file(self, importer: str, module: str) -> str | None:
        key = (importer, module)
        if key not in self._module_memo:
            self._module_memo[key] = self._find_python_module(importer, module)
        return self._module_memo[key]

    def _find_python_module(self, importer: str, module: str) -> str | None:
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            directory = posixpath.dirname(importer)
            for _ in range(level - 1):
                directory = posixpath.dirname(directory)
            rest = module[level:]
            base = posixpath.join(directory, *rest.split(".")) if rest else directory
            for candidate in (
                f"{base}.py",
                f"{base}/__init__.py",
                f"{base}.pyi",
                f"{base}/__init__.pyi",
            ):
                if candidate in self.files:
                    return candidate
            return None
        paths = self._python_modules.get(module)
        return paths[0] if paths and len(paths) == 1 else None

    def _js_import(self, imp: ImportEdge, hops: int) -> Target | None:
        if not imp.module.startswith("."):
            return None  # a package from node_modules: outside the workspace
        base = posixpath.normpath(posixpath.join(posixpath.dirname(imp.path), imp.module))
        target_path = None
        stem = base.rsplit(".", 1)[0] if posixpath.splitext(base)[1] in (".js", ".jsx") else base
        candidates = [base] + [stem + ext for ext in _JS_EXTENSIONS]
        candidates += [f"{base}/index{ext}" for ext in _JS_EXTENSIONS]
        for candidate in candidates:
            if candidate in self.files:
                target_path = candidate
                break
        if target_path is None:
            return None
        if imp.name in (None, "*", ""):
            return Target(scope=target_path)
        name = imp.name
        if name == "default":
            default = self.files[target_path].default_export
            if default is None:
                return None
            name = default
        return self._member_target(target_path, name, hops)

    def _go_package_dir(self, import_path: str) -> str | None:
        for directory, module in self._go_modules.items():
            if import_path == module or import_path.startswith(module + "/"):
                rel = import_path[len(module) :].lstrip("/")
                full = posixpath.join(directory, rel) if directory else rel
                full = full.rstrip("/")
                return full if full in self._go_dirs else None
        if self._go_modules:
            return None
        matches = [
            d for d in self._go_dirs if d and (import_path == d or import_path.endswith("/" + d))
        ]
        if not matches:
            return None
        longest = max(len(d) for d in matches)
        best = [d for d in matches if len(d) == longest]
        return best[0] if len(best) == 1 else None

    def _rust_import(self, imp: ImportEdge) -> Target | None:
        segments = imp.module.split("::") if imp.module else []
        if imp.name in (None, "*", ""):
            return self._rust_path(imp.path, segments)
        submodule = self._rust_path(imp.path, segments + [imp.name])
        if submodule is not None:
            return submodule
        module = self._rust_path(imp.path, segments)
        if module is not None:
            found = self._lookup(module, imp.name)
            if found:
                return Target(symbols=tuple(found))
        return None

    def _rust_path(self, importer: str, segments: list[str]) -> Target | None:
        """The file (and inline ``mod``) a ``crate::``/``super::``/``self::`` path names."""
        if not segments or segments[0] not in ("crate", "super", "self"):
            return None
        parts = importer.split("/")
        if "src" not in parts:
            return None
        idx = parts.index("src")
        src_root = "/".join(parts[: idx + 1])
        module = parts[idx + 1 :]
        module[-1] = module[-1].removesuffix(".rs")
        if module[-1] == "mod" or module in (["lib"], ["main"]):
            module = module[:-1]
        if segments[0] == "crate":
            module = []
        else:
            while segments and segments[0] in ("super", "self"):
                if segments[0] == "super":
                    module = module[:-1]
                segments = segments[1:]
            segments = ["crate", *segments]
        wanted = module + segments[1:]
        for cut in range(len(wanted), -1, -1):
            head, tail = wanted[:cut], wanted[cut:]
            if head:
                candidates = [
                    f"{src_root}/{'/'.join(head)}.rs",
                    f"{src_root}/{'/'.join(head)}/mod.rs",
                ]
            else:
                candidates = [f"{src_root}/lib.rs", f"{src_root}/main.rs"]
            for candidate in candidates:
                if candidate in self.files:
                    owner = ".".join(tail)
                    inline = self._sym(f"{candidate}::{owner}")
                    if owner and (inline is None or inline.kind != "module"):
                        return None
                    return Target(scope=candidate, owner=owner)
        return None

    def _java_import(self, imp: ImportEdge) -> Target | None:
        if imp.name in (None, "*", ""):
            return None
        types = self._java(imp.module, imp.name)
        if types:
            return Target(symbols=tuple(types))
        # import static pkg.Cls.member
        pkg, _, cls = imp.module.rpartition(".")
        owners = self._java(pkg, cls)
        if owners and len(owners) == 1:
            members, _ = self._method(owners[0].path, owners[0].local_name, imp.name, set())
            return Target(symbols=tuple(members))
        return None
