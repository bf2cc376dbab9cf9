"""``nano-brain routes``: the HTTP routes the code declares, and a route's flow.

A thin wrapper over :class:`nano_brain.codeindex.Routes`; routes come from the last
``nano-brain index``.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..codeindex import MAX_FLOW_DEPTH, RouteFlow, RouteInfo
from ._app import common_options, emit, main, open_workspace


@main.command("routes")
@click.argument("pattern", required=False)
@click.option("--method", "-m", default=None, help="Only this HTTP method (and any-method ones).")
@click.option("--framework", default=None, help="Only routes of this framework (flask, gin, ...).")
@click.option(
    "--flow",
    is_flag=True,
    help="Follow each matching route: the handler's call tree (a function called from several "
    "places is expanded once, the others say 'see above/below') and the notes on the way.",
)
@click.option(
    "--depth",
    type=click.IntRange(1, MAX_FLOW_DEPTH),
    default=3,
    show_default=True,
    help="Hops of calls a flow follows.",
)
@click.option("--limit", "-n", type=click.IntRange(1, 100_000), default=200, show_default=True)
@common_options
def routes_cmd(
    pattern: str | None,
    method: str | None,
    framework: str | None,
    flow: bool,
    depth: int,
    limit: int,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """HTTP routes of the code and their handlers (PATTERN: a glob or part of paths)."""
    with open_workspace(workspace, db) as ws:
        routes = ws.routes
        found = routes.list(method=method, path=pattern, framework=framework, limit=limit)
        flows = [routes.flow_of(route, depth) for route in found[:50]] if flow else []
    if flow:
        emit([f.to_dict() for f in flows], as_json, lambda: _print_flows(flows))
        return
    emit([r.to_dict() for r in found], as_json, lambda: _print_routes(found))


def _handler(route: RouteInfo) -> str:
    return route.handler or f"? {route.handler_expr}"


def _print_routes(routes: list[RouteInfo]) -> None:
    if not routes:
        click.echo("no routes (run `nano-brain index` first?)")
    width = max((len(r.method) for r in routes), default=3)
    for r in routes:
        click.echo(f"{r.method:<{width}} {r.path}  -> {_handler(r)}  ({r.file}:{r.line})")


def _print_flows(flows: list[RouteFlow]) -> None:
    if not flows:
        click.echo("no routes")
    for f in flows:
        r = f.route
        click.echo(f"{r.method} {r.path}  ({r.framework}, {r.file}:{r.line})")
        click.echo(f"  handler {_handler(r)}")
        for line in _tree_lines(f):
            click.echo(line)
        if f.truncated:
            click.echo("  … (flow cut short)")
        if f.unresolved:
            click.echo(f"  unresolved calls: {', '.join(f.unresolved[:10])}")
        for note in f.notes:
            flag = "" if note.state == "ok" else f" [{note.state}: may be stale]"
            click.echo(f"  note #{note.note_id} {note.note_title} -> {note.qualified_name}{flag}")


def _tree_lines(flow: RouteFlow) -> list[str]:
    """The flow's steps indented by depth under the handler; a symbol shown in full
    elsewhere says where, since its calls are listed only there."""
    in_full = {flow.route.handler}
    out: list[str] = []
    for step in flow.steps:
        mark = ""
        if step.repeated:
            mark = "  (see above)" if step.qualified_name in in_full else "  (see below)"
        else:
            in_full.add(step.qualified_name)
        indent = "  " * (step.depth + 1)
        out.append(f"{indent}{step.qualified_name}  ({step.path}:{step.line}){mark}")
    return out
