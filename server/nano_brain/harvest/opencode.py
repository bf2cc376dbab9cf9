"""OpenCode sessions: the SQLite database `~/.local/share/opencode/opencode.db` (tables
`session`, `message`, `part`, JSON in their `data` columns) and the legacy JSON storage
(`storage/session/<project>/<id>.json`, `storage/message/<session>/<id>.json`,
`storage/part/<message>/<id>.json`).

The database is opened read-only (`mode=ro` URI) and never written. Columns are looked up
by name, so a newer schema with added columns or tables still reads; a session directory
missing from the `session` table is taken from the session's `data` JSON or the
`project.worktree`. A database that is locked or lacks the tables raises
`TranscriptError` (the caller retries on its next tick) instead of answering "no sessions".

Handled parts: `text` (synthetic text marked as injected context), `tool` (input, status,
error), message-level `error`. Skipped: `reasoning`, `step-start`/`step-finish`,
`snapshot`, `patch` (file lists duplicate the tool calls), `file` attachments, `agent`.
The legacy fixture in this repository is synthetic (layout only), so the legacy reader
is deliberately lenient about field names.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

from ._common import (
    TOOL_OUTPUT_LIMIT,
    json_object,
    log,
    make_tool_call,
    one_line,
    parse_time,
    read_outcome,
    short_error,
    span,
    str_or_none,
)
from ._files import (
    DEFAULT_LIMITS,
    SKIP_TOO_LONG,
    SKIP_UNREADABLE,
    SKIP_UNUSABLE,
    ReadLimits,
    TooLargeError,
    decode_json,
    is_regular,
    read_bounded,
    regular_files,
)
from .model import Message, Session, SessionSource, SourceInfo, TranscriptError, is_within

DEFAULT_BASE = Path("~/.local/share/opencode")
DB_NAME = "opencode.db"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,200}$")


# -- shared message/part folding ---------------------------------------------------------


class _Builder:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.model: str | None = None
        self.cwd: str | None = None

    def add(self, info: dict[str, Any], parts: list[dict[str, Any]], time: float | None) -> None:
        role = info.get("role")
        if role not in ("user", "assistant"):
            return
        times = json_object(info.get("time"))
        time = parse_time(times.get("created")) or time
        message = Message(role=role, time=time, id=str_or_none(info.get("id")))
        if isinstance(info.get("modelID"), str):
            self.model = info["modelID"]
        path = json_object(info.get("path"))
        if self.cwd is None and isinstance(path.get("cwd"), str):
            self.cwd = path["cwd"]
        texts: list[str] = []
        injected: list[str] = []
        tool_messages: list[Message] = []
        for part in parts:
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str):
                (injected if part.get("synthetic") else texts).append(part["text"])
            elif kind == "tool":
                state = json_object(part.get("state"))
                call = make_tool_call(
                    str(part.get("tool") or "tool"), state.get("input"), part.get("callID")
                )
                if state.get("status") == "error":
                    call.error = short_error(state.get("error") or "error")
                message.tool_calls.append(call)
                output = state.get("output")
                if output is not None:
                    text = output if isinstance(output, str) else json.dumps(output, sort_keys=True)
                    tool = Message(
                        role="tool",
                        text=text[:TOOL_OUTPUT_LIMIT],
                        time=time,
                        tool_call_id=call.call_id,
                    )
                    if call.error:
                        tool.errors.append(call.error)
                    tool_messages.append(tool)
        message.text = "\n\n".join(t.strip() for t in texts if t.strip())
        error = info.get("error")
        if isinstance(error, dict):
            data = json_object(error.get("data"))
            message.errors.append(short_error(data.get("message") or error.get("name") or error))
        for text in injected:
            if text.strip():
                self.messages.append(Message(role=role, text=text.strip(), time=time, kind="meta"))
        if message.text or message.tool_calls or message.errors:
            self.messages.append(message)
        self.messages.extend(tool_messages)


def _session(
    builder: _Builder,
    session_id: str,
    info: dict[str, Any],
    cwd: str | None,
    source: SourceInfo,
    skipped: Counter[str],
) -> Session:
    started, ended = span([m.time for m in builder.messages])
    times = json_object(info.get("time"))
    title = info.get("title") if isinstance(info.get("title"), str) and info.get("title") else None
    return Session(
        agent="opencode",
        session_id=session_id,
        messages=builder.messages,
        cwd=cwd or builder.cwd,
        title=title,
        started=parse_time(times.get("created")) or started,
        ended=ended or parse_time(times.get("updated")),
        model=builder.model,
        **read_outcome(source, skipped),
    )


# -- legacy JSON storage -----------------------------------------------------------------


class _JsonFiles:
    """Loads JSON files (each bounded by `max_line_bytes`), hashing their bytes and counting
    the ones that cannot be used, by reason."""

    def __init__(self, limits: ReadLimits) -> None:
        self.limits = limits
        self.hash = hashlib.sha256()
        self.paths: list[str] = []
        self.size = 0
        self.mtime = 0.0
        self.skipped: Counter[str] = Counter()

    def load(self, path: Path) -> dict[str, Any] | None:
        try:
            raw, stat = read_bounded(path, self.limits.max_line_bytes)
        except TranscriptError as exc:
            self.skipped[SKIP_TOO_LONG if isinstance(exc, TooLargeError) else SKIP_UNREADABLE] += 1
            log.info("skipping OpenCode file: %s", exc)
            return None
        self.paths.append(str(path))
        self.size += stat.st_size
        self.mtime = max(self.mtime, stat.st_mtime)
        self.hash.update(str(path).encode() + b"\0" + raw)
        data, problem = decode_json(raw)
        if problem is None and not isinstance(data, dict):
            problem = SKIP_UNUSABLE
        if problem is not None:
            self.skipped[problem] += 1
            log.info("skipping OpenCode file %s: %s", path, problem)
            return None
        return cast("dict[str, Any]", data)  # a JSON object (checked above)

    def source(self) -> SourceInfo:
        return SourceInfo(
            paths=self.paths, version=self.hash.hexdigest(), size=self.size, mtime=self.mtime
        )


def _storage(base: Path) -> Path:
    return base / "storage" if (base / "storage").is_dir() else base


def _ordered_files(folder: Path, listed: Any) -> list[Path]:
    """Files of a folder: those a parent lists, in its order, then the rest by name."""
    files = regular_files(sorted(folder.glob("*.json")))
    order = [x for x in listed if isinstance(x, str)] if isinstance(listed, list) else []
    rank = {name: i for i, name in enumerate(order)}
    return sorted(files, key=lambda p: (rank.get(p.stem, len(rank)), p.name))


def _session_id(info: dict[str, Any], path: Path) -> str:
    """The session id, which names folders: one that is not a plain name is not used."""
    sid = info.get("id")
    return sid if isinstance(sid, str) and _SAFE_NAME.match(sid) and ".." not in sid else path.stem


def discover_legacy(
    root: str | Path, base: str | Path | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> list[SessionSource]:
    storage = _storage(Path(base or DEFAULT_BASE).expanduser())
    found: list[SessionSource] = []
    for path in regular_files(sorted((storage / "session").glob("*/*.json"))):
        try:
            raw, _ = read_bounded(path, limits.max_line_bytes)
        except TranscriptError as exc:
            log.info("skipping OpenCode session file: %s", exc)
            continue
        info, _problem = decode_json(raw)
        cwd = info.get("directory") if isinstance(info, dict) else None
        if isinstance(info, dict) and isinstance(cwd, str) and is_within(cwd, root):
            sid = _session_id(info, path)
            found.append(SessionSource("opencode", (str(path),), session_id=sid, cwd=cwd))
    return found


def parse_legacy(
    session_file: str | Path | SessionSource, limits: ReadLimits = DEFAULT_LIMITS
) -> Session:
    """One session from the legacy JSON storage, given its `storage/session/*/<id>.json`."""
    path = (
        Path(session_file.paths[0])
        if isinstance(session_file, SessionSource)
        else Path(session_file)
    )
    files = _JsonFiles(limits)
    info = files.load(path)
    if info is None:
        raise TranscriptError(
            f"cannot read OpenCode session {path} ({', '.join(sorted(files.skipped))})"
        )
    storage = path.parents[2]
    session_id = _session_id(info, path)
    builder = _Builder()
    loaded: list[tuple[float, str, dict[str, Any], list[dict[str, Any]]]] = []
    for message_path in _ordered_files(storage / "message" / session_id, info.get("messages")):
        message = files.load(message_path)
        if message is None:
            continue
        parts = [
            part
            for part_path in _ordered_files(
                storage / "part" / message_path.stem, message.get("parts")
            )
            if (part := files.load(part_path)) is not None
        ]
        times = json_object(message.get("time"))
        created = parse_time(times.get("created")) or 0.0
        loaded.append((created, message_path.name, message, parts))
    for created, _, message, parts in sorted(loaded, key=lambda item: (item[0], item[1])):
        _fold(builder, message, parts, created or None, files.skipped)
    cwd = info.get("directory") if isinstance(info.get("directory"), str) else None
    return _session(builder, session_id, info, cwd, files.source(), files.skipped)


def _fold(
    builder: _Builder,
    info: dict[str, Any],
    parts: list[dict[str, Any]],
    time: float | None,
    skipped: Counter[str],
) -> None:
    """`builder.add`; a message whose shape trips the parser costs that message only."""
    try:
        builder.add(info, parts, time)
    except Exception as exc:  # records have any shape: never let one cost the session
        log.debug("OpenCode message the parser cannot use: %s", exc.__class__.__name__)
        skipped[SKIP_UNUSABLE] += 1


# -- SQLite database -----------------------------------------------------------------------


def _connect(db: Path, timeout: float) -> sqlite3.Connection:
    # SQLite opens the path itself, without O_NONBLOCK: only a regular file is handed over
    # (a FIFO would block the open forever).
    if not is_regular(db):
        raise TranscriptError(f"OpenCode database {db} does not exist or is not a regular file")
    uri = f"file:{quote(str(db))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=timeout)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        raise TranscriptError(f"cannot open OpenCode database {db}: {exc}") from exc
    conn.row_factory = sqlite3.Row
    return conn


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _json(value: Any) -> dict[str, Any]:
    if not isinstance(value, str | bytes):
        return {}
    data, _problem = decode_json(value)
    return data if isinstance(data, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _bounded(column: str, limits: ReadLimits) -> str:
    """`column` (a JSON text) as `data`, NULL when longer than a record may be, plus its
    length in bytes as `size`; the long value never reaches Python."""
    cap = int(limits.max_line_bytes)
    size = f"length(CAST({column} AS BLOB))"
    return f"CASE WHEN {size} > {cap} THEN NULL ELSE {column} END AS data, {size} AS size"


def _record(row: Any, limits: ReadLimits, skipped: Counter[str]) -> dict[str, Any]:
    """The JSON object in a row's `data`; an unusable one is counted (and is empty)."""
    if row["data"] is None and (row["size"] or 0) > limits.max_line_bytes:
        skipped[SKIP_TOO_LONG] += 1
        return {}
    data = _json(row["data"])
    if not data:
        skipped[SKIP_UNUSABLE] += 1
    return data


def _hashed(row: Any) -> bytes:
    """What of a row goes into the session's version (an over-long value: its length)."""
    if row["data"] is None and row["size"] is not None:
        return f"<{row['size']} bytes>".encode()
    return str(row["data"]).encode()


def _session_rows(
    conn: sqlite3.Connection, limits: ReadLimits = DEFAULT_LIMITS
) -> list[dict[str, Any]]:
    """Every session with id, directory, title and times, whatever the schema version."""
    columns = _columns(conn, "session")
    if "id" not in columns:
        raise TranscriptError("OpenCode database has no usable session table")
    wanted: list[str] = [
        c
        for c in ("id", "directory", "title", "time_created", "time_updated", "project_id")
        if c in columns
    ]
    if "data" in columns:
        wanted.append(_bounded("data", limits))
    rows = [dict(r) for r in conn.execute(f"SELECT {', '.join(wanted)} FROM session ORDER BY id")]
    worktrees: dict[str, str] = {}
    if "project_id" in columns and "worktree" in _columns(conn, "project"):
        worktrees = {r[0]: r[1] for r in conn.execute("SELECT id, worktree FROM project")}
    for row in rows:
        data = _json(row.get("data"))
        location = json_object(data.get("location"))
        row["directory"] = (
            _text(row.get("directory"))
            or _text(data.get("directory"))
            or _text(location.get("directory"))
            or _text(worktrees.get(row.get("project_id") or ""))
        )
        row["title"] = _text(row.get("title")) or _text(data.get("title"))
    return rows


@contextmanager
def _guard(action: str, db: Path) -> Iterator[None]:
    """Turns sqlite errors (locked, missing table) into TranscriptError with context."""
    try:
        yield
    except sqlite3.Error as exc:
        raise TranscriptError(f"cannot {action} OpenCode database {db}: {exc}") from exc


def discover_db(
    root: str | Path,
    base: str | Path | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
    *,
    timeout: float = 1.0,
) -> list[SessionSource]:
    """Sessions in the database whose directory is `root` or below it."""
    db = Path(base or DEFAULT_BASE).expanduser()
    db = db / DB_NAME if db.is_dir() else db
    if not is_regular(db):
        return []
    conn = _connect(db, timeout)
    try:
        with _guard("list sessions in", db):
            rows = _session_rows(conn, limits)
    finally:
        conn.close()
    return [
        SessionSource(
            "opencode",
            (str(db),),
            session_id=str(row["id"]),
            cwd=row["directory"],
            updated=parse_time(row.get("time_updated")),
        )
        for row in rows
        if is_within(row.get("directory"), root)
    ]


def parse_db(
    db_path: str | Path,
    session_id: str,
    *,
    timeout: float = 1.0,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> Session:
    """One session from the database, read in a single read-only transaction."""
    db = Path(db_path).expanduser()
    conn = _connect(db, timeout)
    try:
        with _guard("read", db):
            conn.execute("BEGIN")
            rows = _session_rows(conn, limits)
            row = next((r for r in rows if str(r["id"]) == session_id), None)
            if row is None:
                raise TranscriptError(f"OpenCode session {session_id} not found in {db}")
            mcols = _columns(conn, "message")
            order = "time_created, id" if "time_created" in mcols else "id"
            messages = conn.execute(
                f"SELECT id, {_bounded('data', limits)}"
                f"{', time_created' if 'time_created' in mcols else ''} "
                f"FROM message WHERE session_id = ? ORDER BY {order}",
                (session_id,),
            ).fetchall()
            pcols = _columns(conn, "part")
            if "session_id" in pcols:
                parts = conn.execute(
                    f"SELECT id, message_id, {_bounded('data', limits)} "
                    "FROM part WHERE session_id = ? ORDER BY id",
                    (session_id,),
                ).fetchall()
            else:
                parts = conn.execute(
                    f"SELECT p.id, p.message_id, {_bounded('p.data', limits)} FROM part p "
                    "JOIN message m ON m.id = p.message_id WHERE m.session_id = ? ORDER BY p.id",
                    (session_id,),
                ).fetchall()
            conn.execute("COMMIT")
    finally:
        conn.close()
    digest = hashlib.sha256(f"{db}\0{session_id}\0{row.get('time_updated')}".encode())
    skipped: Counter[str] = Counter()
    by_message: dict[str, list[dict[str, Any]]] = {}
    for part in parts:
        digest.update(_hashed(part))
        data = _record(part, limits, skipped)
        if data:
            by_message.setdefault(str(part["message_id"]), []).append(data)
    builder = _Builder()
    for message in messages:
        digest.update(_hashed(message))
        info = _record(message, limits, skipped)
        if not info:
            continue
        info.setdefault("id", message["id"])
        created = parse_time(message["time_created"]) if "time_created" in message.keys() else None
        _fold(builder, info, by_message.get(str(message["id"]), []), created, skipped)
    info = _json(row.get("data"))
    info.setdefault("title", row.get("title"))
    info.setdefault(
        "time", {"created": row.get("time_created"), "updated": row.get("time_updated")}
    )
    try:
        stat = db.stat()
    except OSError as exc:
        raise TranscriptError(f"OpenCode database {db} is gone: {exc.strerror}") from exc
    source = SourceInfo(
        paths=[str(db)], version=digest.hexdigest(), size=stat.st_size, mtime=stat.st_mtime
    )
    log.debug("read OpenCode session %s (%s)", session_id, one_line(str(row.get("title")), 60))
    return _session(builder, session_id, info, row.get("directory"), source, skipped)


def discover(
    root: str | Path, base: str | Path | None = None, limits: ReadLimits = DEFAULT_LIMITS
) -> list[SessionSource]:
    """Database sessions and legacy-storage sessions (a session in both is listed once)."""
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    found = discover_db(root, base_dir, limits)
    seen = {s.session_id for s in found}
    found.extend(s for s in discover_legacy(root, base_dir, limits) if s.session_id not in seen)
    return found


def parse(
    source: SessionSource | str | Path,
    session_id: str | None = None,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> Session:
    """A session from a discovered source, a database plus id, or a legacy session file."""
    if isinstance(source, SessionSource):
        session_id = source.session_id
        path = Path(source.paths[0])
    else:
        path = Path(source)
    if path.suffix == ".db":
        if not session_id:
            raise TranscriptError("an OpenCode database source needs a session id")
        return parse_db(path, session_id, limits=limits)
    return parse_legacy(path, limits)
