"""`nano-brain harvest` and `nano-brain watch`: agent sessions -> session summaries."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..config import AgentName
from ..filters import Filters
from ..harvest import AGENTS, HarvestReport
from ..harvest.report import SKIPPED
from ..models import Document
from ..text import json_visible
from ._app import common_options, emit, main, open_workspace

if TYPE_CHECKING:
    from ..workspace import Workspace

_AGENT = click.Choice(list(AGENTS))
_SKIP_LABELS = {
    "unchanged": "unchanged",
    "tombstoned": "deleted by you (tombstone)",
    "other-workspace": "other workspace",
    "settling": "still being written",
    "empty": "empty",
}


def _open(workspace: Path | None, db: Path | None) -> Workspace:
    """The workspace, its writes attributed to the harvester in the audit log."""
    return open_workspace(workspace, db, create=True, actor="harvest")


def _print_report(report: HarvestReport, *, quiet_unchanged: bool = True) -> None:
    prefix = "would be " if report.dry_run else ""
    for item in report.items:
        if quiet_unchanged and item.action in SKIPPED:
            continue
        ident = (item.session_id or item.source)[:36]
        ref = f"#{item.doc_id} v{item.version}" if item.doc_id and not report.dry_run else ""
        line = f"{prefix}{item.action:<9} {item.agent:<11} {ident:<36} {ref} {item.title or ''}"
        click.echo(line.rstrip())
        if item.error:
            click.echo(f"          {item.error}")
        if item.skipped:
            click.echo(f"          skipped {item.describe_skipped()}")
    counts = report.counts()
    changed = [f"{counts.get(a, 0)} {prefix}{a}" for a in ("added", "updated")]
    if counts.get("failed"):
        changed.append(f"{counts['failed']} failed")
    skipped = [f"{counts[a]} {_SKIP_LABELS[a]}" for a in SKIPPED if counts.get(a)]
    line = ", ".join(changed)
    if skipped:
        line += f"; skipped: {', '.join(skipped)}"
    if report.warnings:
        line += f"; {report.warnings} unreadable transcript line(s) left out"
    click.echo(f"{line} ({report.elapsed_s:.2f}s)")


@main.command()
@click.option(
    "--agent",
    "-a",
    "agents",
    type=_AGENT,
    multiple=True,
    help="Only this agent's sessions (repeatable; default: harvest.agents).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be added or updated; write nothing.")
@common_options
def harvest(
    agents: tuple[AgentName, ...],  # click.Choice(AGENTS) passes only these
    dry_run: bool,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Summarise this workspace's agent sessions into memory (new and grown ones)."""
    with _open(workspace, db) as ws:
        report = ws.harvester.run_once(agents=agents or None, dry_run=dry_run)
    emit(report.to_dict(), as_json, lambda: _print_report(report))


@main.command()
@click.option("--agent", "-a", "agents", type=_AGENT, multiple=True, help="Only this agent.")
@click.option("--debounce", type=float, default=None, help="Seconds of quiet before a tick.")
@click.option("--settle", type=float, default=None, help="Seconds a transcript must rest.")
@common_options
def watch(
    agents: tuple[AgentName, ...],  # click.Choice(AGENTS) passes only these
    debounce: float | None,
    settle: float | None,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Harvest now, then whenever an agent's transcripts change (Ctrl-C stops).

    Prints one line per added or updated session (with --json: one JSON report per tick
    that changed something).
    """
    stop = threading.Event()

    def show(report: HarvestReport) -> None:
        if not report.changed and not report.counts().get("failed"):
            return
        if as_json:
            text = json.dumps(report.to_dict(), ensure_ascii=False, default=str)
            click.echo(json_visible(text))
        else:
            _print_report(report)

    # progress (what is watched, what waits to settle) goes to stderr as log lines, whether
    # or not stderr is a terminal; -v/-vv may already ask for more
    progress = logging.getLogger("nano_brain.harvest")
    if progress.getEffectiveLevel() > logging.INFO:
        progress.setLevel(logging.INFO)
    with _open(workspace, db) as ws:
        ws.brain.embedder.start()  # summaries are embedded in the background as they land
        if not as_json:
            click.echo(f"watching agent transcripts for {ws.root} (Ctrl-C stops)", err=True)
        try:
            ws.harvester.watch(
                stop=stop,
                on_report=show,
                debounce_s=debounce,
                settle_s=settle,
                agents=agents or None,
            )
        except KeyboardInterrupt:
            stop.set()


@main.command()
@click.option("--ticket", help="Only sessions tagged with this ticket id (e.g. ABC-123).")
@click.option("--limit", "-n", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@common_options
def sessions(
    ticket: str | None, limit: int, workspace: Path | None, db: Path | None, as_json: bool
) -> None:
    """List this workspace's harvested sessions, most recent first.

    Each line shows when the session happened (its first and last message, UTC); --json
    adds `started`, `ended` and `harvested_at` (when its summary was last written).
    """
    tags = (f"ticket:{ticket.strip()}",) if ticket else ()
    # with a ticket, the commits that name it come along (docs/history.md)
    kinds = ("session", "commit") if ticket else ("session",)
    with _open(workspace, db) as ws:
        docs = ws.brain.list(Filters(kinds=kinds, tags=tags), limit=limit)  # type: ignore[arg-type]
    rows = sorted(
        ({**d.model_dump(), **_session_times(d)} for d in docs),
        key=lambda row: row["ended"] or row["started"] or "",
        reverse=True,
    )

    def human() -> None:
        for row in rows:
            tickets = ",".join(t[7:] for t in row["tags"] if t.startswith("ticket:"))
            when = _when(row["started"], row["ended"])
            commit = str(row["metadata"].get("hash", ""))[:10] if row["kind"] == "commit" else ""
            what = f"commit {commit}  " if commit else ""
            click.echo(
                f"#{row['id']}  {when}  {what}{row['title']}"
                + (f"  [{tickets}]" if tickets else "")
            )
        if not rows:
            click.echo("no sessions")

    emit(rows, as_json, human)


def _session_times(doc: Document) -> dict[str, str | None]:
    """When the session happened (recorded by the harvester from the transcript) and when
    its summary was written; a session stored by hand has only its creation time."""
    meta = doc.metadata.get("harvest")
    if not isinstance(meta, dict):
        meta = {}
    started = meta.get("started") if isinstance(meta.get("started"), str) else None
    ended = meta.get("ended") if isinstance(meta.get("ended"), str) else None
    return {
        "started": started or doc.created_at,
        "ended": ended or started or doc.created_at,
        "harvested_at": doc.updated_at,
    }


def _when(started: str | None, ended: str | None) -> str:
    """`2025-12-10 19:40-19:52Z`, or both dates when the session crossed midnight (UTC)."""
    if not started:
        return "unknown time".ljust(22)
    start = started.replace("T", " ")[:16]
    end = (ended or started).replace("T", " ")[:16]
    if end[:10] == start[:10]:
        return f"{start}-{end[11:]}Z"
    return f"{start}Z-{end}Z"
