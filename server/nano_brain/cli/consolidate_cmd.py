"""``nano-brain consolidate``: propose what to do with near-duplicate and contradicting notes.

A thin wrapper over :class:`nano_brain.consolidate.Consolidator`: proposals wait for review
(this command lists them) unless ``--apply`` carries them out; nothing is ever deleted.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import click

from ..consolidate import ConsolidationReport, Consolidator, Proposal
from ..timeutil import parse_duration
from ._app import common_options, emit, main, open_brain


@main.command("consolidate")
@click.option("--apply", "apply_all", is_flag=True, help="Apply every pending proposal.")
@click.option("--accept", "accept", type=int, multiple=True, help="Apply proposal ID (repeatable).")
@click.option("--dismiss", type=int, multiple=True, help="Dismiss proposal ID (repeatable).")
@click.option("--dry-run", is_flag=True, help="Show what would be proposed; record nothing.")
@click.option(
    "--no-model", is_flag=True, help="Do not ask the configured endpoint (duplicates only)."
)
@click.option(
    "--every",
    default=None,
    help="Run again after each such interval (e.g. 6h) until interrupted.",
)
@common_options
def consolidate_cmd(
    apply_all: bool,
    accept: tuple[int, ...],
    dismiss: tuple[int, ...],
    dry_run: bool,
    no_model: bool,
    every: str | None,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Propose superseding or merging near-duplicate and contradicting notes; never deletes."""
    interval = parse_duration(every) if every else None
    with open_brain(workspace, db) as brain:
        consolidator = Consolidator.configured(brain, use_model=not no_model)
        if accept or dismiss:
            done = [consolidator.apply(i) for i in accept]
            done += [consolidator.dismiss(i) for i in dismiss]
            emit([p.to_dict() for p in done], as_json, lambda: _print(done, "decided"))
            return
        while True:
            report = consolidator.run(apply=apply_all, dry_run=dry_run)
            emit(report.to_dict(), as_json, functools.partial(_print_report, report))
            if interval is None:
                return
            time.sleep(interval)


def _print(proposals: list[Proposal], heading: str) -> None:
    if not proposals:
        return
    click.echo(f"{heading}:")
    for p in proposals:
        members = ", ".join(f"#{m}" for m in p.members)
        result = f" -> #{p.result}" if p.result else ""
        click.echo(f"  [{p.id}] {p.action} ({p.status}{result}): {members}")
        click.echo(f"      {p.reason}")
        if p.action == "merge" and p.content:
            click.echo(f"      merged note: {p.title or ''} {' '.join(p.content.split())[:160]}")


def _print_report(r: ConsolidationReport) -> None:
    click.echo(
        f"{r.notes} notes: {r.duplicate_clusters} duplicate and {r.related_clusters} related "
        f"clusters in {r.seconds:.2f}s"
    )
    if r.undecided:
        why = "no model configured" if r.drafter is None else "the model gave no usable answer"
        click.echo(f"  {r.undecided} related clusters left alone ({why})")
    _print(r.proposed, "new proposals")
    _print(r.applied, "applied")
    waiting = [p for p in r.pending if p.id not in {a.id for a in r.applied}]
    _print(waiting, "waiting for review (apply: --accept ID or --apply; --dismiss ID)")
    for err in r.errors[:10]:
        click.echo(f"  error: {err}")
