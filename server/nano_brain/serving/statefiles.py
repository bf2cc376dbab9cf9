"""The private files of a workspace's servers: the bearer token and the endpoint files.

They live in `<XDG state>/nano-brain/workspaces/<id>/`, a 0700 folder, as 0600 files. Every
write is atomic (a fresh temporary file, then a rename) so a reader never sees half a file;
no open follows a symlink, so a link planted in the folder cannot redirect a write or leak a
read; every read is bounded. `nano-brain serve`, the editor sidecar and `nano-brain ui` all
go through here.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, NamedTuple

from .. import paths
from ..errors import InvalidInputError
from ..privatefiles import (
    MAX_PRIVATE_FILE_BYTES,
    create_private_once,
    private_dir,
    read_private,
    write_private,
)

__all__ = [
    "MAX_STATE_FILE_BYTES",
    "Endpoint",
    "create_private_once",
    "endpoint_path",
    "is_running",
    "read_endpoint",
    "read_private",
    "remove_endpoint",
    "remove_own",
    "token_path",
    "workspace_state_dir",
    "write_endpoint",
    "write_private",
]

log = logging.getLogger(__name__)

MAX_STATE_FILE_BYTES = MAX_PRIVATE_FILE_BYTES


class Endpoint(NamedTuple):
    """Where a running HTTP server listens; also the content of the endpoint file."""

    url: str
    socket: str | None
    auth: bool
    token_file: str | None
    pid: int
    workspace: str


def workspace_state_dir(workspace_id: str) -> Path:
    """`<XDG state>/nano-brain/workspaces/<id>`, created 0700; a symlink there is refused."""
    return private_dir(paths.state_dir() / "workspaces" / workspace_id)


def token_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / "mcp-token"


def endpoint_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / paths.ENDPOINT_FILE


def write_endpoint(workspace_id: str, endpoint: Endpoint) -> Path:
    path = endpoint_path(workspace_id)
    write_private(path, json.dumps(endpoint._asdict()))
    return path


def read_endpoint(workspace_id: str) -> Endpoint | None:
    """The endpoint of this workspace's running server, if its process is still alive."""
    try:
        data = json.loads(read_private(endpoint_path(workspace_id)))
    except (OSError, ValueError, InvalidInputError):
        return None
    endpoint = _endpoint_of(data)
    if endpoint is None or not is_running(endpoint.pid):
        return None
    return endpoint


def is_running(pid: int) -> bool:
    """True while process ``pid`` (the writer of an endpoint file) is alive."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def remove_endpoint(workspace_id: str) -> None:
    """Remove the endpoint file if this process wrote it (a newer server may own it now)."""
    remove_own(endpoint_path(workspace_id))


def remove_own(path: Path) -> None:
    """Remove the endpoint file at ``path`` if this process wrote it (its ``pid`` is ours)."""
    try:
        data = json.loads(read_private(path))
    except (OSError, ValueError, InvalidInputError):
        return
    if isinstance(data, dict) and data.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def _endpoint_of(data: Any) -> Endpoint | None:
    """An Endpoint from parsed JSON, or None when any field is missing or mistyped."""
    if not isinstance(data, dict) or set(data) != set(Endpoint._fields):
        return None
    texts = ("url", "workspace")
    optional = ("socket", "token_file")
    if not all(isinstance(data[k], str) for k in texts):
        return None
    if not all(data[k] is None or isinstance(data[k], str) for k in optional):
        return None
    pid = data["pid"]
    if not isinstance(data["auth"], bool) or type(pid) is not int or not 0 < pid < 2**31:
        return None  # pid 0 or -1 would make the liveness check signal a process group
    return Endpoint(**data)
