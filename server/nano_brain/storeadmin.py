"""What the front ends call to administer stores (`nano-brain store init|migrate`): the
store's admin steps (`store.admin`) through a core module, so no front end imports the
store. Cheap to import: the store loads when a step runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import Config


def init_team_store(url: str, app_role: str | None, vector_index: str, dims: str) -> dict[str, Any]:
    """Create or upgrade a team store's schema (see `store.admin.init_team_store`)."""
    from .store import admin

    return admin.init_team_store(url, app_role, vector_index, dims)


def copy_memory_between(
    config: Config, root: Path, source: str | None, target: str
) -> dict[str, Any]:
    """Copy a workspace's memory between stores (see `store.admin.copy_memory_between`)."""
    from .store import admin

    return admin.copy_memory_between(config, root, source, target)
