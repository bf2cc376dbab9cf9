"""``workspace/executeCommand`` commands: typed arguments, one Brain call each.

Every command takes one JSON object (``arguments: [{...}]``) so clients can prompt for a
title or text and pass it explicitly (VS Code input box, Neovim ``vim.ui.input``); code
actions send the same object without the prompted fields. Arguments are validated here, so
bad input gets one clear error and writes nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InvalidInputError, NanoBrainError
from ..search import validate_request
from ..timeutil import iso
from .features import Context, anchors_of, note_views, symbol_at
from .text import innermost, slice_text
from .workspaces import Folder

SAVE_SELECTION = "nano-brain.saveSelection"
RECORD_DECISION = "nano-brain.recordDecision"
SUPERSEDE = "nano-brain.supersede"
SEARCH_RELATED = "nano-brain.searchRelated"
RETRACT = "nano-brain.retract"
NOTES = "nano-brain.notes"
WAKE_UP = "nano-brain.wakeUp"
WHY = "nano-brain.why"
ALL = (SAVE_SELECTION, RECORD_DECISION, SUPERSEDE, SEARCH_RELATED, RETRACT, NOTES, WAKE_UP, WHY)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uri: str | None = Field(None, description="the document the command is about")
    root: str | None = Field(None, description="workspace folder, when there is no document")


class Pos(BaseModel):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Span(BaseModel):
    start: Pos
    end: Pos


class SaveSelectionArgs(_Args):
    range: Span
    title: str | None = Field(None, max_length=200)
    text: str | None = Field(None, description="save this instead of the selected text")
    tags: list[str] = Field(default_factory=list)


class RecordDecisionArgs(_Args):
    range: Span | None = None
    title: str | None = Field(None, max_length=200)
    text: str | None = None
    tags: list[str] = Field(default_factory=list)


class SupersedeArgs(_Args):
    old: str = Field(min_length=1)
    new: str | None = Field(None, description="an existing note that replaces `old`")
    range: Span | None = None
    title: str | None = Field(None, max_length=200)
    text: str | None = None


class SearchArgs(_Args):
    query: str | None = None
    range: Span | None = None
    limit: int = Field(10, ge=1, le=100)
    mode: str = "hybrid"
    kind: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    collection: list[str] = Field(default_factory=list)


class RetractArgs(_Args):
    id: str = Field(min_length=1)
    reason: str = ""


class NotesArgs(_Args):
    symbol: str = Field(min_length=1)


class WhyArgs(_Args):
    symbol: str | None = Field(
        None, min_length=1, max_length=1024, description="default: the symbol at `position`"
    )
    position: Pos | None = Field(None, description="in the document `uri`")
    commits: int = Field(20, ge=0, le=200)
    related: int = Field(5, ge=0, le=20)


class WakeUpArgs(_Args):
    budget_chars: int = Field(4000, ge=200, le=100_000)


def parse(model: type[_Args], raw: Any) -> Any:
    """Validate a command's one argument object; one line of error on bad input."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidInputError("the command takes one JSON object as its argument")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        raise InvalidInputError(f"{where}: {err['msg']}") from None


# -- implementations ---------------------------------------------------------------------------


def save_selection(folder: Folder, ctx: Context, args: SaveSelectionArgs) -> dict[str, Any]:
    """Save the selected text as a note anchored to the innermost enclosing symbol."""
    rng = args.range
    selected = slice_text(
        ctx.lines, (rng.start.line, rng.start.character), (rng.end.line, rng.end.character)
    )
    body = (args.text or selected).strip("\n")
    if not body.strip():
        raise InvalidInputError("nothing selected and no text given")
    first, last = rng.start.line + 1, max(rng.start.line, _last(rng)) + 1
    sym = innermost(ctx.symbols, first, last)
    where = f"{ctx.rel}:{first}-{last}"
    label = sym.qualified_name.split("::", 1)[-1] if sym else ctx.rel
    title = (args.title or "").strip() or folder.brain.title_from(f"{label}: {_first_line(body)}")
    content = f"{title}\n\n{body}\n\n(from {where})"
    metadata = {"path": ctx.rel, "lines": [first, last]}
    if sym:
        metadata["symbol"] = sym.qualified_name
    result = folder.brain.write(content, title=title, tags=args.tags, metadata=metadata)
    anchored = _anchor(folder, result.document.id, sym.qualified_name if sym else None)
    return {
        "note": result.document.model_dump(exclude={"content"}),
        "created": result.created,
        "anchored_to": anchored,
    }


def record_decision(
    folder: Folder, ctx: Context | None, args: RecordDecisionArgs
) -> dict[str, Any]:
    """A decision note (tag ``decision``), anchored to the symbol at the range if any."""
    selected = ""
    sym = None
    if ctx is not None and args.range is not None:
        r = args.range
        selected = slice_text(
            ctx.lines, (r.start.line, r.start.character), (r.end.line, r.end.character)
        )
        sym = innermost(ctx.symbols, r.start.line + 1, max(r.start.line, _last(r)) + 1)
    text = (args.text or "").strip() or selected.strip()
    title = (args.title or "").strip()
    if not text and not title:
        raise InvalidInputError("a decision needs a title or text")
    title = title or folder.brain.title_from(f"Decision: {_first_line(text)}")
    content = f"{title}\n\n{text}" if text and text != title else title
    metadata: dict[str, Any] = {}
    if ctx is not None:
        metadata["path"] = ctx.rel
    if sym is not None:
        metadata["symbol"] = sym.qualified_name
    result = folder.brain.write(
        content, title=title, tags=["decision", *args.tags], metadata=metadata
    )
    anchored = _anchor(folder, result.document.id, sym.qualified_name if sym else None)
    return {
        "note": result.document.model_dump(exclude={"content"}),
        "created": result.created,
        "anchored_to": anchored,
    }


def supersede(folder: Folder, ctx: Context | None, args: SupersedeArgs) -> dict[str, Any]:
    """Replace note ``old`` by an existing note ``new`` or by new text (kept anchored)."""
    old = folder.brain.get(args.old)
    if args.new:
        folder.brain.supersede(old.id, args.new)
        new = folder.brain.get(args.new)
    else:
        text = (args.text or "").strip()
        if not text and ctx is not None and args.range is not None:
            r = args.range
            text = slice_text(
                ctx.lines, (r.start.line, r.start.character), (r.end.line, r.end.character)
            ).strip()
        if not text:
            raise InvalidInputError("supersede needs `new` (a note id) or the new `text`")
        title = (args.title or "").strip() or folder.brain.title_from(f"{old.title} (revised)")
        new = folder.brain.write(
            f"{title}\n\n{text}", title=title, tags=old.tags, collection=old.collection,
            metadata=old.metadata, supersedes=old.id,
        ).document  # fmt: skip
    anchored = []
    for anchor in folder.workspace.code.anchors(note=old.id):
        if _anchor(folder, new.id, anchor.qualified_name):
            anchored.append(anchor.qualified_name)
    return {"old": old.id, "note": new.model_dump(exclude={"content"}), "anchored_to": anchored}


def retract(folder: Folder, args: RetractArgs) -> dict[str, Any]:
    doc = folder.brain.retract(args.id, reason=args.reason)
    return {"note": doc.model_dump(exclude={"content"})}


def search(folder: Folder, ctx: Context | None, args: SearchArgs) -> dict[str, Any]:
    """Structured results for pickers; an explicit search counts as access (track)."""
    query = (args.query or "").strip()
    if not query and ctx is not None and args.range is not None:
        r = args.range
        query = slice_text(
            ctx.lines, (r.start.line, r.start.character), (r.end.line, r.end.character)
        ).strip()
        if not query:
            sym = innermost(ctx.symbols, r.start.line + 1, r.start.line + 1)
            query = f"{sym.name} {sym.signature}" if sym else ""
    if not query:
        raise InvalidInputError("query is empty")
    request = validate_request(
        query=query[:4000], limit=args.limit, mode=args.mode, kind=args.kind, tags=args.tags,
        collection=args.collection,
    )  # fmt: skip
    response = folder.brain.search(request)
    return {
        "workspace": str(folder.root),
        "query": response.query,
        "legs": response.legs,
        "results": [hit.model_dump(exclude={"content", "explain"}) for hit in response.results],
        "partial": response.partial,
    }


def notes(folder: Folder, ctx: Context | None, args: NotesArgs) -> dict[str, Any]:
    anchors = anchors_of(folder, [args.symbol])
    views = note_views(folder, anchors, ctx, 400)
    return {
        "symbol": args.symbol,
        "notes": [
            {
                "id": v.id,
                "title": v.title,
                "status": v.status,
                "tags": list(v.tags),
                "collection": v.collection,
                "created_at": iso(v.created_at),
                "stale": v.stale,
                "author": v.author,
                "snippet": v.snippet,
            }  # fmt: skip
            for v in views
        ],
    }


def why_view(folder: Folder, ctx: Context | None, args: WhyArgs) -> dict[str, Any]:
    """The full "why" view of a symbol (named, or under the cursor): Markdown in `text`."""
    symbol = args.symbol
    if symbol is None and ctx is not None and args.position is not None:
        symbol = symbol_at(ctx, args.position.line, args.position.character)
    if not symbol:
        raise InvalidInputError("no symbol: pass `symbol`, or `uri` and `position` on one")
    return folder.reader.why(symbol, commits=args.commits, related=args.related).model_dump()


def wake_up(folder: Folder, args: WakeUpArgs) -> dict[str, Any]:
    return folder.brain.wake_up(budget_chars=args.budget_chars).model_dump()


def _anchor(folder: Folder, note_id: str, qualified_name: str | None) -> str | None:
    """Anchor when the symbol is in the index (a file never saved is not); else None."""
    if qualified_name is None:
        return None
    try:
        return folder.workspace.code.anchor(note_id, qualified_name).qualified_name
    except NanoBrainError:
        return None


def _last(r: Span) -> int:
    if r.end.character == 0 and r.end.line > r.start.line:
        return r.end.line - 1
    return r.end.line


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "note")
