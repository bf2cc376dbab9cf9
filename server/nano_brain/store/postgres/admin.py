"""Setting up a team's PostgreSQL store, as its owner: the schema, the app role's grants,
the k-NN indexes (`nano-brain store init`, through `store.admin`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...dburl import shown
from ._connect import connect, register_vector
from .schema import SCHEMA_VERSION, grant_sql
from .store import migrate
from .vectors import build_vector_indexes


def init_schema(
    url: str, app_role: str | None, vector_index: str, pairs: Sequence[tuple[str, int]]
) -> list[str]:
    """Create or upgrade the schema at `url`, grant `app_role` access when given, and build
    `vector_index` indexes for these (space, dimension) pairs; the indexes built.

    `app_role` is quoted as an identifier: the caller has checked it is letters, digits
    and _ only (`store.admin.init_team_store`)."""
    conn = connect(url, timeout_s=10)
    try:
        migrate(conn, shown(url))
        if app_role:
            conn.execute(grant_sql(f'"{app_role}"'))
        register_vector(conn)
        return build_vector_indexes(conn, vector_index, pairs, shown(url))
    finally:
        conn.close()


__all__ = ["SCHEMA_VERSION", "init_schema"]
