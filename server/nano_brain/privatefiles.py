"""Files only this user may read: tokens, endpoint files, the trusted-config list.

They live in 0700 folders under the XDG state dir, as 0600 files. Every write is atomic (a
fresh temporary file, then a rename) so a reader never sees half a file; no open follows a
symlink, so a link planted in the folder cannot redirect a write or leak a read; every read is
bounded.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InvalidInputError
from .lazylog import LazyLogger

log = LazyLogger(__name__)  # on an agent hook's path: see lazylog

MAX_PRIVATE_FILE_BYTES = 64 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def private_dir(folder: Path) -> Path:
    """`folder`, created 0700 if missing; a symlink or another user's folder is refused."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise InvalidInputError(f"{folder} is not a directory (a symlink?); remove it")
    if info.st_uid != os.getuid():
        raise InvalidInputError(f"{folder} belongs to another user; remove it")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder


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


def read_private(path: Path, limit: int = MAX_PRIVATE_FILE_BYTES) -> str:
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


def _write_temp(path: Path, text: str) -> Path:
    import secrets  # only writers pay for it (a hook process reads)

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
