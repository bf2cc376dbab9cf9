"""Commands that search: query (hybrid), search (lexical), vsearch (vector)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..filters import KINDS, STATUSES
from ..search import validate_request
from ..timeutil import LOWER_BOUND_HELP, UPPER_BOUND_HELP
from ._app import common_options, emit, main, open_brain

_TIME = "RFC 3339 time, date, or age such as 7d"


def _search_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.argument("query", nargs=-1, required=True),
        click.option("--limit", "-n", type=click.IntRange(1, 200), default=10, show_default=True),
        click.option(
            "--collection", "-c", multiple=True, help="Only this collection (repeatable)."
        ),
        click.option(
            "--tag", "tags", multiple=True, help="Only documents with this tag (all must match)."
        ),
        click.option("--kind", multiple=True, type=click.Choice(KINDS)),
        click.option("--created-after", help=f"{_TIME}; {LOWER_BOUND_HELP}."),
        click.option("--created-before", help=f"{_TIME}; {UPPER_BOUND_HELP}."),
        click.option("--updated-after", help=f"{_TIME}; {LOWER_BOUND_HELP}."),
        click.option("--updated-before", help=f"{_TIME}; {UPPER_BOUND_HELP}."),
        click.option(
            "--status",
            "statuses",
            multiple=True,
            type=click.Choice(STATUSES),
            help="Only documents with this status (default: active and unreviewed).",
        ),
        click.option(
            "--include-superseded",
            is_flag=True,
            help="Also show superseded documents (ranked below their successors).",
        ),
        click.option(
            "--as-of",
            help=f"Search the store as it was at this time: {_TIME}; {UPPER_BOUND_HELP}.",
        ),
        click.option("--content", "include_content", is_flag=True, help="Print whole documents."),
        click.option("--explain", is_flag=True, help="Show every score component."),
        common_options,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _run_search(
    mode: str,
    query: tuple[str, ...],
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
    limit: int,
    collection: tuple[str, ...],
    tags: tuple[str, ...],
    kind: tuple[str, ...],
    include_content: bool,
    explain: bool,
    statuses: tuple[str, ...],
    include_superseded: bool,
    **times: str | None,
) -> None:
    request = validate_request(
        query=" ".join(query),
        mode=mode,
        limit=limit,
        collection=list(collection),
        tags=list(tags),
        kind=list(kind),
        include_content=include_content,
        explain=explain,
        status=list(statuses),
        include_superseded=include_superseded,
        **{k: v for k, v in times.items() if v is not None},
    )
    with open_brain(workspace, db) as brain:
        response = brain.search(request)

    def human() -> None:
        legs = ", ".join(f"{k}: {v}" for k, v in response.legs.items())
        if not response.results:
            click.echo(f"no results: {response.note}" if response.note else f"no results ({legs})")
        for i, hit in enumerate(response.results, 1):
            tags_text = f" [{', '.join(hit.tags)}]" if hit.tags else ""
            click.echo(
                f"{i:2d}. #{hit.id}  {hit.title}  ({hit.collection}, {hit.score:.4f}){tags_text}"
            )
            if hit.status != "active":
                after = f" by #{hit.superseded_by['id']}" if hit.superseded_by else ""
                click.echo(f"    [{hit.status}{after}]")
            click.echo(f"    {hit.content if include_content else hit.snippet}")
            if hit.explain:
                click.echo(f"    explain: {json.dumps(hit.explain)}")
        if response.results and response.relevance:
            click.echo(f"relevance: {json.dumps(response.relevance)}")
        if response.partial:  # vectors still being computed: say so beside what was found
            click.echo(f"note: {response.partial}")
        failed = any(not v.startswith(("ok", "empty")) for v in response.legs.values())
        if response.results and failed:
            click.echo(f"({legs})", err=True)

    emit(response.model_dump(), as_json, human)


@main.command()
@_search_options
def query(**kwargs: Any) -> None:
    """Hybrid search: lexical and vector legs fused."""
    _run_search("hybrid", **kwargs)


@main.command()
@_search_options
def search(**kwargs: Any) -> None:
    """Lexical (full-text) search only."""
    _run_search("lexical", **kwargs)


@main.command()
@_search_options
def vsearch(**kwargs: Any) -> None:
    """Vector (semantic) search only."""
    _run_search("vector", **kwargs)
