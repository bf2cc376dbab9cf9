"""Where nano-brain keeps its files: per-workspace stores under the XDG directories."""

from __future__ import annotations

import hashlib
from pathlib import Path

import platformdirs

APP_NAME = "nano-brain"


def workspace_root(path: str | Path | None) -> Path:
    """The resolved root directory of a workspace (default: the current directory)."""
    root = Path(path) if path is not None else Path.cwd()
    return root.expanduser().resolve()


def workspace_id(root: Path) -> str:
    """A short stable id for a workspace, derived from its resolved root path."""
    return hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:16]


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def state_dir() -> Path:
    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def default_db_path(root: Path) -> Path:
    """`<data dir>/workspaces/<id>/brain.db` for a workspace root."""
    return data_dir() / "workspaces" / workspace_id(root) / "brain.db"


ENDPOINT_FILE = "mcp-endpoint.json"
"""A running server's endpoint file, in its workspace's state folder (`serving.statefiles`)."""


def workspace_state_path(workspace_id: str, name: str) -> Path:
    """`<state dir>/workspaces/<id>/<name>`, without creating anything (readers probe it)."""
    return state_dir() / "workspaces" / workspace_id / name
