"""Where nano-brain keeps its files: per-workspace stores under the XDG directories."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

APP_NAME = "nano-brain"


def workspace_root(path: str | Path | None) -> Path:
    """The resolved root directory of a workspace (default: the current directory)."""
    root = Path(path) if path is not None else Path.cwd()
    return root.expanduser().resolve()


def workspace_id(root: Path) -> str:
    """A short stable id for a workspace, derived from its resolved root path."""
    return hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:16]


def data_dir() -> Path:
    return _user_dir("data", "XDG_DATA_HOME", ".local/share")


def config_dir() -> Path:
    return _user_dir("config", "XDG_CONFIG_HOME", ".config")


def state_dir() -> Path:
    return _user_dir("state", "XDG_STATE_HOME", ".local/state")


def cache_dir() -> Path:
    return _user_dir("cache", "XDG_CACHE_HOME", ".cache")


def _user_dir(kind: str, variable: str, default: str) -> Path:
    """nano-brain's folder of this kind, as platformdirs names it. On Linux that is the XDG
    rule (the variable when it holds an absolute path, else the default under the home
    folder), spelled here
    because importing platformdirs (tempfile, shutil, random) takes a fifth of an agent
    hook's budget; elsewhere platformdirs decides."""
    if sys.platform.startswith("linux"):
        base = os.environ.get(variable, "").strip()
        if not os.path.isabs(base):  # the XDG spec: a relative path is invalid, ignored
            base = os.path.expanduser(f"~/{default}")
        return Path(base) / APP_NAME
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP_NAME, appauthor=False))


def default_db_path(root: Path) -> Path:
    """`<data dir>/workspaces/<id>/brain.db` for a workspace root."""
    return data_dir() / "workspaces" / workspace_id(root) / "brain.db"


ENDPOINT_FILE = "mcp-endpoint.json"
"""A running server's endpoint file, in its workspace's state folder (`serving.statefiles`)."""
HOOKS_PROFILE_FILE = "hooks-profile.json"
"""The hook settings kept for hook processes, in the workspace's state folder (`brief.profile`)."""


def workspace_state_path(workspace_id: str, name: str) -> Path:
    """`<state dir>/workspaces/<id>/<name>`, without creating anything (readers probe it)."""
    return state_dir() / "workspaces" / workspace_id / name
