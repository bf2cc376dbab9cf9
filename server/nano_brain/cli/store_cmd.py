"""Commands for the team store: set it up on a server, copy a local store into it and back."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import InvalidInputError
from ._app import emit, json_option, load_workspace, main, workspace_option


@main.group(name="store")
def store_group() -> None:
    """Set up a team store on PostgreSQL; copy memory between stores."""


@store_group.command(name="init")
@click.argument("url")
@click.option("--app-role", default=None, help="Role nano-brain connects as (granted access).")
@click.option(
    "--vector-index",
    type=click.Choice(["ivfflat", "hnsw", "exact"]),
    default="ivfflat",
    help="Build this k-NN index (ivfflat learns from the vectors present: run again after "
    "a large import).",
)
@click.option("--dims", default="384", help="Embedding dimensions to index (comma-separated).")
@json_option
def init(url: str, app_role: str | None, vector_index: str, dims: str, as_json: bool) -> None:
    """Create or upgrade the team store's schema at URL (run as the database's owner)."""
    from ..dburl import check_url, shown
    from ..store.postgres._connect import connect, register_vector
    from ..store.postgres.schema import SCHEMA_VERSION, grant_sql
    from ..store.postgres.store import migrate
    from ..store.postgres.vectors import build_vector_indexes

    check_url(url)
    if app_role is not None and not app_role.replace("_", "").isalnum():
        raise InvalidInputError(f"invalid role name {app_role!r}: letters, digits and _ only")
    try:
        sizes = sorted({int(d) for d in dims.split(",") if d.strip()})
    except ValueError:
        raise InvalidInputError(f"invalid --dims {dims!r}: numbers, comma-separated") from None
    conn = connect(url, timeout_s=10)
    try:
        migrate(conn, shown(url))
        if app_role:
            conn.execute(grant_sql(f'"{app_role}"'))
        register_vector(conn)
        pairs = [(space, dim) for space in ("text", "code") for dim in sizes]
        built = build_vector_indexes(conn, vector_index, pairs, shown(url))
    finally:
        conn.close()
    info = {
        "store": shown(url),
        "schema_version": SCHEMA_VERSION,
        "app_role": app_role,
        "vector_indexes": built,
    }
    emit(info, as_json, lambda: click.echo(f"store {info['store']} at schema v{SCHEMA_VERSION}"))


@store_group.command(name="migrate")
@click.option("--to", "target", required=True, help="postgresql://... URL or a store file.")
@click.option("--from", "source", default=None, help="Copy from here (default: this store).")
@workspace_option
@json_option
def migrate_cmd(target: str, source: str | None, workspace: Path | None, as_json: bool) -> None:
    """Copy this workspace's memory into another store (a team store, or a file and back)."""
    from .. import paths
    from ..dburl import is_url
    from ..store import SqliteStore
    from ..store.postgres.store import PostgresStore
    from ..store.transfer import copy_memory

    root, loaded = load_workspace(workspace)
    config = loaded.config
    local_id = paths.workspace_id(root)
    local_path = Path(config.storage.db_path or paths.default_db_path(root)).expanduser()

    def open_at(where: str | None) -> SqliteStore | PostgresStore:
        """The store at `where` (this workspace's when None); of a team store, its
        PostgreSQL part: the code index stays behind, as `copy_memory` leaves it."""
        from ..store import open_store
        from ..store.team import TeamStore

        if where is not None and not is_url(where):
            return SqliteStore(Path(where).expanduser(), local_id)
        chosen = config
        if where is not None:
            chosen = config.model_copy(deep=True)
            chosen.storage.url = where
        opened = open_store(chosen, local_path, local_id, root)
        if isinstance(opened, TeamStore):
            opened.local.close()
            return opened.team
        if not isinstance(opened, SqliteStore):
            raise TypeError(type(opened).__name__)
        return opened

    src = open_at(source)
    try:
        dst = open_at(target)
        try:
            if src.location == dst.location:
                raise InvalidInputError("the source and the target are the same store")
            copied = copy_memory(src, dst)
            info = {
                "from": src.location,
                "to": dst.location,
                **copied.__dict__,
            }
        finally:
            dst.close()
    finally:
        src.close()

    def human() -> None:
        click.echo(f"copied {info['from']} -> {info['to']}")
        for key in ("documents", "skipped_documents", "chunks", "vectors", "status_changes",
                    "tombstones", "audit_rows", "anchors", "proposals"):  # fmt: skip
            click.echo(f"  {key:<18} {info[key]}")

    emit(info, as_json, human)
