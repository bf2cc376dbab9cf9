"""Commands that correct memory: supersede, retract, confirm, pin, history, log, forget."""

from __future__ import annotations

from pathlib import Path

import click

from ..filters import Filters
from ..models import Document
from ._app import common_options, echo_lines, emit, main, open_brain


def _status_line(doc: Document) -> str:
    after = f" by #{doc.superseded_by}" if doc.superseded_by else ""
    return f"#{doc.id} {doc.title!r} is {doc.status}{after}"


@main.command()
@click.argument("old")
@click.argument("new")
@common_options
def supersede(old: str, new: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Mark OLD as superseded by NEW (both #id or source path)."""
    with open_brain(workspace, db) as brain:
        doc = brain.supersede(old, new)
    emit(doc.model_dump(), as_json, lambda: click.echo(_status_line(doc)))


@main.command()
@click.argument("ref")
@click.option("--reason", default="", help="Why it was wrong (kept in the audit log).")
@common_options
def retract(ref: str, reason: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Mark a document as wrong: kept for the record, hidden from every default read."""
    with open_brain(workspace, db) as brain:
        doc = brain.retract(ref, reason=reason)
    emit(doc.model_dump(), as_json, lambda: click.echo(_status_line(doc)))


@main.command()
@click.argument("ref")
@common_options
def confirm(ref: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Confirm an unreviewed (or retracted) document: it becomes active."""
    with open_brain(workspace, db) as brain:
        doc = brain.confirm(ref)
    emit(doc.model_dump(), as_json, lambda: click.echo(_status_line(doc)))


@main.command()
@click.option("--limit", "-n", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@common_options
def review(limit: int, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """List documents waiting for review (confirm them with `nano-brain confirm`)."""
    with open_brain(workspace, db) as brain:
        docs = brain.list(Filters(statuses=("unreviewed",)), limit=limit)

    def human() -> None:
        for doc in docs:
            click.echo(f"#{doc.id}  {doc.created_at}  by {doc.author:<8} {doc.title}")
        if not docs:
            click.echo("nothing to review")

    emit([d.model_dump() for d in docs], as_json, human)


@main.command()
@click.argument("ref")
@click.option("--off", is_flag=True, help="Unpin instead.")
@common_options
def pin(ref: str, off: bool, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Pin a document so the storage limit never evicts it."""
    with open_brain(workspace, db) as brain:
        doc = brain.pin(ref, not off)
    emit(
        doc.model_dump(),
        as_json,
        lambda: click.echo(f"#{doc.id} {'pinned' if doc.pinned else 'unpinned'}"),
    )


@main.command()
@click.argument("ref")
@common_options
def history(ref: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Every version of a document and what happened to it."""
    with open_brain(workspace, db) as brain:
        record = brain.history(ref)  # its versions and audit events

    def human() -> None:
        for v in record.versions:
            until = v.valid_to or "now"
            click.echo(
                f"v{v.version}  {v.valid_from} .. {until}  recorded {v.recorded_at}  "
                f"[{v.status}]  {v.title}"
            )
        if record.events:
            click.echo("")
        for e in record.events:
            change = f" {e.prev_status or '-'} -> {e.new_status}" if e.new_status else ""
            click.echo(f"{e.at}  {e.actor:<7} {e.action}{change}")

    emit(record.model_dump(), as_json, human)


@main.command(name="log")
@click.option("--limit", "-n", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@click.option("--doc", "ref", help="Only entries for this #id.")
@click.option(
    "--prune-older-than",
    help="Delete entries older than this age (e.g. 365d); the prune itself is logged.",
)
@common_options
def log_cmd(
    limit: int,
    ref: str | None,
    prune_older_than: str | None,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """The audit log: every mutation, who made it, when, and the previous status."""
    with open_brain(workspace, db) as brain:
        if prune_older_than:
            count = brain.prune_log(older_than=prune_older_than)
            emit({"pruned": count}, as_json, lambda: click.echo(f"pruned {count} entries"))
            return
        entries = brain.log(ref=ref, limit=limit)

    def human() -> None:
        for e in entries:
            doc = f" #{e.doc_id} {e.title!r}" if e.doc_id else ""
            change = f" ({e.prev_status or '-'} -> {e.new_status})" if e.new_status else ""
            # in a team store: who the writer said it was, and the role the server saw
            who = f" by {e.person or '?'} ({e.role})" if e.role else ""
            click.echo(f"{e.at}  {e.actor:<7} {e.action:<10}{doc}{change}{who}")
        if not entries:
            click.echo("the log is empty")

    emit([e.model_dump() for e in entries], as_json, human)


@main.command()
@click.argument("target")
@click.option("--undo", is_flag=True, help="TARGET is a source: remove its tombstone.")
@common_options
def forget(target: str, undo: bool, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Delete a document and keep it deleted: its source is never derived again."""
    with open_brain(workspace, db) as brain:
        if undo:
            brain.unforget(target)
            emit(
                {"source": target, "tombstone": False},
                as_json,
                lambda: click.echo(f"{target} may be derived again"),
            )
            return
        doc = brain.forget(target)
    emit(
        doc.model_dump(),
        as_json,
        lambda: click.echo(f"forgot #{doc.id} {doc.title!r} (source: {doc.source_path or '-'})"),
    )


@main.command()
@common_options
def tombstones(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Sources that stay deleted (undo with `nano-brain forget --undo SOURCE`)."""
    with open_brain(workspace, db) as brain:
        rows = brain.tombstones()
    emit(
        rows,
        as_json,
        lambda: echo_lines(
            (f"{r['at']}  {r['source']}  {r['title'] or ''}" for r in rows), "no tombstones"
        ),
    )


@main.command()
@common_options
def evict(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Apply `storage.max_size` now: evict documents until the store fits."""
    with open_brain(workspace, db) as brain:
        docs = brain.enforce_storage_limit()
    emit(
        [d.model_dump() for d in docs],
        as_json,
        lambda: click.echo(f"evicted {len(docs)} document(s)"),
    )


@main.command(name="wake-up")
@click.option(
    "--budget",
    type=click.IntRange(min=200),
    default=4000,
    show_default=True,
    help="Characters at most.",
)
@common_options
def wake_up(budget: int, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """What to read at session start: decisions, most used, recent, sessions."""
    with open_brain(workspace, db) as brain:
        result = brain.wake_up(budget_chars=budget)
    emit(result.model_dump(), as_json, lambda: click.echo(result.text))
