"""The private files of a workspace's MCP servers: the bearer token and the endpoint file.

Both live in `<XDG state>/nano-brain/workspaces/<id>/`, a 0700 folder, as 0600 files. Every
write is atomic (a fresh temporary file, then a rename) so a reader never sees half a file;
no open follows a symlink, so a link planted in the folder cannot redirect a write or leak a
read; every read is bounded. `nano-brain serve` and the editor sidecar both go through here.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import stat
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from .. import paths
from ..errors import InvalidInputError

log = logging.getLogger(__name__)

MAX_STATE_FILE_BYTES = 64 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a running HTTP server listens; also the content of the endpoint file."""

    url: str
    socket: str | None
    auth: bool
    token_file: str | None
    pid: int
    workspace: str


def workspace_state_dir(workspace_id: str) -> Path:
    """`<XDG state>/nano-brain/workspaces/<id>`, created 0700; a symlink there is refused."""
    folder = paths.state_dir() / "workspaces" / workspace_id
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise InvalidInputError(f"{folder} is not a directory (a symlink?); remove it")
    if info.st_uid != os.getuid():
        raise InvalidInputError(f"{folder} belongs to another user; remove it")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder


def token_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / "mcp-token"


def endpoint_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / "mcp-endpoint.json"


def write_private(path: Path, text: str) -> None:
    """Replace `path` atomically with a 0600 file holding `text`."""
    tmp = _write_temp(path, text)
    try:
        os.replace(tmp, path)  # replaces a symlink itself, never its target
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def create_private_once(path: Path, text: str) -> bool:
    """Create `path` (0600, complete from its first instant) unless it exists; True if made."""
    tmp = _write_temp(path, text)
    try:
        os.link(tmp, path, follow_symlinks=False)
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True


def read_private(path: Path, limit: int = MAX_STATE_FILE_BYTES) -> str:
    """The text of a private file: a regular file of ours, not a symlink, at most `limit`
    bytes. A file readable by others is made 0600 (with a warning)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise InvalidInputError(f"{path} is not a regular file of this user")
        if stat.S_IMODE(info.st_mode) & 0o077:
            log.warning("%s was readable by others; fixing its mode to 0600", path)
            os.fchmod(fd, 0o600)
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InvalidInputError(f"{path} is larger than {limit} bytes; delete it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path} is not UTF-8 text; delete it") from None


def write_endpoint(workspace_id: str, endpoint: Endpoint) -> Path:
    path = endpoint_path(workspace_id)
    write_private(path, json.dumps(asdict(endpoint)))
    return path


def read_endpoint(workspace_id: str) -> Endpoint | None:
    """The endpoint of this workspace's running server, if its process is still alive."""
    try:
        data = json.loads(read_private(endpoint_path(workspace_id)))
    except (OSError, ValueError, InvalidInputError):
        return None
    endpoint = _endpoint_of(data)
    if endpoint is None:
        return None
    try:
        os.kill(endpoint.pid, 0)
    except OSError:
        return None
    return endpoint


def remove_endpoint(workspace_id: str) -> None:
    """Remove the endpoint file if this process wrote it (a newer server may own it now)."""
    path = endpoint_path(workspace_id)
    try:
        data = json.loads(read_private(path))
    except (OSError, ValueError, InvalidInputError):
        return
    if isinstance(data, dict) and data.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def _endpoint_of(data: Any) -> Endpoint | None:
    """An Endpoint from parsed JSON, or None when any field is missing or mistyped."""
    if not isinstance(data, dict) or set(data) != {f.name for f in fields(Endpoint)}:
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


def _write_temp(path: Path, text: str) -> Path:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp
