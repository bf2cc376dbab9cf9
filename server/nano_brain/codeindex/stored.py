"""Rows back into parsed records: a stored file's symbols and edges, or a parse worker's row
tuples, as the `FileIndex` the resolver reads (the indexer's incremental pass and the route
linker both rebuild files this way)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .model import Assignment, CallSite, FileIndex, ImportEdge, Symbol

if TYPE_CHECKING:
    from ..store import CodeStore

#: Separates a symbol's base classes in its stored row.
BASES_SEP = "\x1f"


class StoredDefinitions:
    """A loader of stored files' definitions (symbols, imports, assignments) for lazy
    :class:`~.resolve.CodeGraph` s, keeping the last files loaded up to ``limit`` records
    between graphs: a resolution done a batch of files at a time reads each file about once
    while the workspace fits, and never holds more than that when it does not."""

    def __init__(self, code: CodeStore, catalog: Iterable[FileIndex], limit: int) -> None:
        self._code = code
        self.catalog = {f.path: f for f in catalog}
        self._ids: dict[str, int] = {}
        self._limit = limit
        self._kept: OrderedDict[str, FileIndex] = OrderedDict()
        self._records = 0

    def add_id(self, path: str, file_id: int) -> None:
        self._ids[path] = file_id

    def __call__(self, wanted: list[str]) -> list[FileIndex]:
        out: list[FileIndex] = []
        missing: list[str] = []
        for path in wanted:
            kept = self._kept.get(path)
            if kept is not None:
                self._kept.move_to_end(path)
                out.append(kept)
            elif path in self._ids:
                missing.append(path)
        if missing:
            paths = {self._ids[p]: p for p in missing}
            loaded = rebuild_file_indexes(self._code, list(paths), paths, self.catalog)
            for f in loaded:
                self._kept[f.path] = f
                self._records += _records(f)
            out.extend(loaded)
            while self._records > self._limit and len(self._kept) > len(loaded):
                _, old = self._kept.popitem(last=False)
                self._records -= _records(old)
        return out


def _records(f: FileIndex) -> int:
    return 1 + len(f.symbols) + len(f.imports) + len(f.assignments)


def rebuild_file_indexes(
    code: CodeStore, file_ids: list[int], paths: dict[int, str], catalog: dict[str, FileIndex]
) -> list[FileIndex]:
    """Symbols, imports and assignments (not calls) of some stored files."""
    files: dict[int, FileIndex] = {}
    for fid in file_ids:
        stub = catalog[paths[fid]]
        files[fid] = FileIndex(stub.path, stub.language, namespace=stub.namespace,
                               default_export=stub.default_export)  # fmt: skip
    symbols, edges = code.graph_rows_of(file_ids)
    add_symbols(files, symbols)
    for row in edges:
        add_edge(files[row[1]], row)
    return list(files.values())


def add_symbols(files: dict[int, FileIndex], rows: Iterable[tuple[Any, ...]]) -> None:
    for fid, qname, name, kind, parent, sig, doc, start, end, sha, bases in rows:
        f = files.get(fid)
        if f is not None:
            f.symbols.append(
                Symbol(
                    qname, name, kind, f.path, f.language, sig, doc, start, end, sha, parent,
                    tuple(bases.split(BASES_SEP)) if bases else (),
                )
            )  # fmt: skip


def add_edge(f: FileIndex, row: tuple[Any, ...]) -> bool:
    """Add an edge row (as CodeStore.graph_edges) to its file; True for a call."""
    _, _, kind, source, name, receiver, rkind, expr, module, alias, line = row[:11]
    if kind == "imports":
        f.imports.append(ImportEdge(f.path, module, expr, alias, line))
    elif kind == "assigns":
        f.assignments.append(Assignment(f.path, source, name, expr, line))
    elif kind == "calls":
        f.calls.append(CallSite(f.path, source, expr or name, name, receiver, rkind, line))
        return True
    return False


def file_index_from_rows(
    path: str,
    language: str,
    namespace: str | None,
    default_export: str | None,
    symbols: Sequence[tuple[Any, ...]],
    imports: Sequence[tuple[Any, ...]],
    calls: Sequence[tuple[Any, ...]],
    assigns: Sequence[tuple[Any, ...]] = (),
) -> FileIndex:
    """A worker's row tuples back into the parse records the resolver reads."""
    return FileIndex(
        path=path,
        language=language,
        namespace=namespace,
        default_export=default_export,
        symbols=[
            Symbol(
                q,
                n,
                k,
                path,
                language,
                sig,
                doc,
                a,
                b,
                sha,
                parent,
                tuple(bases.split(BASES_SEP)) if bases else (),
            )
            for q, n, k, parent, sig, doc, a, b, sha, bases, *_ in symbols
        ],  # fmt: skip
        imports=[ImportEdge(path, m, n, al, line) for m, n, al, line in imports],
        calls=[CallSite(path, c, ce, n, r, rk, line) for c, ce, n, r, rk, line in calls],
        assignments=[Assignment(path, sc, t, v, line) for sc, t, v, line in assigns],
    )
