"""`nano-brain harvest` and `nano-brain watch`: agent sessions -> session summaries."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import click

from ..brain import Brain
from ..filters import Filters
from ..harvest import AGENTS, Harvester, HarvestReport
from ..harvest.harvester import SKIPPED
from ._app import common_options, emit, main

_AGENT = click.Choice(list(AGENTS))
_SKIP_LABELS = {
    "unchanged": "unchanged",
    "tombstoned": "deleted by you (tombstone)",
    "other-workspace": "other workspace",
    "settling": "still being written",
    "empty": "empty",
}


def _open(workspace: Path | None, db: Path | None) -> Brain:
    """A Brain whose writes the audit log attributes to the harvester."""
    return Brain(workspace, db_path=db, actor="harvest")


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
    counts = report.counts()
    changed = [f"{counts.get(a, 0)} {prefix}{a}" for a in ("added", "updated")]
    if counts.get("failed"):
        changed.append(f"{counts['failed']} failed")
    skipped = [f"{counts[a]} {_SKIP_LABELS[a]}" for a in SKIPPED if counts.get(a)]
    line = ", ".join(changed)
    if skipped:
        line += f"; skipped: {', '.join(skipped)}"
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
    agents: tuple[str, ...],
    dry_run: bool,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Summarise this workspace's agent sessions into memory (new and grown ones)."""
    with _open(workspace, db) as brain:
        harvester = Harvester(brain)
        report = harvester.run_once(agents=agents or None, dry_run=dry_run)  # type: ignore[arg-type]
    emit(report.to_dict(), as_json, lambda: _print_report(report))


@main.command()
@click.option("--agent", "-a", "agents", type=_AGENT, multiple=True, help="Only this agent.")
@click.option("--debounce", type=float, default=None, help="Seconds of quiet before a tick.")
@click.option("--settle", type=float, default=None, help="Seconds a transcript must rest.")
@common_options
def watch(
    agents: tuple[str, ...],
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
            click.echo(json.dumps(report.to_dict(), ensure_ascii=False, default=str), nl=True)
        else:
            _print_report(report)

    with _open(workspace, db) as brain:
        harvester = Harvester(brain)
        if not as_json:
            click.echo(f"watching agent transcripts for {brain.root} (Ctrl-C stops)", err=True)
        try:
            harvester.watch(
                stop=stop,
                on_report=show,
                debounce_s=debounce,
                settle_s=settle,
                agents=agents or None,  # type: ignore[arg-type]
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
    """List this workspace's harvested session summaries, newest first."""
    tags = (f"ticket:{ticket.strip()}",) if ticket else ()
    with _open(workspace, db) as brain:
        docs = brain.list(Filters(kinds=("session",), tags=tags), limit=limit)

    def human() -> None:
        for doc in docs:
            tickets = ",".join(t[7:] for t in doc.tags if t.startswith("ticket:"))
            click.echo(
                f"#{doc.id}  {doc.updated_at}  {doc.title}" + (f"  [{tickets}]" if tickets else "")
            )
        if not docs:
            click.echo("no sessions")

    emit([d.model_dump() for d in docs], as_json, human)
