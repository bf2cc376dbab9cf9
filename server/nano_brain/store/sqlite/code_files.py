"""One file at a time in the code index's SQLite tables: a source file's symbols and edges,
a text file's document; what an incremental index run writes."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from typing import Any

from ..code import (
    CODE_COLLECTION,
    DOCS_COLLECTION,
    SYMBOL_SOURCE_PREFIX,
    AssignRow,
    CallRow,
    FileRecord,
    ImportRow,
    SymbolRow,
    TextChunkRow,
)
from ..priority import RECENT, TEST, code_priority
from .code_tables import CodeTables

_INSERT_SYMBOL = (
    "INSERT INTO code_symbols (file_id, workspace_id, qualified_name, name, kind, parent, "
    "signature, docstring, start_line, end_line, sha256, bases, doc_id) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_EDGE = (
    "INSERT INTO code_edges (id, file_id, workspace_id, kind, source, target, name, receiver, "
    "receiver_kind, expression, module, alias, how, line) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class CodeFiles(CodeTables):
    """Mixed into CodeStore: a file's rows, swapped or removed."""

    def files(self) -> dict[str, FileRecord]:
        rows = self._rows(
            "SELECT id, path, size, mtime_ns, sha256, language FROM code_files "
            "WHERE workspace_id = ?",
            (self.ws,),
        )
        return {r[1]: FileRecord(*r) for r in rows}

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Same content, new stat: only the stat changes (next time it costs a stat again)."""
        self._exec(
            "UPDATE code_files SET size = ?, mtime_ns = ? WHERE workspace_id = ? AND path = ?",
            (size, mtime_ns, self.ws, path),
        )

    def delete_file(self, path: str) -> None:
        """Remove a file and everything derived from it (documents included)."""
        rows = self._rows(
            "SELECT id, doc_id FROM code_files WHERE workspace_id = ? AND path = ?", (self.ws, path)
        )
        if not rows:
            return
        file_id, doc_id = rows[0]
        docs = [
            r[0]
            for r in self._rows(
                "SELECT doc_id FROM code_symbols WHERE file_id = ? AND doc_id IS NOT NULL",
                (file_id,),
            )
        ]
        if doc_id is not None:
            docs.append(doc_id)
        self._delete_documents(docs)
        self._exec("DELETE FROM code_files WHERE id = ?", (file_id,))

    def tombstoned(self) -> set[str]:
        """Sources the user deleted (symbol documents and text files stay deleted)."""
        return {t.source for t in self.store.tombstones()}

    def source_owner(self, source_path: str) -> int | None:
        """The current document already using a source path (a user's note, say), if any."""
        rows = self._rows(
            "SELECT id FROM documents WHERE workspace_id = ? AND source_path = ? "
            "AND valid_to IS NULL",
            (self.ws, source_path),
        )
        return rows[0][0] if rows else None

    def replace_code_file(
        self,
        *,
        path: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        language: str,
        namespace: str | None,
        default_export: str | None,
        has_errors: bool,
        symbols: Sequence[SymbolRow],
        imports: Sequence[ImportRow],
        calls: Sequence[CallRow],
        tombstoned: set[str],
        now: float,
        assignments: Sequence[AssignRow] = (),
    ) -> tuple[int, list[int]]:
        """Swap one source file's rows; returns (new search documents, ids of call edges).

        The call edges' ids come back in the order of ``calls``, so the resolver can update
        their targets without reading them back.

        A symbol whose qualified name and text hash are unchanged keeps its document (and so
        its vector and access count): editing one function re-embeds one function.
        """
        stat = (size, mtime_ns, sha256, language, namespace, default_export, int(has_errors), now)
        # a file indexed before and indexed again has changed lately: embedded before the rest
        # (test code keeps its tier, which decides whether it is embedded at all)
        known = self._rows(
            "SELECT 1 FROM code_files WHERE workspace_id = ? AND path = ?", (self.ws, path)
        )
        tier = code_priority(path)
        if known and tier != TEST:
            tier = RECENT
        file_id, reuse = self._file_row(path, stat, symbols)
        added = self._insert_symbols(file_id, symbols, reuse, tombstoned, now, tier)
        return added, self._insert_edges(file_id, imports, assignments, calls)

    def _file_row(
        self, path: str, stat: tuple[Any, ...], symbols: Sequence[SymbolRow]
    ) -> tuple[int, dict[str, int]]:
        """The file's row, its old rows gone: its id, and the documents of its symbols whose
        qualified name and text hash are unchanged (by qualified name), which stay."""
        existing = self._rows(
            "SELECT id FROM code_files WHERE workspace_id = ? AND path = ?", (self.ws, path)
        )
        if not existing:
            cursor = self._exec(
                "INSERT INTO code_files (workspace_id, path, size, mtime_ns, sha256, language, "
                "namespace, default_export, has_errors, indexed_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self.ws, path, *stat),
            )
            return int(cursor.lastrowid), {}
        file_id = existing[0][0]
        old_doc = self._rows("SELECT doc_id FROM code_files WHERE id = ?", (file_id,))[0][0]
        old = self._rows(
            "SELECT qualified_name, sha256, doc_id FROM code_symbols WHERE file_id = ?",
            (file_id,),
        )
        new_keys = {(s[0], s[8]) for s in symbols}
        dropped = [doc for q, sha, doc in old if doc is not None and (q, sha) not in new_keys]
        reuse = {q: doc for q, sha, doc in old if doc is not None and (q, sha) in new_keys}
        if old_doc is not None:
            dropped.append(old_doc)
        self._delete_documents(dropped)
        self._exec("DELETE FROM code_symbols WHERE file_id = ?", (file_id,))
        self._exec("DELETE FROM code_edges WHERE file_id = ?", (file_id,))
        self._exec(
            "UPDATE code_files SET size = ?, mtime_ns = ?, sha256 = ?, language = ?, "
            "namespace = ?, default_export = ?, has_errors = ?, doc_id = NULL, "
            "indexed_at = ? WHERE id = ?",
            (*stat, file_id),
        )
        return file_id, reuse

    def _insert_symbols(
        self,
        file_id: int,
        symbols: Sequence[SymbolRow],
        reuse: dict[str, int],
        tombstoned: set[str],
        now: float,
        tier: int,
    ) -> int:
        """The file's symbols, each with its search document (kept, new, or none: the user
        deleted it), new chunks in embedding tier `tier`; how many documents are new."""
        doc_id, chunk_id = self._next_ids()
        state = self._chunk_state(tier)
        docs: list[tuple[Any, ...]] = []
        chunks: list[tuple[Any, ...]] = []
        moved: list[tuple[int, int, int]] = []
        sym_rows: list[tuple[Any, ...]] = []
        ws = self.ws
        for s in symbols:
            qname = s[0]
            own = reuse.get(qname)
            if own is not None:
                moved.append((s[6], s[7], own))
            elif s[10] and SYMBOL_SOURCE_PREFIX + qname not in tombstoned:
                own = doc_id
                doc_id += 1
                # the text lives in the chunk only (see DOC_CONTENT)
                docs.append((own, ws, s[14], CODE_COLLECTION, qname, "", s[11],
                             SYMBOL_SOURCE_PREFIX + qname, s[13], now, now, now, now))  # fmt: skip
                chunks.append((chunk_id, own, ws, s[12], s[10], s[2], s[6], s[7], tier, state))
                chunk_id += 1
            sym_rows.append((file_id, ws, qname, s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
                             s[9], own))  # fmt: skip
        self._insert_documents(docs, chunks)
        if moved:
            self._many("UPDATE chunks SET start_line = ?, end_line = ? WHERE doc_id = ?", moved)
        self._many(_INSERT_SYMBOL, sym_rows)
        return len(docs)

    def _insert_edges(
        self,
        file_id: int,
        imports: Sequence[ImportRow],
        assignments: Sequence[AssignRow],
        calls: Sequence[CallRow],
    ) -> list[int]:
        """The file's import, assignment and call edges; the call edges' ids, in order."""
        ws = self.ws
        edge_id = int(self._rows("SELECT coalesce(max(id), 0) + 1 FROM code_edges")[0][0])
        edges: list[tuple[Any, ...]] = []
        for module, name, alias, line in imports:
            # name: what the import binds (for display); expression: the member as written
            # (NULL: the statement binds the module itself)
            binding = alias or (name if name not in (None, "", "*") else module)
            edges.append((edge_id, file_id, ws, "imports", None, None, binding, None, None, name,
                          module, alias, None, line))  # fmt: skip
            edge_id += 1
        for scope, target, value, line in assignments:
            # the resolver types receivers by these (x = Cls(); x.m())
            edges.append((edge_id, file_id, ws, "assigns", scope, None, target, None, None,
                          value, None, None, None, line))  # fmt: skip
            edge_id += 1
        call_ids = list(range(edge_id, edge_id + len(calls)))
        for caller, callee, name, receiver, receiver_kind, line in calls:
            edges.append((edge_id, file_id, ws, "calls", caller, None, name, receiver,
                          receiver_kind, callee, None, None, "unresolved", line))  # fmt: skip
            edge_id += 1
        self._many(_INSERT_EDGE, edges)
        return call_ids

    def replace_text_file(
        self,
        *,
        path: str,
        size: int,
        mtime_ns: int,
        sha256: str,
        title: str,
        content: str,
        content_hash: str,
        chunks: Sequence[TextChunkRow],
        tombstoned: set[str],
        now: float,
    ) -> int:
        """Swap a Markdown/text file's document (kind ``code``, collection ``docs``)."""
        self.delete_file(path)
        cursor = self._exec(
            "INSERT INTO code_files (workspace_id, path, size, mtime_ns, sha256, language, "
            "indexed_at) VALUES (?, ?, ?, ?, ?, NULL, ?)",
            (self.ws, path, size, mtime_ns, sha256, now),
        )
        file_id = int(cursor.lastrowid)
        if path in tombstoned or not chunks or self.source_owner(path) is not None:
            return 0
        doc_id, chunk_id = self._next_ids()
        meta = json.dumps({"path": path}, sort_keys=True)
        docs = [(doc_id, self.ws, secrets.token_hex(6), DOCS_COLLECTION, title, content,
                 content_hash, path, meta, now, now, now, now)]  # fmt: skip
        tier = code_priority(path)
        state = self._chunk_state(tier)
        rows = [
            (chunk_id + i, doc_id, self.ws, title, body, heading, start, end, seq, tier, state)
            for i, (seq, body, heading, start, end) in enumerate(chunks)
        ]
        self._insert_documents(docs, [])
        # the chunks' triggers write their full-text rows: many rows per statement
        self.store._insert_rows(
            "INSERT INTO chunks (id, doc_id, workspace_id, title, body, heading, start_line, "
            "end_line, seq, priority, embedded)",
            rows,
        )
        self._exec("UPDATE code_files SET doc_id = ? WHERE id = ?", (doc_id, file_id))
        return 1

    def _insert_documents(
        self,
        docs: Sequence[tuple[Any, ...]],
        chunks: Sequence[tuple[Any, ...]],
        *,
        fulltext: bool = True,
    ) -> None:
        if docs:
            self._many(
                "INSERT INTO documents (id, workspace_id, uid, kind, collection, title, content, "
                "content_hash, source_path, metadata, created_at, updated_at, recorded_at, "
                "valid_from, author) VALUES (?, ?, ?, 'code', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "'index')",
                docs,
            )
        if chunks:
            self._many(
                "INSERT INTO chunks (id, doc_id, workspace_id, title, body, heading, start_line, "
                "end_line, seq, symbol, priority, embedded) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?, ?)",
                chunks,
            )
            if fulltext:
                self._index_symbol_chunks(chunks[0][0], chunks[-1][0])
