"""The `nano-brain` command line: a thin front end over Brain methods."""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from . import __version__
from .brain import Brain
from .errors import InvalidInputError, NanoBrainError
from .filters import KINDS, Filters
from .search import validate_request

log = logging.getLogger("nano_brain")
_err = Console(stderr=True)


def _common(func: Callable[..., Any]) -> Callable[..., Any]:
    """--workspace, --db and --json on every command."""

    @click.option(
        "--workspace",
        "-w",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Workspace root (default: current directory).",
    )
    @click.option(
        "--db",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Store file (default: under the XDG data dir, one per workspace).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def _open(workspace: Path | None, db: Path | None) -> Brain:
    return Brain(workspace, db_path=db)


def _emit(data: Any, as_json: bool, human: Callable[[], None]) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        human()


class _Group(click.Group):
    """Turns nano-brain errors into one line on stderr and a non-zero exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NanoBrainError as exc:
            click.echo(f"nano-brain: error: {exc}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="nano-brain")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-v info, -vv debug).")
def main(verbose: int) -> None:
    """nano-brain: a memory for your coding workspace."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


# -- documents -----------------------------------------------------------------------------


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
@_common
def write(
    content: str | None,
    file: str | None,
    title: str | None,
    tags: tuple[str, ...],
    collection: str,
    kind: str,
    metadata: str | None,
    source_path: str | None,
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Save a note (CONTENT, --file, or stdin)."""
    text = _read_content(content, file)
    meta = _parse_metadata(metadata)
    with _open(workspace, db) as brain:
        result = brain.write(
            text,
            title=title,
            tags=tags,
            collection=collection,
            kind=kind,
            metadata=meta,
            source_path=source_path,
        )

    def human() -> None:
        verb = "saved" if result.created else ("updated" if result.updated else "unchanged")
        vec = "" if result.embedded else " (vectors pending)"
        click.echo(
            f"{verb} #{result.document.id} {result.document.title!r}, {result.chunks} chunk(s){vec}"
        )

    _emit(result.model_dump(), as_json, human)


@main.command()
@click.argument("ref")
@_common
def get(ref: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Show a document by #id or source path."""
    with _open(workspace, db) as brain:
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

    _emit(doc.model_dump(), as_json, human)


@main.command()
@click.argument("ref")
@_common
def delete(ref: str, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Delete a document and everything derived from it."""
    with _open(workspace, db) as brain:
        doc = brain.delete(ref)
    _emit(doc.model_dump(), as_json, lambda: click.echo(f"deleted #{doc.id} {doc.title!r}"))


@main.command(name="list")
@click.option("--limit", "-n", type=int, default=50, show_default=True)
@click.option("--offset", type=int, default=0)
@click.option("--collection", "-c", multiple=True)
@click.option("--tag", "tags", multiple=True)
@click.option("--kind", multiple=True, type=click.Choice(KINDS))
@_common
def list_cmd(
    limit: int,
    offset: int,
    collection: tuple[str, ...],
    tags: tuple[str, ...],
    kind: tuple[str, ...],
    workspace: Path | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """List documents, most recently updated first."""
    filters = Filters(collections=collection, tags=tags, kinds=kind)  # type: ignore[arg-type]
    with _open(workspace, db) as brain:
        docs = brain.list(filters, limit=limit, offset=offset)

    def human() -> None:
        for doc in docs:
            click.echo(f"#{doc.id}  {doc.updated_at}  {doc.collection:<12} {doc.title}")
        if not docs:
            click.echo("no documents")

    _emit([d.model_dump() for d in docs], as_json, human)


@main.command(name="tags")
@_common
def tags_cmd(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """List tags with how many documents carry each."""
    with _open(workspace, db) as brain:
        rows = brain.tags()
    _emit(
        [{"tag": t, "count": n} for t, n in rows],
        as_json,
        lambda: [click.echo(f"{n:6d}  {t}") for t, n in rows] or click.echo("no tags"),
    )


# -- search --------------------------------------------------------------------------------


def _search_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.argument("query", nargs=-1, required=True),
        click.option("--limit", "-n", type=int, default=10, show_default=True),
        click.option(
            "--collection", "-c", multiple=True, help="Only this collection (repeatable)."
        ),
        click.option(
            "--tag", "tags", multiple=True, help="Only documents with this tag (all must match)."
        ),
        click.option("--kind", multiple=True, type=click.Choice(KINDS)),
        click.option("--created-after", help="RFC 3339 time, date, or age such as 7d."),
        click.option("--created-before"),
        click.option("--updated-after"),
        click.option("--updated-before"),
        click.option("--content", "include_content", is_flag=True, help="Print whole documents."),
        click.option("--explain", is_flag=True, help="Show every score component."),
        _common,
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
        **{k: v for k, v in times.items() if v is not None},
    )
    with _open(workspace, db) as brain:
        response = brain.search(request)

    def human() -> None:
        legs = ", ".join(f"{k}: {v}" for k, v in response.legs.items())
        if not response.results:
            click.echo(f"no results ({legs})")
            return
        for i, hit in enumerate(response.results, 1):
            tags_text = f" [{', '.join(hit.tags)}]" if hit.tags else ""
            click.echo(
                f"{i:2d}. #{hit.id}  {hit.title}  ({hit.collection}, {hit.score:.4f}){tags_text}"
            )
            click.echo(f"    {hit.content if include_content else hit.snippet}")
            if hit.explain:
                click.echo(f"    explain: {json.dumps(hit.explain)}")
        if any(not v.startswith(("ok", "empty")) for v in response.legs.values()):
            click.echo(f"({legs})", err=True)

    _emit(response.model_dump(), as_json, human)


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


# -- maintenance ---------------------------------------------------------------------------


@main.command()
@_common
def status(workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Store size, counts, model and which search legs are available."""
    with _open(workspace, db) as brain:
        info = brain.status()

    def human() -> None:
        emb = info["embedding"]
        click.echo(f"workspace  {info['workspace']}  ({info['workspace_id']})")
        click.echo(
            f"store      {info['store']}  {info['store_bytes'] / 1e6:.1f} MB, "
            f"schema v{info['schema_version']}"
        )
        click.echo(
            f"documents  {info['documents']}  "
            + " ".join(f"{k}={v}" for k, v in sorted(info["by_kind"].items()))
        )
        click.echo(
            f"chunks     {info['chunks']}  vectors {info['vectors']}  "
            f"pending {info['pending_embeddings']}"
        )
        click.echo(f"model      {emb['model'] or '-'} (store: {emb['store_model'] or '-'})")
        for leg, state in info["legs"].items():
            click.echo(f"{leg:<10} {state}")
        for warning in info["config_warnings"]:
            click.echo(f"warning    {warning}")

    _emit(info, as_json, human)


@main.command()
@click.option("--pending", is_flag=True, help="Only embed chunks that have no vector yet.")
@_common
def reembed(pending: bool, workspace: Path | None, db: Path | None, as_json: bool) -> None:
    """Embed every chunk again with the configured model (after changing models)."""
    with _open(workspace, db) as brain, _progress(as_json) as update:
        count = brain.embed_pending(progress=update) if pending else brain.reembed(progress=update)
        model = brain.provider()[0]
    info = {"embedded": count, "model": model.name if model else None}
    _emit(info, as_json, lambda: click.echo(f"embedded {count} chunk(s) with {info['model']}"))


class _progress:
    """A rich progress bar on stderr (silent with --json or when stderr is no terminal)."""

    def __init__(self, quiet: bool) -> None:
        self._bar = (
            None
            if quiet
            else Progress(
                TextColumn("embedding"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=_err,
                transient=True,
            )
        )
        self._task: Any = None

    def __enter__(self) -> Callable[[int, int], None]:
        if self._bar is not None:
            self._bar.start()

        def update(done: int, total: int) -> None:
            if self._bar is None:
                return
            if self._task is None:
                self._task = self._bar.add_task("", total=total)
            self._bar.update(self._task, completed=done, total=total)

        return update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def _read_content(content: str | None, file: str | None) -> str:
    if content is not None and file is not None:
        raise InvalidInputError("give the content as an argument or with --file, not both")
    if content is not None:
        return content
    if file is None and sys.stdin.isatty():
        raise InvalidInputError("no content: pass it as an argument, with --file, or on stdin")
    try:
        raw = sys.stdin.buffer.read() if file in (None, "-") else Path(file).read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {file}: {exc.strerror}") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"content is not valid UTF-8 (byte {exc.start})") from None


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
