"""Commands on documents: write, get, delete, list, tags."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import InvalidInputError
from ..filters import KINDS, STATUSES, Filters, Kind, Status
from ._app import common_options, echo_lines, emit, load_workspace, main, open_brain

_READ_BLOCK = 1 << 16


@main.command()
@click.argument("content", required=False)
@click.option(
    "--file",
    "-f",
    "file",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Read the content from a file ('-' for stdin).",
)
@click.option("--title", "-t", help="Title (default: the first line).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--collection", "-c", default="memory", show_default=True)
@click.option("--kind", type=click.Choice(KINDS), default="note", show_default=True)
@click.option("--metadata", help="A JSON object stored with the note.")
@click.option("--source-path", help="Where the note comes from; writing it again updates it.")
@click.option("--supersedes", help="#id or source path of a note this one replaces.")
@click.option("--pin", is_flag=True, help="Never evict this note (storage limit).")
@click.option(
    "--anchor",
    "anchors",
    multiple=True,
    help="Anchor the note to this symbol (repeatable; any form `symbols` resolves).",
)
@common_options
def write(
    content: str | None,
    file: str | None,
    title: str | None,
    tags: tuple[str, ...],
    collection: str,
    kind: str,
    metadata: str | None,
    source_path: str | None,
    supersedes: str | None,
    pin: bool,
    anchors: tuple[str, ...],
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Save a note (CONTENT, --file, or stdin)."""
    loaded = load_workspace(workspace)
    text = _read_content(content, file, loaded[1].config.storage.max_content_bytes)
    meta = _parse_metadata(metadata)
    args: dict[str, Any] = {
        "title": title,
        "tags": tags,
        "collection": collection,
        "kind": kind,
        "metadata": meta,
        "source_path": source_path,
        "supersedes": supersedes,
        "pinned": pin,
    }
    with open_brain(workspace, db, create=True, loaded=loaded) as brain:
        if anchors:  # the code index only when the note is anchored (start-up stays light)
            from ..anchoring import write_anchored

            result: Any = write_anchored(brain, text, anchors=anchors, **args)
        else:
            result = brain.write(text, **args)

    def human() -> None:
        verb = "saved" if result.created else ("updated" if result.updated else "unchanged")
        vec = "" if result.embedded else " (vectors pending)"
        doc = result.document
        click.echo(f"{verb} #{doc.id} {doc.title!r} v{doc.version}, {result.chunks} chunk(s){vec}")
        if supersedes:
            click.echo(f"superseded {supersedes}")
        for a in getattr(result, "anchored_to", []):
            click.echo(f"anchored to {a.symbol}")
        for notice in result.notices:
            click.echo(f"note: {notice}")

    emit(result.model_dump(), as_json, human)


@main.command()
@click.argument("ref")
@common_options
def get(ref: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Show a document by #id or source path."""
    with open_brain(workspace, db) as brain:
        doc = brain.get(ref)

    def human() -> None:
        click.echo(f"#{doc.id}  {doc.title}")
        click.echo(
            f"kind={doc.kind} collection={doc.collection} tags={','.join(doc.tags) or '-'} "
            f"created={doc.created_at} updated={doc.updated_at}"
        )
        if doc.source_path:
            click.echo(f"source: {doc.source_path}")
        click.echo("")
        click.echo(doc.content)

    emit(doc.model_dump(), as_json, human)


@main.command()
@click.argument("ref")
@common_options
def delete(ref: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Delete a document and everything derived from it."""
    with open_brain(workspace, db) as brain:
        doc = brain.delete(ref)
    emit(doc.model_dump(), as_json, lambda: click.echo(f"deleted #{doc.id} {doc.title!r}"))


@main.command(name="list")
@click.option("--limit", "-n", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0, 10**12), default=0)
@click.option("--collection", "-c", multiple=True)
@click.option("--tag", "tags", multiple=True)
@click.option("--kind", multiple=True, type=click.Choice(KINDS))
@click.option("--status", "statuses", multiple=True, type=click.Choice(STATUSES))
@click.option("--include-superseded", is_flag=True)
@common_options
def list_cmd(
    limit: int,
    offset: int,
    collection: tuple[str, ...],
    tags: tuple[str, ...],
    kind: tuple[Kind, ...],  # click.Choice passes only these
    statuses: tuple[Status, ...],
    include_superseded: bool,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """List documents, most recently updated first."""
    filters = Filters(
        collections=collection,
        tags=tags,
        kinds=kind,
        statuses=statuses,
        include_superseded=include_superseded,
    )
    with open_brain(workspace, db) as brain:
        docs = brain.list(filters, limit=limit, offset=offset)

    def human() -> None:
        for doc in docs:
            flag = "" if doc.status == "active" else f" [{doc.status}]"
            click.echo(f"#{doc.id}  {doc.updated_at}  {doc.collection:<12} {doc.title}{flag}")
        if not docs:
            click.echo("no documents")

    emit([d.model_dump() for d in docs], as_json, human)


@main.command(name="tags")
@common_options
def tags_cmd(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """List tags with how many documents carry each."""
    with open_brain(workspace, db) as brain:
        rows = brain.tags()
    emit(
        [{"tag": t, "count": n} for t, n in rows],
        as_json,
        lambda: echo_lines((f"{n:6d}  {t}" for t, n in rows), "no tags"),
    )


def _read_content(content: str | None, file: str | None, cap: int) -> str:
    """The note's text; files and stdin are read up to `cap` + 1 bytes, never more."""
    if content is not None and file is not None:
        raise InvalidInputError("give the content as an argument or with --file, not both")
    if content is not None:
        return content
    if file is None and sys.stdin.isatty():
        raise InvalidInputError("no content: pass it as an argument, with --file, or on stdin")
    if file in (None, "-"):
        raw = _read_stdin(cap)
    else:
        raw = _read_file(file, cap)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"content is not valid UTF-8 (byte {exc.start})") from None


def _read_file(file: str, cap: int) -> bytes:
    # O_NONBLOCK: opening a FIFO nobody writes to must not hang before the type check.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file, flags)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {file}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInputError(
                f"--file {file} is not a regular file ({_file_type(info.st_mode)}); "
                "pipe other input on stdin"
            )
        if info.st_size > cap:
            raise InvalidInputError(f"{file} is {info.st_size} bytes, over the {cap}-byte cap")
        return _read_capped(fd, cap, file)
    finally:
        os.close(fd)


def _read_stdin(cap: int) -> bytes:
    """Standard input up to `cap` + 1 bytes (a stream without a descriptor, as a program
    embedding the CLI may pass, is read the same bounded way)."""
    try:
        fd = sys.stdin.buffer.fileno()
    except (AttributeError, OSError, ValueError):
        data = sys.stdin.buffer.read(cap + 1)
        if len(data) > cap:
            raise InvalidInputError(f"stdin holds more than the {cap}-byte cap") from None
        return data
    return _read_capped(fd, cap, "stdin")


def _read_capped(fd: int, cap: int, name: str) -> bytes:
    """At most `cap` bytes from `fd`; more than that is an error (read stops at cap + 1)."""
    parts: list[bytes] = []
    size = 0
    while size <= cap:
        try:
            block = os.read(fd, min(_READ_BLOCK, cap + 1 - size))
        except OSError as exc:
            raise InvalidInputError(f"cannot read {name}: {exc.strerror}") from None
        if not block:
            break
        parts.append(block)
        size += len(block)
    if size > cap:
        raise InvalidInputError(f"{name} holds more than the {cap}-byte cap")
    return b"".join(parts)


def _file_type(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


def _parse_metadata(metadata: str | None) -> dict[str, Any]:
    if metadata is None:
        return {}
    try:
        value = json.loads(metadata)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"--metadata is not JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise InvalidInputError("--metadata must be a JSON object")
    return value
