"""Rows back into parsed records: a stored file's symbols and edges, or a parse worker's row
tuples, as the `FileIndex` the resolver reads (the indexer's resolutions and the route
linker all load stored files through `StoredDefinitions`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .model import Assignment, CallSite, FileIndex, ImportEdge, Symbol

if TYPE_CHECKING:
    from ..store import CodeStore

#: Separates a symbol's base classes in its stored row.
BASES_SEP = "\x1f"


class StoredDefinitions:
    """Every stored source file by name, language and namespace (``catalog``), and a loader
    of their definitions (symbols, imports, assignments) for a lazy
    :class:`~.resolve.CodeGraph`. With a ``limit``, the last files loaded are kept up to that
    many records between graphs: a resolution done a batch of files at a time reads each file
    about once while the workspace fits, and never holds more than that when it does not."""

    def __init__(self, code: CodeStore, limit: int | None = None) -> None:
        self._code = code
        self.catalog: dict[str, FileIndex] = {}
        #: stored file id -> path
        self.paths: dict[int, str] = {}
        self._ids: dict[str, int] = {}
        for file_id, path, language, namespace, default_export in code.graph_files():
            self.catalog[path] = FileIndex(path, language, namespace=namespace,
                                           default_export=default_export)  # fmt: skip
            self.paths[file_id] = path
            self._ids[path] = file_id
        self._limit = limit
        self._kept: OrderedDict[str, FileIndex] = OrderedDict()
        self._records = 0

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
            loaded = _rebuild(self._code, list(paths), paths, self.catalog)
            for f in loaded:
                self._kept[f.path] = f
                self._records += _records(f)
            out.extend(loaded)
            while (
                self._limit is not None
                and self._records > self._limit
                and len(self._kept) > len(loaded)
            ):
                _, old = self._kept.popitem(last=False)
                self._records -= _records(old)
        return out


def _records(f: FileIndex) -> int:
    return 1 + len(f.symbols) + len(f.imports) + len(f.assignments)


def _rebuild(
    code: CodeStore, file_ids: list[int], paths: dict[int, str], catalog: dict[str, FileIndex]
) -> list[FileIndex]:
    """Symbols, imports and assignments (not calls) of some stored files."""
    files: dict[int, FileIndex] = {}
    for fid in file_ids:
        stub = catalog[paths[fid]]
        files[fid] = FileIndex(stub.path, stub.language, namespace=stub.namespace,
                               default_export=stub.default_export)  # fmt: skip
    symbols, edges = code.graph_rows_of(file_ids)
    for fid, qname, name, kind, parent, sig, doc, start, end, sha, bases in symbols:
        f = files[fid]
        f.symbols.append(
            Symbol(
                qname, name, kind, f.path, f.language, sig, doc, start, end, sha, parent,
                tuple(bases.split(BASES_SEP)) if bases else (),
            )
        )  # fmt: skip
    for _, fid, kind, source, name, _, _, expr, module, alias, line, *_ in edges:
        f = files[fid]
        if kind == "imports":
            f.imports.append(ImportEdge(f.path, module, expr, alias, line))
        else:  # assigns: graph_rows_of reads no calls
            f.assignments.append(Assignment(f.path, source, name, expr, line))
    return list(files.values())


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
