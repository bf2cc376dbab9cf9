"""The store file on disk: where it may be created, who may read it, whether this process may
write it, and how its damage is recognised and remembered.

- Folders are created only inside nano-brain's own data folder, private (0700); a store path
  the user chose must be in a folder that exists (a read such as ``status`` creates nothing),
  and a folder nano-brain did not make is never chmodded.
- What is at the store path is checked before anything touches it: only a regular file that
  starts with SQLite's header is opened (or made private, or given -wal/-shm or a damage
  marker). Anything else (a web page, a FIFO, a device, a folder, a symbolic link, a -wal that
  is one of these) is refused and left exactly as it was: a path in a config may point
  anywhere, and the user's own files must not be chmodded, truncated or waited on.
- A new store appears whole: it is made private (0600) under a temporary name with its SQLite
  header written, then linked into place, so no process ever sees an empty ``brain.db``. SQLite
  gives the ``-wal``/``-shm`` files the store's own mode, so they are private too.
- A store whose folder or file this process may not write is opened read-only. SQLite reads a
  WAL database through its ``-shm`` file: when ``-wal``/``-shm`` exist (a writer has it open, or
  left them) a ``mode=ro`` connection uses them; when they do not and cannot be created, the
  file is opened ``immutable`` (a writer would have created them, so none is writing).
- Damage is recognised from SQLite's result codes (CORRUPT, NOTADB; for codes a damaged file
  may also cause, ``PRAGMA quick_check`` decides) and remembered in a ``.damaged`` file beside
  the store, so that the next process refuses the store at once instead of writing into it.
  A later open that finds the file sound again (restored from a backup) forgets the damage.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

from ... import paths
from ...errors import StoreCorruptError, StoreError, StoreReadOnlyError
from ...lazylog import LazyLogger
from ._driver import sqlite_module

log = LazyLogger(__name__)  # on an agent hook's path: see lazylog

SIDE_SUFFIXES = ("-wal", "-shm")
#: Page size of a new store (SQLite's default is 4096). A store is mostly symbol and note text
#: in FTS5 and b-trees; with 8 KB pages a cold index of the standard library made half the
#: read and write calls (WAL frames and checkpoints are one call per page) and its process
#: took 6% less CPU (10-20% with the parse left out), in a 4% smaller file. 16 KB wrote three
#: times the WAL bytes. A store keeps the size it was created with (a WAL file's cannot change
#: without a VACUUM).
PAGE_SIZE = 8192
#: The first 16 bytes of every SQLite database file (fileformat.html, "The Database Header").
SQLITE_HEADER = b"SQLite format 3\x00"
#: The first 4 bytes of a write-ahead log (big-endian magic, either checksum byte order).
_WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
# Files beside the store are opened never through a link, nor to wait for a FIFO's writer.
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
# The store files this process has read the header of, by (device, inode). A file is read
# before SQLite first opens it here, never after: closing a descriptor of a file releases all
# of this process's POSIX locks on it, SQLite's own (another connection's) among them.
_VERIFIED: set[tuple[int, int]] = set()
_VERIFIED_LOCK = threading.Lock()
# SQLite primary result codes (the low byte of an extended code).
BUSY, LOCKED, READONLY, CORRUPT, NOTADB = 5, 6, 8, 11, 26
#: Codes that a damaged file can cause besides CORRUPT and NOTADB: ERROR, INTERNAL, IOERR and
#: FORMAT, and the constraints a garbled page breaks (FOREIGNKEY, NOTNULL, PRIMARYKEY, UNIQUE:
#: seen when an overwritten page hid a row just written). When one comes, ``PRAGMA
#: quick_check`` tells damage from any other failure.
_SUSPECT_PRIMARY = frozenset({1, 2, 10, 24})
_SUSPECT_EXTENDED = frozenset({787, 1299, 1555, 2067})
_CONSTRAINT = 19
# Without extended result codes (sqlean reports primary ones), SQLite's own messages tell these
# constraints from the RAISE() of nano-brain's guard triggers.
_SUSPECT_CONSTRAINTS = ("FOREIGN KEY", "NOT NULL", "UNIQUE")


def primary_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_suspect(exc: BaseException) -> bool:
    """An error a damaged file may cause (among other causes)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(code, int):
        return False
    if code == _CONSTRAINT:
        return any(f"{kind} constraint failed" in str(exc) for kind in _SUSPECT_CONSTRAINTS)
    return code & 0xFF in _SUSPECT_PRIMARY or code in _SUSPECT_EXTENDED


def is_corruption(exc: BaseException) -> bool:
    code = primary_code(exc)
    if code is not None:
        return code in (CORRUPT, NOTADB)
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def damaged_message(path: Path, detail: str) -> str:
    return (
        f"store {path} is damaged ({detail}); nano-brain will not write to it. Recover what is "
        f"left with `sqlite3 {path} .recover > recovered.sql` (load that into a new file with "
        "`sqlite3 new.db < recovered.sql` and put it in place), or restore a backup"
    )


def not_a_database_message(path: Path) -> str:
    return (
        f"cannot open the store {path}: it is not an SQLite database (another program's file, "
        "or a damaged store); nano-brain left it unchanged. Check --db or storage.db_path; if "
        "it was a nano-brain store, restore a backup"
    )


# -- before opening ----------------------------------------------------------------------------


def prepare(path: Path) -> None:
    """Make `path` ready to open: its folder there, the file absent-then-created or an SQLite
    database (checked before anything touches it), its -wal/-shm regular files if present."""
    _ensure_folder(path.parent)
    if _lstat(path) is None:
        _create(path)
    # checked after a create too: another process may have put something else there first
    check_is_database(path)
    for suffix in SIDE_SUFFIXES:
        side = _side(path, suffix)
        info = _lstat(side)
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise StoreError(
                f"store {path}: {side.name} beside it is not a regular file ({_kind(info)}); "
                "nano-brain left it unchanged. Remove it if it is not yours"
            )


def check_is_database(path: Path) -> None:
    """Refuse, touching nothing, a store path that is not a regular file starting with SQLite's
    header (an empty file passes only when its write-ahead log holds the database)."""
    info = _lstat(path)
    if info is None:
        raise StoreError(f"the store {path} does not exist")
    if stat.S_ISLNK(info.st_mode):
        raise StoreError(
            f"store path {path} is a symbolic link (to {_link_target(path)}): nano-brain opens "
            "only a regular file, so it is left unchanged; set --db or storage.db_path to the "
            "file itself"
        )
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(
            f"store path {path} is not a file ({_kind(info)}); nano-brain left it "
            "unchanged. Set --db or storage.db_path to a store file"
        )
    if (info.st_dev, info.st_ino) in _VERIFIED:
        return  # read once already: reading it again would drop this process's locks on it
    if info.st_size == 0:
        if _starts_with(_side(path, "-wal"), _WAL_MAGIC):
            return  # the database is all in its log so far: SQLite reads it from there
        raise StoreCorruptError(
            f"store {path} is empty (0 bytes), so it is not a nano-brain store: restore a "
            "backup, or delete it to start afresh"
        )
    if not _starts_with(path, (SQLITE_HEADER,)):
        raise StoreCorruptError(not_a_database_message(path))
    with _VERIFIED_LOCK:
        _VERIFIED.add((info.st_dev, info.st_ino))


def read_only_reason(path: Path) -> str | None:
    """Why this process may not write the store, or None when it may."""
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its folder {folder} is not writable"
    if not os.access(path, os.W_OK):
        return "the file is not writable"
    for suffix in SIDE_SUFFIXES:
        side = _side(path, suffix)
        if side.exists() and not os.access(side, os.W_OK):
            return f"{side.name} is not writable"
    return None


def read_only_uri(path: Path) -> str:
    """An SQLite URI that reads the store without writing anything beside it."""
    uri = path.absolute().as_uri() + "?mode=ro"
    wal, shm = _side(path, "-wal"), _side(path, "-shm")
    if shm.exists() or os.access(path.parent, os.W_OK | os.X_OK):
        return uri
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreReadOnlyError(
            f"store {path} is read-only and its write-ahead log {wal.name} cannot be read "
            f"without {shm.name}: open it once where it can be written"
        )
    return uri + "&immutable=1"


def make_private(path: Path) -> None:
    """The store and its -wal/-shm to 0600, and nano-brain's own folders above it to 0700 (a
    folder outside nano-brain's data folder is the user's, and keeps its mode)."""
    for file in (path, *(_side(path, s) for s in SIDE_SUFFIXES)):
        _restrict_file(file, 0o600)
    for folder in _own_folders(path.parent):
        _restrict(folder, 0o700)


# -- damage ---------------------------------------------------------------------------------


def marker(path: Path) -> Path:
    return Path(f"{path}.damaged")


def remember_damage(path: Path, detail: str) -> None:
    text = f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {detail}\n".encode()
    try:
        # never through a link, never into a FIFO or another kind of file
        fd = os.open(marker(path), os.O_WRONLY | os.O_CREAT | _NO_FOLLOW, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{marker(path).name} is not a regular file")
            os.ftruncate(fd, 0)
            os.write(fd, text)
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("cannot record the damage of %s: %s", path, exc)


def check_remembered_damage(path: Path) -> None:
    """Refuse a store found damaged before, unless it is sound now (then forget the damage)."""
    mark = marker(path)
    info = _lstat(mark)
    if info is None or not stat.S_ISREG(info.st_mode):
        return  # none, or not one nano-brain wrote (see remember_damage)
    try:
        detail = _peek(mark, 500).decode("utf-8", "replace").strip().partition(" ")[2]
    except OSError:
        detail = ""
    sqlite = sqlite_module()
    try:
        conn = sqlite.connect(read_only_uri(path), uri=True)
        try:
            sound = conn.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok"
        finally:
            conn.close()
    except sqlite.DatabaseError as exc:
        sound, detail = False, detail or str(exc)
    if not sound:
        raise StoreCorruptError(damaged_message(path, detail or "found by an earlier check"))
    log.info("store %s passes quick_check again; forgetting its recorded damage", path)
    try:
        mark.unlink()
    except OSError as exc:
        log.warning("cannot remove %s: %s", mark, exc)


# -- helpers ----------------------------------------------------------------------------------


def _side(path: Path, suffix: str) -> Path:
    return Path(f"{path}{suffix}")


def _lstat(path: Path) -> os.stat_result | None:
    """The path's own status (a link's, not its target's), or None when nothing is there."""
    try:
        return path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot look at the store path {path}: {exc}") from exc


def _peek(path: Path, size: int) -> bytes:
    """Up to `size` first bytes of a regular file; b'' for anything else (a FIFO, a device, a
    folder). OSError when it cannot be opened (missing, a link, unreadable)."""
    fd = os.open(path, os.O_RDONLY | _NO_FOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    finally:
        os.close(fd)


def _starts_with(path: Path, prefixes: tuple[bytes, ...]) -> bool:
    try:
        head = _peek(path, max(len(p) for p in prefixes))
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(f"cannot read the store file {path}: {exc.strerror or exc}") from exc
    return any(head.startswith(p) for p in prefixes)


def _kind(info: os.stat_result) -> str:
    mode = info.st_mode
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((name for test, name in kinds if test(mode)), "an unknown kind of file")


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _ensure_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"cannot create the store folder {folder}: a file is in the way")
    if folder.is_dir():
        return
    own = _own_folders(folder)
    if not own:
        raise StoreError(
            f"the store folder {folder} does not exist (create it, or choose another store path)"
        )
    try:
        own[-1].parent.mkdir(parents=True, exist_ok=True)  # e.g. ~/.local/share: not ours
        for missing in reversed(own):
            try:
                missing.mkdir(mode=0o700)
            except FileExistsError:
                # another store opening at the same moment made it: fine if it is a folder
                if not missing.is_dir():
                    raise
                continue
            missing.chmod(0o700)  # mkdir's mode is masked by the umask
    except OSError as exc:
        raise StoreError(f"cannot create the store folder {folder}: {exc}") from exc


def _own_folders(folder: Path) -> list[Path]:
    """`folder` and its parents up to nano-brain's data folder, when it is inside it."""
    top = paths.data_dir().absolute()
    chain = [folder.absolute()]
    while chain[-1] != top:
        if chain[-1].parent == chain[-1]:
            return []
        chain.append(chain[-1].parent)
    return chain


def _create(path: Path) -> None:
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreReadOnlyError(f"cannot create the store {path}: its folder is not writable")
    import secrets  # only a new store needs it, not a reader

    temporary = folder / f".{path.name}.{secrets.token_hex(4)}.new"
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        conn = sqlite_module().connect(str(temporary))
        try:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # before the first write
            conn.execute("PRAGMA journal_mode = WAL")  # writes the header: never an empty file
        finally:
            conn.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process created it first: use theirs
        except OSError:  # no hard links on this file system
            if not path.exists():
                os.replace(temporary, path)
    except OSError as exc:
        raise StoreError(f"cannot create the store {path}: {exc}") from exc
    finally:
        for leftover in (temporary, *(_side(temporary, s) for s in SIDE_SUFFIXES)):
            leftover.unlink(missing_ok=True)


def _restrict_file(path: Path, mode: int) -> None:
    """As `_restrict`, for a regular file only (never through a link). By path, not through a
    descriptor: closing any descriptor of a file drops every POSIX lock this process holds on
    it, SQLite's included (its other connections here would lose their locks)."""
    if os.name != "posix":
        return
    try:
        info = path.lstat()
        wanted = stat.S_IMODE(info.st_mode) & mode
        if (
            stat.S_ISREG(info.st_mode)
            and info.st_uid == os.geteuid()
            and wanted != stat.S_IMODE(info.st_mode)
        ):
            os.chmod(path, wanted)
    except FileNotFoundError:
        return
    except OSError as exc:
        log.warning("cannot make %s private: %s", path, exc)


def _restrict(path: Path, mode: int) -> None:
    if os.name != "posix":
        return  # modes and owners are POSIX; elsewhere the user's profile folder is private
    try:
        info = path.stat()
        if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & ~mode:
            path.chmod(stat.S_IMODE(info.st_mode) & mode)
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("cannot make %s private: %s", path, exc)
