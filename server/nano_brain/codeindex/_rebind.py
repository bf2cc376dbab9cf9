"""Which calls an incremental index run re-resolves, and resolving them.

A call's resolution depends on the definitions and imports visible to it, never on other
calls. So after a run wrote some files, the calls of those files are resolved again, and
elsewhere only the stored calls a change could rebind (see ``Rebinding._affected``); a cold
index, or a change too wide to follow, resolves every call again, streamed from the store a
batch of files at a time (see ``Rebinding._resolve_all``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._symbol_table import python_module_names
from .model import CallSite, FileIndex, ImportEdge
from .resolve import CodeGraph
from .stored import BASES_SEP, StoredDefinitions
from .walk import read_regular

if TYPE_CHECKING:
    from ..brain import Brain
    from ..store import CodeStore

#: what other files can see of one file: ((namespace, default export) or None when the file
#: is not indexed, symbols (qualified name, name, kind, parent, bases), imports (module,
#: member, alias)); see CodeStore.interface_of
Interface = tuple[Any, list[tuple[Any, ...]], list[tuple[Any, ...]]]
#: Most bytes of a go.mod read (its module line comes first).
_MAX_GOMOD_BYTES = 1 << 20
#: more names than this to re-resolve: resolving everything is as cheap
_MAX_NAMES = 4000
#: Calls resolved (and their changed targets written) at a time by a full resolution.
RESOLVE_BATCH_CALLS = 10_000
#: Definitions (symbols, imports, assignments) a full resolution keeps loaded between its
#: batches, about 15 MB: most of a 40k-symbol workspace (SQLAlchemy: 709 file reads for 667
#: files); a larger one is read again where batches reach the same files.
DEFINITIONS_KEPT = 40_000
_CLASS_LIKE = frozenset({"class", "interface", "struct", "enum", "trait", "module", "type"})


class Rebinding:
    """The resolve phase of :class:`~.indexer.Indexer`: what this run parsed (``_fresh``)
    and what other files could see of each file it replaced or removed (``_before``)."""

    brain: Brain
    code: CodeStore
    root: Path
    #: parse results of this run: {path: (FileIndex, call edge ids)}; empty when every call
    #: is resolved again (``_streamed``)
    _fresh: dict[str, tuple[FileIndex, list[int]]]
    #: this run resolves every call again, streamed from the store: nothing parsed is kept
    _streamed: bool
    #: what other files' calls could see of each file this run replaced or removed, before
    #: (None: the file is new)
    _before: dict[str, Interface | None]

    def _resolve_all(self, notify: Callable[[str, int, int], None]) -> tuple[int, int]:
        """Every call of the workspace, read from the store a batch of files at a time (in
        path order: neighbours reach the same definitions) and resolved against a graph that
        loads the definitions its lookups reach; the targets that changed are written batch
        by batch. Returns (calls resolved, calls retargeted).

        Memory stays that of one batch's calls, of the definitions its lookups reach and of
        :data:`DEFINITIONS_KEPT` records kept between batches, whatever the workspace's size.
        """
        definitions = StoredDefinitions(self.code, DEFINITIONS_KEPT)
        path_of = definitions.paths
        go_modules = self._stored_go_modules(definitions)
        counts = dict(self.code.call_counts())
        total = sum(counts.values())
        done = retargeted = 0
        for batch in _batches(sorted(counts, key=path_of.__getitem__), counts, RESOLVE_BATCH_CALLS):
            graph = CodeGraph(
                definitions([path_of[i] for i in batch]),
                catalog=definitions.catalog.values(),
                loader=definitions,
                resolve_all=False,
                go_modules=go_modules,
            )
            rows = self.code.calls_of(batch)
            sites = [
                CallSite(path_of[fid], source, expr or name, name, receiver, rkind, line)
                for _, fid, source, name, receiver, rkind, expr, line, _, _ in rows
            ]
            updates = [
                (target, how, row[0])
                for row, (target, how) in zip(rows, graph.bindings(sites), strict=True)
                if (row[8], row[9]) != (target, how)
            ]
            del graph, sites, rows
            if updates:
                with self.code.store.transaction():
                    self.code.set_call_targets(updates)
            retargeted += len(updates)
            done += sum(counts[i] for i in batch)
            notify("resolve", done, total)
        return done, retargeted

    def _affected(self) -> tuple[set[str], set[str]] | None:
        """Names and targets of the calls outside this run's files that a change can rebind,
        or None when only resolving everything again is safe (a namespace or wildcard import
        changed, a Python module name became (un)ambiguous, or too much changed)."""
        names: set[str] = set()
        classes: set[str] = set()
        targets: set[str] = set()
        bases_of: set[str] = set()  # base names of classes that changed (before or after)
        added_or_removed: list[str] = []
        default_changed = False
        for path, before in self._before.items():
            fresh = self._fresh.get(path)
            b_meta, b_syms, b_imps = before if before is not None else (None, [], [])
            a_meta = (fresh[0].namespace, fresh[0].default_export) if fresh else None
            if b_meta is not None and a_meta is not None and b_meta != a_meta:
                if b_meta[0] != a_meta[0]:
                    return None
                default_changed = True
            if (b_meta is None) != (a_meta is None):
                added_or_removed.append(path)
                default_changed |= bool((b_meta or a_meta or (None, None))[1])
            a_syms = {
                (s.qualified_name, s.name, s.kind, s.parent, BASES_SEP.join(s.bases))
                for s in (fresh[0].symbols if fresh else ())
            }
            b_set = {tuple(r) for r in b_syms}
            for _, name, kind, _, bases in b_set ^ a_syms:
                names.add(name)
                if kind in _CLASS_LIKE:
                    classes.add(name)
                    bases_of.update(b.rsplit(".", 1)[-1] for b in bases.split(BASES_SEP) if b)
            targets.update(r[0] for r in b_set - a_syms)
            a_imps = {(i.module, i.name, i.alias) for i in (fresh[0].imports if fresh else ())}
            for module, member, alias in {tuple(r) for r in b_imps} ^ a_imps:
                edge = ImportEdge(path, module, member, alias, 0)
                if member == "*" and not alias:
                    return None
                if edge.local_name:
                    names.add(edge.local_name)
        if added_or_removed and _module_names_collide(self.code, added_or_removed):
            return None
        members = set(names)
        if default_changed:
            members.add("default")
        if members:
            names |= self.code.import_aliases(sorted(members))
        if classes:
            names |= self._hierarchy_members(classes, bases_of)
        if len(names) > _MAX_NAMES:
            return None
        return names, targets

    def _hierarchy_members(self, classes: set[str], bases: set[str]) -> set[str]:
        """Member names a changed class can lend or stop lending to calls elsewhere: those of
        its ancestors (``obj.m()`` finds ``m`` through it) and of its descendants (their
        ``self.m()`` may now reach, or miss, an inherited method). Classes are followed by
        name, a superset of what the resolver can bind."""
        rows = self.code.derived_classes()
        owners: set[str] = set()
        wanted = set(classes)  # descendants, by base name
        grew = True
        while grew:
            grew = False
            for qname, name, kind, base_list in rows:
                if kind in _CLASS_LIKE and qname not in owners:
                    if any(b.rsplit(".", 1)[-1] in wanted for b in base_list.split(BASES_SEP)):
                        owners.add(qname)
                        wanted.add(name)
                        grew = True
        by_name: dict[str, list[tuple[str, str]]] = {}
        for qname, name, _, base_list in rows:
            by_name.setdefault(name, []).append((qname, base_list))
        todo, seen = list(bases), set(classes)
        while todo:  # ancestors, by name
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for qname, base_list in by_name.get(name, ()):
                owners.add(qname)
                todo.extend(b.rsplit(".", 1)[-1] for b in base_list.split(BASES_SEP) if b)
        owners.update(self.code.class_qualified_names(sorted(seen)))
        return self.code.member_names(sorted(owners)) if owners else set()

    def _resolve_some(
        self, names: set[str], targets: set[str]
    ) -> tuple[list[int], list[tuple[str | None, str]], dict[int, tuple[str | None, str | None]]]:
        """The calls of this run's files, and the stored calls ``names``/``targets`` select,
        resolved against a graph that reads other files from the store when it needs them."""
        definitions = StoredDefinitions(self.code)
        fresh_ids = [i for i, path in definitions.paths.items() if path in self._fresh]
        fresh = [index for index, _ in self._fresh.values()]
        graph = CodeGraph(
            fresh,
            catalog=definitions.catalog.values(),
            loader=definitions,
            resolve_all=False,
            go_modules=self._stored_go_modules(definitions),  # this run's files are stored too
        )
        sites: list[CallSite] = []
        edge_ids: list[int] = []
        for index, ids in self._fresh.values():
            sites.extend(index.calls)
            edge_ids.extend(ids)
        stored: dict[int, tuple[str | None, str | None]] = {}
        if names or targets:
            for row in self.code.calls_to_reresolve(sorted(names), sorted(targets), fresh_ids):
                edge_id, fid, source, name, receiver, rkind, expr, line, target, how = row
                sites.append(CallSite(definitions.paths[fid], source, expr or name, name,
                                      receiver, rkind, line))  # fmt: skip
                edge_ids.append(edge_id)
                stored[edge_id] = (target, how)
        return edge_ids, graph.bindings(sites), stored

    def _stored_go_modules(self, definitions: StoredDefinitions) -> dict[str, str]:
        return self._go_modules(p for p, f in definitions.catalog.items() if f.language == "go")

    def _route_files(self) -> list[str]:
        """Go files declaring routes (their go.mod tells how their imports resolve)."""
        return sorted({f.file for f in self.brain.store.local.route_facts() if f.language == "go"})

    def _go_modules(self, paths: Iterable[str]) -> dict[str, str]:
        """``go.mod`` module paths by directory, for directories above Go files."""
        dirs: set[str] = set()
        for p in paths:
            if p.endswith(".go"):
                d = posixpath.dirname(p)
                while True:
                    dirs.add(d)
                    if not d:
                        break
                    d = posixpath.dirname(d)
        out: dict[str, str] = {}
        for d in dirs:
            gomod = self.root / d / "go.mod"
            try:
                text = read_regular(gomod, _MAX_GOMOD_BYTES).decode("utf-8", errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                if line.startswith("module "):
                    out[d] = line.split(None, 1)[1].strip().strip('"')
                    break
        return out


def _module_names_collide(code: CodeStore, paths: list[str]) -> bool:
    """Whether a Python file added or removed shares a module name with another file (then
    imports elsewhere may have become, or stopped being, ambiguous)."""
    changed = {p for p in paths if p.endswith((".py", ".pyi"))}
    if not changed:
        return False
    now = {row[1] for row in code.graph_files() if row[2] == "python"}
    for files in (now | changed, now - changed):
        for owners in python_module_names(files).values():
            if len(owners) > 1 and changed & set(owners):
                return True
    return False


def _batches(file_ids: list[int], counts: dict[int, int], size: int) -> Iterator[list[int]]:
    """Consecutive files making about ``size`` calls (a file is never split)."""
    batch: list[int] = []
    calls = 0
    for file_id in file_ids:
        batch.append(file_id)
        calls += counts[file_id]
        if calls >= size:
            yield batch
            batch, calls = [], 0
    if batch:
        yield batch
