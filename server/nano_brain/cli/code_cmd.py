"""Code index commands: index, symbols, callers, callees, impact.

Thin wrappers over the workspace's code index (:class:`nano_brain.codeindex.CodeIndex`);
every command has --json and prints to stdout only its result (progress and logs go to stderr).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click

from ..codeindex.indexer import IndexReport
from ..codeindex.model import SYMBOL_KINDS
from ..codeindex.service import CallInfo
from ..errors import EmbeddingError, InvalidInputError
from ._app import common_options, emit, main, open_workspace
from ._progress import PhaseProgress, embedding_detail, progress_bar

_PHASES = {"scan": "scanning", "parse": "indexing", "resolve": "resolving calls"}


@main.command("index")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@common_options
@click.option(
    "--exclude",
    multiple=True,
    help="Gitignore-style pattern to leave out (repeatable), on top of .gitignore.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Parser processes (default: up to 2).",
)
@click.option(
    "--embed/--no-embed",
    default=True,
    show_default=True,
    help="Embed new symbol chunks after indexing (search works lexically before that).",
)
def index_cmd(
    paths: tuple[Path, ...],
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
    exclude: tuple[str, ...],
    workers: int | None,
    embed: bool,
) -> None:
    """Index the workspace's code (incremental: unchanged files cost a stat).

    With PATHS, only those files are looked at (changed, new or gone), as an editor hook or a
    formatter that knows what it touched would ask; a folder or a .gitignore among them makes
    it a whole pass.
    """
    started = time.perf_counter()
    with open_workspace(workspace, db, create=True, exclude=exclude, workers=workers) as ws:
        brain = ws.brain
        opened = time.perf_counter()
        named = [_workspace_path(Path(ws.root), p) for p in paths] if paths else None
        with PhaseProgress(as_json, _PHASES) as bar:
            report = ws.index(bar, paths=named)
        indexed = time.perf_counter()  # committed: search by words works from here
        data = report.to_dict()
        data["embedded"] = 0
        embedding = 0.0
        provider = brain.config.embedding.provider
        if embed and provider != "none" and report.pending_embeddings:
            embedding_started = time.perf_counter()
            try:
                detail = embedding_detail(brain.embedding_progress)
                with progress_bar(as_json, detail) as update:
                    data["embedded"] = brain.embed_pending(progress=update)
            except EmbeddingError as exc:
                data["embedding_error"] = str(exc)
            embedding = time.perf_counter() - embedding_started
            data["pending_embeddings"] = brain.pending_embeddings()
        progress = brain.embedding_progress()
        data["embedding_progress"] = {space: p.to_dict() for space, p in progress.items()}
    ended = time.perf_counter()
    data["timings"] = _timings(
        report, opened - started, indexed - opened, embedding, ended - started
    )
    data["lexical_search_after"] = round(indexed - started, 4)
    data["embedding_provider"] = provider
    emit(data, as_json, lambda: _print_report(report, data))


def _timings(
    report: IndexReport, start_up: float, indexing: float, embedding: float, total: float
) -> dict[str, float]:
    """Seconds per phase and in all: start-up (loading the program, opening the store), the
    code index, the git history (which follows the code index pass), embedding."""
    history = float(report.history["seconds"]) if report.history else 0.0
    phases = {
        "start_up": round(start_up, 4),
        "code_index": round(max(indexing - history, 0.0), 4),
        "history": round(history, 4),
        "embedding": round(embedding, 4),
    }
    # the phases are parts of the run, so the total is never less than their sum; rounding
    # each alone could make it look so by a few ten-thousandths
    return {**phases, "total": round(max(total, sum(phases.values())), 4)}


def _workspace_path(root: Path, path: Path) -> str:
    """``path`` (relative to the current folder, or absolute) as the index names it; the
    link itself for a symlink inside the workspace, not the file it points to."""
    spelled = Path(os.path.abspath(path))
    for base, candidate in ((root, spelled), (root.resolve(), spelled.resolve())):
        try:
            rel = candidate.relative_to(base).as_posix()
        except ValueError:
            continue
        if rel != ".":
            return rel
    raise InvalidInputError(f"{path} is not a file of the workspace {root}")


def _print_report(report: IndexReport, data: dict[str, Any]) -> None:
    click.echo(
        f"indexed {report.files} files ({report.source_files} source, {report.text_files} text): "
        f"{report.symbols} symbols, {report.edges} edges "
        f"({report.calls} calls, {report.resolved_calls} resolved)"
    )
    click.echo(
        f"  this run: {report.new} new, {report.changed} changed, {report.deleted} deleted, "
        f"{report.touched} touched, {report.unchanged} unchanged; "
        f"{report.documents_added} search documents added"
    )
    if report.skipped:
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(report.skipped.items()))
        click.echo(f"  skipped: {reasons}")
    for err in report.errors[:10]:
        click.echo(f"  error: {err}")
    if report.history:
        h = report.history
        line = h["message"] or f"{h['added']} new, {h['removed']} removed"
        click.echo(f"  history: {_count(h['commits'], 'commit')} ({line})")
    click.echo(f"  {_took(report, data)}")
    if data.get("embedding_error"):
        click.echo(f"  embeddings not computed: {data['embedding_error']}")
    if (search := _search_line(data)) is not None:
        click.echo(f"  {search}")


def _took(report: IndexReport, data: dict[str, Any]) -> str:
    """Where the time went: `took 151.20s: start-up 0.40s, code index 1.83s, ...`."""
    t = data["timings"]
    phases = [("start-up", t["start_up"], ""), ("code index", t["code_index"], "")]
    if report.history:
        phases.append(("history", t["history"], ""))
    if t["embedding"]:
        phases.append(("embedding", t["embedding"], f" ({_count(data['embedded'], 'chunk')})"))
    # each figure is rounded alone: the total shown is never below the sum of those shown
    total = max(round(t["total"], 2), sum(round(seconds, 2) for _, seconds, _ in phases))
    listed = ", ".join(f"{name} {seconds:.2f}s{more}" for name, seconds, more in phases)
    return f"took {total:.2f}s: {listed}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _search_line(data: dict[str, Any]) -> str | None:
    """When search worked: by words as soon as the index committed, by meaning once the
    chunks had their vectors (or how many still wait)."""
    if data["embedding_provider"] == "none":
        return "lexical search works now (embedding.provider: none, so no search by meaning)"
    pending = data.get("pending_embeddings", 0)
    if pending:
        return (
            f"lexical search works now; {_count(pending, 'chunk')} wait for embeddings "
            "(`nano-brain index` embeds them, a running editor sidecar too)"
        )
    if data["embedded"]:
        return (
            f"lexical search worked after {data['lexical_search_after']:.2f}s, search by "
            f"meaning after {data['timings']['total']:.2f}s"
        )
    return None


@main.command("symbols")
@click.argument("query")
@click.option("--kind", type=click.Choice(sorted(SYMBOL_KINDS)), default=None)
@click.option("--limit", "-n", type=click.IntRange(1, 1_000_000), default=50, show_default=True)
@common_options
def symbols_cmd(
    query: str,
    kind: str | None,
    limit: int,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Find symbols by qualified name, Class.method, bare name or name fragment."""
    with open_workspace(workspace, db) as ws:
        found = ws.code.symbols(query, kind, limit)

    def human() -> None:
        if not found:
            click.echo("no symbols")
        for s in found:
            click.echo(f"{s.kind:<9} {s.qualified_name}  ({s.path}:{s.start_line}-{s.end_line})")
            if s.signature:
                click.echo(f"          {s.signature}")

    emit([s.to_dict() for s in found], as_json, human)


def _print_calls(calls: list[CallInfo], *, show: str) -> None:
    if not calls:
        click.echo("none")
    for c in calls:
        other = c.caller if show == "caller" else (c.callee or f"? {c.expression or c.name}")
        how = f" [{c.how}]" if c.how else ""
        click.echo(f"{c.path}:{c.line}  {other}{how}")


@main.command("callers")
@click.argument("symbol")
@click.option(
    "--possible", is_flag=True, help="Also list unresolved calls with the same name (guesses)."
)
@common_options
def callers_cmd(
    symbol: str, possible: bool, workspace: Path | None, db: Path | None, as_json: bool
) -> None:
    """Call sites confidently resolved to SYMBOL."""
    with open_workspace(workspace, db) as ws:
        code = ws.code
        target = code.resolve_symbol(symbol)
        calls = code.callers(target.qualified_name)
        guesses = code.possible_callers(target.qualified_name) if possible else []
    data: dict[str, Any] = {
        "symbol": target.qualified_name,
        "callers": [c.to_dict() for c in calls],
    }
    if possible:
        data["possible_callers"] = [c.to_dict() for c in guesses]

    def human() -> None:
        click.echo(f"callers of {target.qualified_name}:")
        _print_calls(calls, show="caller")
        if possible:
            click.echo("possible callers (unresolved, same name):")
            _print_calls(guesses, show="caller")

    emit(data, as_json, human)


@main.command("callees")
@click.argument("symbol")
@click.option("--resolved-only", is_flag=True, help="Leave out calls that did not resolve.")
@common_options
def callees_cmd(
    symbol: str, resolved_only: bool, workspace: Path | None, db: Path | None, as_json: bool
) -> None:
    """Calls made directly inside SYMBOL (unresolved ones are shown with a ?)."""
    with open_workspace(workspace, db) as ws:
        calls = ws.code.callees(symbol, include_unresolved=not resolved_only)
    data = {"symbol": symbol, "callees": [c.to_dict() for c in calls]}
    emit(data, as_json, lambda: _print_calls(calls, show="callee"))


@main.command("impact")
@click.argument("symbol")
@click.option(
    "--depth", type=click.IntRange(1, 10), default=3, show_default=True, help="Hops of callers."
)
@common_options
def impact_cmd(
    symbol: str, depth: int, workspace: Path | None, db: Path | None, as_json: bool
) -> None:
    """Who is affected by changing SYMBOL: transitive callers and anchored notes."""
    with open_workspace(workspace, db) as ws:
        result = ws.code.impact(symbol, depth)

    def human() -> None:
        click.echo(f"impact of {result.symbol} (depth {result.depth}):")
        if not result.affected:
            click.echo("  no callers")
        for item in result.affected:
            indent = "  " * item.depth
            click.echo(f"{indent}{item.qualified_name}  ({item.path}:{item.line})")
        if result.notes:
            click.echo("notes:")
            for note in result.notes:
                flag = "" if note.state == "ok" else f" [{note.state}: may be stale]"
                click.echo(f"  #{note.note_id} {note.note_title} -> {note.qualified_name}{flag}")

    emit(result.to_dict(), as_json, human)
