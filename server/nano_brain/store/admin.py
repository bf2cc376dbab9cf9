"""Administering stores: set up a team store on a server, copy memory between stores
(`nano-brain store init|migrate`, through `nano_brain.storeadmin`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import paths
from ..dburl import check_url, is_url, shown
from ..errors import InvalidInputError
from . import open_store
from .sqlite.store import SqliteStore
from .team import TeamStore
from .transfer import copy_memory

if TYPE_CHECKING:
    from ..config import Config
    from .postgres.store import PostgresStore

#: The spaces a team store indexes vectors of.
_SPACES = ("text", "code")


def init_team_store(url: str, app_role: str | None, vector_index: str, dims: str) -> dict[str, Any]:
    """Create or upgrade the team store's schema at `url` (run as the database's owner),
    grant `app_role` access, build `vector_index` indexes of each space at the dimensions
    `dims` lists (comma-separated). What was done: the store as shown, its schema version,
    the role, the indexes built."""
    check_url(url)
    if app_role is not None and not app_role.replace("_", "").isalnum():
        raise InvalidInputError(f"invalid role name {app_role!r}: letters, digits and _ only")
    try:
        sizes = sorted({int(d) for d in dims.split(",") if d.strip()})
    except ValueError:
        raise InvalidInputError(f"invalid --dims {dims!r}: numbers, comma-separated") from None
    # psycopg and the dialect load only here: the CLI imports this module to start
    from .postgres.admin import SCHEMA_VERSION, init_schema

    pairs = [(space, dim) for space in _SPACES for dim in sizes]
    built = init_schema(url, app_role, vector_index, pairs)
    return {
        "store": shown(url),
        "schema_version": SCHEMA_VERSION,
        "app_role": app_role,
        "vector_indexes": built,
    }


def copy_memory_between(
    config: Config, root: Path, source: str | None, target: str
) -> dict[str, Any]:
    """Copy the workspace's memory from `source` (its own store when None) to `target`: a
    store file, or a team store's URL. What was copied, with both stores' locations."""
    local_id = paths.workspace_id(root)
    local_path = Path(config.storage.db_path or paths.default_db_path(root)).expanduser()

    def open_at(where: str | None) -> SqliteStore | PostgresStore:
        """The store at `where` (this workspace's when None); of a team store, its
        PostgreSQL part: the code index stays behind, as `copy_memory` leaves it."""
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
            return {"from": src.location, "to": dst.location, **copied.__dict__}
        finally:
            dst.close()
    finally:
        src.close()
