"""Stored rows back into parsed records: a stored file's symbols and edges as the
`FileIndex` the resolver reads (the indexer's incremental pass and the route linker both
rebuild files this way)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .model import Assignment, CallSite, FileIndex, ImportEdge, Symbol

if TYPE_CHECKING:
    from ..store import CodeStore

#: Separates a symbol's base classes in its stored row.
BASES_SEP = "\x1f"


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
