"""The code index in SQLite: files, symbols, edges, symbol search documents and anchors.

The code index writes thousands of symbols per second, far more than ``Brain.write`` (one
transaction, audit row and embedding per document) can take, so its search documents are
inserted here in bulk into the engine's own ``documents`` and ``chunks`` tables: the FTS
triggers index them at once (the lexical leg sees them on commit) and their chunks are left
``embedded = 0`` for ``Brain.embed_pending`` to fill later. Every method expects to run inside
``Store.transaction()`` when it writes; the caller decides how much one transaction covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...filters import Filters
from ..code import AnchorRecord, EdgeRecord, SymbolRecord
from .code_bulk import CodeBulk
from .code_files import CodeFiles

_SYMBOL_COLUMNS = (
    "s.qualified_name, s.name, s.kind, f.path, f.language, s.parent, s.signature, s.docstring, "
    "s.start_line, s.end_line, s.sha256, d.uid"
)
_SYMBOL_FROM = (
    "code_symbols s JOIN code_files f ON f.id = s.file_id LEFT JOIN documents d ON d.id = s.doc_id"
)


class CodeStore(CodeBulk, CodeFiles):
    """The code tables of one workspace's store; shares the Store's connection and lock.
    Its writes are `code_bulk`'s (cold builds) and `code_files`' (one file at a time); its
    reads and the anchors are here."""

    # -- resolution ------------------------------------------------------------------------

    def graph_files(self) -> list[tuple[Any, ...]]:
        """(id, path, language, namespace, default_export) of every source file."""
        return self._rows(
            "SELECT id, path, language, namespace, default_export FROM code_files "
            "WHERE workspace_id = ? AND language IS NOT NULL",
            (self.ws,),
        )

    def call_counts(self) -> list[tuple[int, int]]:
        """(file id, calls) of every file that makes calls, in file id order."""
        return self._rows(
            "SELECT file_id, count(*) FROM code_edges WHERE workspace_id = ? AND kind = 'calls' "
            "GROUP BY file_id ORDER BY file_id",
            (self.ws,),
        )

    def calls_of(self, file_ids: Sequence[int]) -> list[tuple[Any, ...]]:
        """The call edges of some files, as :meth:`calls_to_reresolve` returns them."""
        return self._rows_in(
            "SELECT id, file_id, source, name, receiver, receiver_kind, expression, line, target, "
            "how FROM code_edges WHERE file_id IN ({marks}) AND kind = 'calls' ORDER BY id",
            file_ids,
        )

    def graph_rows_of(
        self, file_ids: Sequence[int]
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Symbols (file_id, qname, name, kind, parent, signature, docstring, start, end,
        sha256, bases; the docstring always None: no resolution rule reads it, and a resolver
        may hold many) and imports/assignments (id, file_id, kind, source, name, receiver,
        receiver_kind, expression, module, alias, line, target, how) of some files, for a
        resolver that reads only the files it needs."""
        symbols: list[Any] = []
        edges: list[Any] = []
        for start in range(0, len(file_ids), 500):
            part = list(file_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            symbols.extend(
                self._rows(
                    "SELECT file_id, qualified_name, name, kind, parent, signature, NULL, "
                    "start_line, end_line, sha256, bases FROM code_symbols "
                    f"WHERE file_id IN ({marks}) ORDER BY id",
                    part,
                )
            )
            edges.extend(
                self._rows(
                    "SELECT id, file_id, kind, source, name, receiver, receiver_kind, expression, "
                    "module, alias, line, target, how FROM code_edges "
                    f"WHERE file_id IN ({marks}) AND kind IN ('imports', 'assigns') ORDER BY id",
                    part,
                )
            )
        return symbols, edges

    def interface_of(self, path: str) -> tuple[Any, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """What other files' calls can see of one stored file: ((namespace, default_export)
        or None when the file is not indexed, symbols (qualified name, name, kind, parent,
        bases), imports (module, member, alias))."""
        rows = self._rows(
            "SELECT id, namespace, default_export FROM code_files WHERE workspace_id = ? "
            "AND path = ?",
            (self.ws, path),
        )
        if not rows:
            return None, [], []
        file_id = rows[0][0]
        symbols = self._rows(
            "SELECT qualified_name, name, kind, parent, bases FROM code_symbols WHERE file_id = ?",
            (file_id,),
        )
        imports = self._rows(
            "SELECT module, expression, alias FROM code_edges WHERE file_id = ? "
            "AND kind = 'imports'",
            (file_id,),
        )
        return (rows[0][1], rows[0][2]), symbols, imports

    def calls_to_reresolve(
        self, names: Sequence[str], targets: Sequence[str], skip_files: Sequence[int]
    ) -> list[tuple[Any, ...]]:
        """Call edges named one of ``names`` or resolved to one of ``targets``, outside
        ``skip_files``: (id, file_id, source, name, receiver, receiver_kind, expression, line,
        target, how), in id order."""
        columns = (
            "SELECT id, file_id, source, name, receiver, receiver_kind, expression, line, "
            "target, how FROM code_edges WHERE kind = 'calls' "
        )
        found = {r[0]: r for r in self._rows_in(columns + "AND name IN ({marks})", names)}
        found.update(
            (r[0], r)
            for r in self._rows_in(
                columns + "AND target IN ({marks}) AND target IS NOT NULL", targets
            )
        )
        skip = set(skip_files)
        return [found[k] for k in sorted(found) if found[k][1] not in skip]

    def import_aliases(self, members: Sequence[str]) -> set[str]:
        """Local names other files bind ``members`` to (``from m import f as g``: ``g``)."""
        rows = self._rows_in(
            "SELECT DISTINCT alias FROM code_edges WHERE kind = 'imports' "
            "AND alias IS NOT NULL AND expression IN ({marks})",
            members,
        )
        return {r[0] for r in rows}

    def derived_classes(self) -> list[tuple[str, str, str, str]]:
        """(qualified name, name, kind, bases) of every symbol that has bases."""
        return self._rows(
            "SELECT qualified_name, name, kind, bases FROM code_symbols "
            "WHERE workspace_id = ? AND bases != ''",
            (self.ws,),
        )

    def class_qualified_names(self, names: Sequence[str]) -> set[str]:
        """Qualified names of the class-like symbols called one of ``names``."""
        rows = self._rows_in(
            "SELECT qualified_name FROM code_symbols WHERE workspace_id = ? AND name IN "
            "({marks}) AND kind IN ('class', 'interface', 'struct', 'enum', 'trait', 'module', "
            "'type')",
            names,
            (self.ws,),
        )
        return {r[0] for r in rows}

    def member_names(self, parents: Sequence[str]) -> set[str]:
        rows = self._rows_in("SELECT name FROM code_symbols WHERE parent IN ({marks})", parents)
        return {r[0] for r in rows}

    def set_call_targets(self, updates: Sequence[tuple[str | None, str, int]]) -> None:
        """(target, how, edge id) for the calls whose resolution changed."""
        self._many("UPDATE code_edges SET target = ?, how = ? WHERE id = ?", updates)

    # -- queries ---------------------------------------------------------------------------

    def _symbols(self, where: str, params: Sequence[Any], limit: int = 1000) -> list[SymbolRecord]:
        rows = self._rows(
            f"SELECT {_SYMBOL_COLUMNS} FROM {_SYMBOL_FROM} WHERE s.workspace_id = ? AND ({where}) "
            "ORDER BY f.path, s.start_line LIMIT ?",
            (self.ws, *params, limit),
        )
        return [SymbolRecord(*r) for r in rows]

    def symbol(self, qualified_name: str) -> SymbolRecord | None:
        found = self._symbols("s.qualified_name = ?", (qualified_name,), 1)
        return found[0] if found else None

    def find_symbols(
        self, query: str, kind: str | None = None, limit: int = 200
    ) -> list[SymbolRecord]:
        """By qualified name, ``Class.method`` suffix or bare name; else a name substring."""
        extra, params = ("AND s.kind = ?", [kind]) if kind else ("", [])
        if "::" in query:
            return self._symbols(f"s.qualified_name = ? {extra}", (query, *params), limit)
        if "." in query:
            name = query.rsplit(".", 1)[1]
            return self._symbols(
                f"s.name = ? AND (s.qualified_name LIKE ? ESCAPE '\\' OR "
                f"s.qualified_name LIKE ? ESCAPE '\\') {extra}",
                (name, "%::" + _like(query), "%." + _like(query), *params),
                limit,
            )
        exact = self._symbols(f"s.name = ? {extra}", (query, *params), limit)
        if exact:
            return exact
        return self._symbols(
            f"s.name LIKE ? ESCAPE '\\' {extra}", ("%" + _like(query) + "%", *params), limit
        )

    def callers(self, targets: Sequence[str]) -> list[EdgeRecord]:
        """Resolved calls to any of ``targets``, in path and line order."""
        return self._edges("e.target", targets)

    def callees(self, sources: Sequence[str]) -> list[EdgeRecord]:
        """Calls made directly inside any of ``sources`` (resolved or not), in line order."""
        return self._edges("e.source", sources)

    def top_level_calls(self, path: str) -> list[EdgeRecord]:
        """Calls at the top level of a file (outside any symbol)."""
        rows = self._rows(
            "SELECT e.source, e.target, e.name, e.expression, e.how, f.path, e.line "
            "FROM code_edges e JOIN code_files f ON f.id = e.file_id WHERE e.workspace_id = ? "
            "AND f.path = ? AND e.kind = 'calls' AND e.source IS NULL ORDER BY e.line",
            (self.ws, path),
        )
        return [EdgeRecord(*r) for r in rows]

    def unresolved_calls_named(self, name: str, limit: int = 200) -> list[EdgeRecord]:
        rows = self._rows(
            "SELECT e.source, e.target, e.name, e.expression, e.how, f.path, e.line "
            "FROM code_edges e JOIN code_files f ON f.id = e.file_id "
            "WHERE e.workspace_id = ? AND e.name = ? "
            "AND e.kind = 'calls' AND e.target IS NULL ORDER BY f.path, e.line LIMIT ?",
            (self.ws, name, limit),
        )
        return [EdgeRecord(*r) for r in rows]

    def _edges(self, column: str, keys: Sequence[str]) -> list[EdgeRecord]:
        out: list[EdgeRecord] = []
        keys = list(dict.fromkeys(keys))
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._rows(
                "SELECT e.source, e.target, e.name, e.expression, e.how, f.path, e.line "
                "FROM code_edges e JOIN code_files f ON f.id = e.file_id "
                f"WHERE e.workspace_id = ? AND {column} IN ({marks}) AND e.kind = 'calls' "
                "ORDER BY f.path, e.line",
                (self.ws, *part),
            )
            out.extend(EdgeRecord(*r) for r in rows)
        return out

    def counts(self) -> dict[str, int]:
        """Files, symbols, edges, calls and resolved calls. Each is a plain ``count(*)``
        that SQLite answers from the smallest index (a store holds one workspace): every
        index run ends with these, and grouping the edges by kind scanned them all."""
        files, code_files = self._rows(
            "SELECT count(*), coalesce(sum(language IS NOT NULL), 0) FROM code_files "
            "WHERE workspace_id = ?",
            (self.ws,),
        )[0]
        symbols = self._rows("SELECT count(*) FROM code_symbols")[0][0]
        edges = self._rows("SELECT count(*) FROM code_edges")[0][0]
        calls = self._rows("SELECT count(*) FROM code_edges WHERE kind = 'calls'")[0][0]
        resolved = self._rows(
            "SELECT count(*) FROM code_edges WHERE kind = 'calls' AND target IS NOT NULL"
        )[0][0]
        return {
            "files": int(files),
            "source_files": int(code_files),
            "text_files": int(files) - int(code_files),
            "symbols": int(symbols),
            "edges": int(edges),
            "calls": int(calls),
            "resolved_calls": int(resolved),
        }

    # -- anchors ---------------------------------------------------------------------------

    def add_anchor(
        self, doc_uid: str, path: str, qualified_name: str, sha256: str, now: float
    ) -> None:
        """Anchor a note to a symbol, with the notes (inside the caller's transaction)."""
        self.notes.add_anchor(doc_uid, path, qualified_name, sha256, now)

    def remove_anchor(self, doc_uid: str, qualified_name: str) -> bool:
        return self.notes.remove_anchor(doc_uid, qualified_name)

    def anchors(
        self,
        *,
        qualified_names: Sequence[str] | None = None,
        doc_uid: str | None = None,
        path: str | None = None,
        visible: Filters | None = None,
    ) -> list[AnchorRecord]:
        """Anchors (all, of some symbols, of one note, of one file) with the symbol's hash.

        With `visible`, only the anchors of notes a read with those filters returns, chosen by
        the store's one predicate (`Filters()`: no deleted, retracted or superseded notes);
        without it, every anchor with its note's current status (None once deleted).
        """
        rows = self.notes.anchor_rows(
            qualified_names=qualified_names, doc_uid=doc_uid, path=path, visible=visible
        )
        symbols = self.symbols_now([r[4] for r in rows])
        return [AnchorRecord(*r, symbols[r[4]][0] if r[4] in symbols else None) for r in rows]

    def symbols_now(self, names: Sequence[str]) -> dict[str, tuple[str, int, int]]:
        """sha256, start and end line of this clone's symbols of these qualified names."""
        out: dict[str, tuple[str, int, int]] = {}
        wanted = list(dict.fromkeys(names))
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            for qname, sha, first, last in self._rows(
                "SELECT qualified_name, sha256, start_line, end_line FROM code_symbols "
                f"WHERE qualified_name IN ({','.join('?' * len(part))})",
                part,
            ):
                out[qname] = (sha, first, last)
        return out


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
