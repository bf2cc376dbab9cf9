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
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ._common import log, make_tool_call, one_line, parse_time, short_error, span
from .model import Message, Session, SessionSource, SourceInfo, TranscriptError, is_within

DEFAULT_BASE = Path("~/.local/share/opencode")
DB_NAME = "opencode.db"
_TOOL_OUTPUT_LIMIT = 2000


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
        times = info.get("time") if isinstance(info.get("time"), dict) else {}
        time = parse_time(times.get("created")) or time
        message = Message(role=role, time=time, id=info.get("id"))
        if isinstance(info.get("modelID"), str):
            self.model = info["modelID"]
        path = info.get("path") if isinstance(info.get("path"), dict) else {}
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
                state = part.get("state") if isinstance(part.get("state"), dict) else {}
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
                        text=text[:_TOOL_OUTPUT_LIMIT],
                        time=time,
                        tool_call_id=call.call_id,
                    )
                    if call.error:
                        tool.errors.append(call.error)
                    tool_messages.append(tool)
        message.text = "\n\n".join(t.strip() for t in texts if t.strip())
        error = info.get("error")
        if isinstance(error, dict):
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
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
    warnings: int,
) -> Session:
    started, ended = span([m.time for m in builder.messages])
    times = info.get("time") if isinstance(info.get("time"), dict) else {}
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
        source=source,
        warnings=warnings,
    )


# -- legacy JSON storage -----------------------------------------------------------------


class _JsonFiles:
    """Loads JSON files, hashing their bytes and counting the unreadable ones."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.paths: list[str] = []
        self.size = 0
        self.mtime = 0.0
        self.warnings = 0

    def load(self, path: Path) -> dict[str, Any] | None:
        try:
            raw = path.read_bytes()
            stat = path.stat()
        except OSError:
            self.warnings += 1
            return None
        self.paths.append(str(path))
        self.size += stat.st_size
        self.mtime = max(self.mtime, stat.st_mtime)
        self.hash.update(str(path).encode() + b"\0" + raw)
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict):
            self.warnings += 1
            log.debug("skipping malformed OpenCode file %s", path)
            return None
        return data

    def source(self) -> SourceInfo:
        return SourceInfo(
            paths=self.paths, version=self.hash.hexdigest(), size=self.size, mtime=self.mtime
        )


def _storage(base: Path) -> Path:
    return base / "storage" if (base / "storage").is_dir() else base


def _ordered_files(folder: Path, listed: Any) -> list[Path]:
    """Files of a folder: those a parent lists, in its order, then the rest by name."""
    files = sorted(folder.glob("*.json"))
    order = [str(x) for x in listed] if isinstance(listed, list) else []
    rank = {name: i for i, name in enumerate(order)}
    return sorted(files, key=lambda p: (rank.get(p.stem, len(rank)), p.name))


def discover_legacy(root: str | Path, base: str | Path | None = None) -> list[SessionSource]:
    storage = _storage(Path(base or DEFAULT_BASE).expanduser())
    found: list[SessionSource] = []
    for path in sorted((storage / "session").glob("*/*.json")):
        try:
            info = json.loads(path.read_bytes())
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        cwd = info.get("directory") if isinstance(info, dict) else None
        if isinstance(cwd, str) and is_within(cwd, root):
            sid = str(info.get("id") or path.stem)
            found.append(SessionSource("opencode", (str(path),), session_id=sid, cwd=cwd))
    return found


def parse_legacy(session_file: str | Path | SessionSource) -> Session:
    """One session from the legacy JSON storage, given its `storage/session/*/<id>.json`."""
    path = (
        Path(session_file.paths[0])
        if isinstance(session_file, SessionSource)
        else Path(session_file)
    )
    files = _JsonFiles()
    info = files.load(path)
    if info is None:
        raise TranscriptError(f"cannot read OpenCode session {path}")
    storage = path.parents[2]
    session_id = str(info.get("id") or path.stem)
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
        times = message.get("time") if isinstance(message.get("time"), dict) else {}
        created = parse_time(times.get("created")) or 0.0
        loaded.append((created, message_path.name, message, parts))
    for created, _, message, parts in sorted(loaded, key=lambda item: (item[0], item[1])):
        builder.add(message, parts, created or None)
    cwd = info.get("directory") if isinstance(info.get("directory"), str) else None
    return _session(builder, session_id, info, cwd, files.source(), files.warnings)


# -- SQLite database -----------------------------------------------------------------------


def _connect(db: Path, timeout: float) -> sqlite3.Connection:
    if not db.is_file():
        raise TranscriptError(f"OpenCode database {db} does not exist")
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
    try:
        data = json.loads(value)
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _session_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every session with id, directory, title and times, whatever the schema version."""
    columns = _columns(conn, "session")
    if "id" not in columns:
        raise TranscriptError("OpenCode database has no usable session table")
    wanted = [
        c
        for c in ("id", "directory", "title", "time_created", "time_updated", "data", "project_id")
        if c in columns
    ]
    rows = [dict(r) for r in conn.execute(f"SELECT {', '.join(wanted)} FROM session ORDER BY id")]
    worktrees: dict[str, str] = {}
    if "project_id" in columns and "worktree" in _columns(conn, "project"):
        worktrees = {r[0]: r[1] for r in conn.execute("SELECT id, worktree FROM project")}
    for row in rows:
        data = _json(row.get("data"))
        location = data.get("location") if isinstance(data.get("location"), dict) else {}
        row["directory"] = (
            row.get("directory")
            or data.get("directory")
            or location.get("directory")
            or worktrees.get(row.get("project_id") or "")
        )
        row["title"] = row.get("title") or data.get("title")
    return rows


@contextmanager
def _guard(action: str, db: Path) -> Iterator[None]:
    """Turns sqlite errors (locked, missing table) into TranscriptError with context."""
    try:
        yield
    except sqlite3.Error as exc:
        raise TranscriptError(f"cannot {action} OpenCode database {db}: {exc}") from exc


def discover_db(
    root: str | Path, base: str | Path | None = None, *, timeout: float = 1.0
) -> list[SessionSource]:
    """Sessions in the database whose directory is `root` or below it."""
    db = Path(base or DEFAULT_BASE).expanduser()
    db = db / DB_NAME if db.is_dir() else db
    if not db.is_file():
        return []
    conn = _connect(db, timeout)
    try:
        with _guard("list sessions in", db):
            rows = _session_rows(conn)
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


def parse_db(db_path: str | Path, session_id: str, *, timeout: float = 1.0) -> Session:
    """One session from the database, read in a single read-only transaction."""
    db = Path(db_path).expanduser()
    conn = _connect(db, timeout)
    try:
        with _guard("read", db):
            conn.execute("BEGIN")
            row = next((r for r in _session_rows(conn) if str(r["id"]) == session_id), None)
            if row is None:
                raise TranscriptError(f"OpenCode session {session_id} not found in {db}")
            mcols = _columns(conn, "message")
            order = "time_created, id" if "time_created" in mcols else "id"
            messages = conn.execute(
                f"SELECT id, data{', time_created' if 'time_created' in mcols else ''} "
                f"FROM message WHERE session_id = ? ORDER BY {order}",
                (session_id,),
            ).fetchall()
            pcols = _columns(conn, "part")
            if "session_id" in pcols:
                parts = conn.execute(
                    "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id",
                    (session_id,),
                ).fetchall()
            else:
                parts = conn.execute(
                    "SELECT p.id, p.message_id, p.data FROM part p JOIN message m "
                    "ON m.id = p.message_id WHERE m.session_id = ? ORDER BY p.id",
                    (session_id,),
                ).fetchall()
            conn.execute("COMMIT")
    finally:
        conn.close()
    digest = hashlib.sha256(f"{db}\0{session_id}\0{row.get('time_updated')}".encode())
    warnings = 0
    by_message: dict[str, list[dict[str, Any]]] = {}
    for part in parts:
        digest.update(str(part["data"]).encode())
        data = _json(part["data"])
        if not data:
            warnings += 1
            continue
        by_message.setdefault(str(part["message_id"]), []).append(data)
    builder = _Builder()
    for message in messages:
        digest.update(str(message["data"]).encode())
        info = _json(message["data"])
        if not info:
            warnings += 1
            continue
        info.setdefault("id", message["id"])
        created = parse_time(message["time_created"]) if "time_created" in message.keys() else None
        builder.add(info, by_message.get(str(message["id"]), []), created)
    info = _json(row.get("data"))
    info.setdefault("title", row.get("title"))
    info.setdefault(
        "time", {"created": row.get("time_created"), "updated": row.get("time_updated")}
    )
    stat = db.stat()
    source = SourceInfo(
        paths=[str(db)], version=digest.hexdigest(), size=stat.st_size, mtime=stat.st_mtime
    )
    log.debug("read OpenCode session %s (%s)", session_id, one_line(str(row.get("title")), 60))
    return _session(builder, session_id, info, row.get("directory"), source, warnings)


def discover(root: str | Path, base: str | Path | None = None) -> list[SessionSource]:
    """Database sessions and legacy-storage sessions (a session in both is listed once)."""
    base_dir = Path(base or DEFAULT_BASE).expanduser()
    found = discover_db(root, base_dir)
    seen = {s.session_id for s in found}
    found.extend(s for s in discover_legacy(root, base_dir) if s.session_id not in seen)
    return found


def parse(source: SessionSource | str | Path, session_id: str | None = None) -> Session:
    """A session from a discovered source, a database plus id, or a legacy session file."""
    if isinstance(source, SessionSource):
        session_id = source.session_id
        path = Path(source.paths[0])
    else:
        path = Path(source)
    if path.suffix == ".db":
        if not session_id:
            raise TranscriptError("an OpenCode database source needs a session id")
        return parse_db(path, session_id)
    return parse_legacy(path)
