"""Rows back into parsed records: a stored file's symbols and edges, or a parse worker's row
tuples, as the `FileIndex` the resolver reads (the indexer's incremental pass and the route
linker both rebuild files this way)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


def load_file_indexes(
    code: CodeStore,
    catalog: Iterable[tuple[Any, ...]] | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[FileIndex], list[int], dict[int, tuple[str | None, str | None]]]:
    """Rebuild the parse results of every stored file (except ``skip``), for the resolver.

    Returns the files, the id of the edge behind each call site in the order the resolver
    visits them (file by file, call by call), and each such edge's stored (target, how).
    """
    files: dict[int, FileIndex] = {}
    for file_id, path, language, namespace, default_export in (
        code.graph_files() if catalog is None else catalog
    ):
        if path not in skip:
            files[file_id] = FileIndex(path, language, namespace=namespace,
                                       default_export=default_export)  # fmt: skip
    if not files:
        return [], [], {}
    add_symbols(files, code.graph_symbols())
    call_ids: dict[int, list[int]] = {fid: [] for fid in files}
    stored: dict[int, tuple[str | None, str | None]] = {}
    for row in code.graph_edges():
        f = files.get(row[1])
        if f is None:
            continue
        if add_edge(f, row):
            call_ids[row[1]].append(row[0])
            stored[row[0]] = (row[11], row[12])
    edge_ids = [e for fid in files for e in call_ids[fid]]
    return list(files.values()), edge_ids, stored
