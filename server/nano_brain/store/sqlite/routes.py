"""The SQL of HTTP routes (see `store.routes`): facts per file and the linked routes, in the
code index's tables. Mixed into `SqliteStore`; writes expect a transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..routes import FactRow, RouteRecord, RouteRow, StoredFact

if TYPE_CHECKING:
    from ._host import StoreHost as Store

_ROUTE_COLUMNS = (
    "r.method, r.path, r.framework, r.handler, r.handler_expr, f.path, r.line "
    "FROM code_routes r JOIN code_files f ON f.id = r.file_id"
)


class RouteQueries:
    """Mixed into `Store`: route facts and linked routes (uses the store's connection)."""

    def replace_route_facts(self: Store, path: str, facts: Sequence[FactRow]) -> None:
        """Swap the facts of one indexed file (call in the transaction that wrote the file)."""
        rows = self._rows(
            "SELECT id FROM code_files WHERE workspace_id = ? AND path = ?",
            (self.workspace_id, path),
        )
        if not rows:
            return
        file_id = rows[0][0]
        self._exec("DELETE FROM code_route_facts WHERE file_id = ?", (file_id,))
        if facts:
            self._many(
                "INSERT INTO code_route_facts (file_id, workspace_id, kind, framework, method, "
                "path, owner, target, handler, scope, line) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(file_id, self.workspace_id, *fact) for fact in facts],
            )

    def route_fact_count(self: Store) -> int:
        return int(
            self._rows(
                "SELECT count(*) FROM code_route_facts WHERE workspace_id = ?",
                (self.workspace_id,),
            )[0][0]
        )

    def route_facts(self: Store) -> list[StoredFact]:
        """Every file's facts, by file and line."""
        rows = self._rows(
            "SELECT f.path, f.language, x.kind, x.framework, x.method, x.path, x.owner, x.target, "
            "x.handler, x.scope, x.line FROM code_route_facts x "
            "JOIN code_files f ON f.id = x.file_id WHERE x.workspace_id = ? "
            "ORDER BY f.path, x.line, x.id",
            (self.workspace_id,),
        )
        return [StoredFact(*r) for r in rows]

    def replace_routes(self: Store, routes: Sequence[RouteRow]) -> None:
        """Swap every linked route of the workspace (call inside a transaction)."""
        self._exec("DELETE FROM code_routes WHERE workspace_id = ?", (self.workspace_id,))
        if routes:
            self._many(
                "INSERT INTO code_routes (workspace_id, file_id, framework, method, path, "
                "handler, handler_expr, line) SELECT ?, id, ?, ?, ?, ?, ?, ? FROM code_files "
                "WHERE workspace_id = ? AND path = ?",
                [
                    (
                        self.workspace_id,
                        fw,
                        method,
                        path,
                        handler,
                        expr,
                        line,
                        self.workspace_id,
                        file,
                    )
                    for file, fw, method, path, handler, expr, line in routes
                ],
            )

    def list_routes(
        self: Store,
        *,
        method: str | None = None,
        path_like: str | None = None,
        framework: str | None = None,
        limit: int = 1000,
    ) -> list[RouteRecord]:
        """Routes by path, then method; `method` also matches routes taking any method;
        `path_like` is an SQL GLOB over the path."""
        clauses, params = ["r.workspace_id = ?"], [self.workspace_id]
        if method:
            clauses.append("(r.method = ? OR r.method = 'ANY')")
            params.append(method)
        if path_like:
            clauses.append("r.path GLOB ?")
            params.append(path_like)
        if framework:
            clauses.append("r.framework = ?")
            params.append(framework)
        rows = self._rows(
            f"SELECT {_ROUTE_COLUMNS} WHERE {' AND '.join(clauses)} "
            "ORDER BY r.path, r.method, f.path, r.line LIMIT ?",
            (*params, limit),
        )
        return [RouteRecord(*r) for r in rows]

    def routes_of_handlers(self: Store, handlers: Sequence[str]) -> list[RouteRecord]:
        """Routes whose handler is one of these symbols."""
        names = list(dict.fromkeys(handlers))
        out: list[RouteRecord] = []
        for start in range(0, len(names), 500):
            part = names[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._rows(
                f"SELECT {_ROUTE_COLUMNS} WHERE r.workspace_id = ? AND r.handler IN ({marks}) "
                "ORDER BY r.path, r.method",
                (self.workspace_id, *part),
            )
            out.extend(RouteRecord(*r) for r in rows)
        return out
