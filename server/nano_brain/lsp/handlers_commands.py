"""The handlers of the commands (save a selection, record a decision, supersede, retract,
notes, wake up, why) and of the ``nano-brain/search`` request.

Each validates its arguments (`commands.parse`), finds the folder and document, runs one
function of :mod:`.commands`, and turns the caller's mistakes into one clear JSON-RPC error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ..errors import NanoBrainError
from . import commands as cmd
from . import features
from .server import NanoBrainServer
from .workspaces import Folder

SEARCH_REQUEST = "nano-brain/search"

_Impl = Callable[..., dict[str, Any]]


def register(server: NanoBrainServer) -> None:
    """Register this module's handlers on ``server``."""
    server.handle(SEARCH_REQUEST, search_request, on_thread=True)
    _command(server, cmd.SAVE_SELECTION, cmd.SaveSelectionArgs, _save_selection)
    _command(server, cmd.RECORD_DECISION, cmd.RecordDecisionArgs, _record_decision)
    _command(server, cmd.SUPERSEDE, cmd.SupersedeArgs, _supersede)
    _command(server, cmd.SEARCH_RELATED, cmd.SearchArgs, _search)
    _command(server, cmd.RETRACT, cmd.RetractArgs, _retract)
    _command(server, cmd.NOTES, cmd.NotesArgs, _notes)
    _command(server, cmd.WAKE_UP, cmd.WakeUpArgs, _wake_up)
    _command(server, cmd.WHY, cmd.WhyArgs, _why)


def search_request(ls: NanoBrainServer, params: Any) -> dict[str, Any]:
    return _run(ls, cmd.SearchArgs, params, _search)


def _command(server: NanoBrainServer, name: str, model: type[Any], impl: _Impl) -> None:
    @server.command(name)
    @server.thread()
    def run(ls: NanoBrainServer, *args: Any) -> dict[str, Any]:
        return _run(ls, model, args[0] if args else None, impl, announce=name)


def _run(
    ls: NanoBrainServer,
    model: type[Any],
    raw: Any,
    impl: _Impl,
    announce: str | None = None,
) -> dict[str, Any]:
    """Validate, resolve the folder, run; errors become a JSON-RPC error with one clear line."""
    try:
        args = cmd.parse(model, _plain(raw))
        folder = ls.documents.folder_for(args.uri, args.root)
        ctx = ls.documents.context(args.uri) if args.uri else None
        result = impl(ls, folder, ctx, args)
    except NanoBrainError as exc:  # the caller's mistake or a missing note: one clear line
        raise JsonRpcInvalidParams(f"{type(exc).__name__}: {exc}") from None
    if announce and "note" in result:
        note = result["note"]
        anchored = result.get("anchored_to")
        where = f", anchored to {anchored}" if isinstance(anchored, str) else ""
        verb = {cmd.RETRACT: "Retracted", cmd.SUPERSEDE: "Superseded by"}.get(announce, "Saved")
        ls.tell_user(
            lsp.MessageType.Info, f"nano-brain: {verb} #{note['id']} {note['title']}{where}"
        )
    if ctx is not None and announce:
        ls.documents.publish(ctx)
    return result


def _plain(value: Any) -> Any:
    """pygls hands custom requests' params over as namedtuples: back to plain JSON values."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _needs_ctx(ctx: features.Context | None) -> features.Context:
    if ctx is None:
        raise NanoBrainError("`uri` must name an open document in a workspace folder")
    return ctx


def _save_selection(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    folder.indexed_once.wait(60)  # anchoring needs the symbol in the index
    return _changed(ls, folder, cmd.save_selection(folder, _needs_ctx(ctx), args))


def _record_decision(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    folder.indexed_once.wait(60)
    return _changed(ls, folder, cmd.record_decision(folder, ctx, args))


def _supersede(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return _changed(ls, folder, cmd.supersede(folder, ctx, args))


def _changed(ls: NanoBrainServer, folder: Folder, result: dict[str, Any]) -> dict[str, Any]:
    """After a note changed: fresh stale hints, and the client asked to re-read code lenses
    (their "N notes" counts), instead of waiting for the next index pass."""
    ls.documents.refresh(folder)
    return result


def _search(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.search(folder, ctx, args)


def _retract(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return _changed(ls, folder, cmd.retract(folder, args))


def _notes(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.notes(folder, ctx, args)


def _wake_up(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.wake_up(folder, args)


def _why(ls: NanoBrainServer, folder: Folder, ctx: Any, args: Any) -> dict[str, Any]:
    return cmd.why_view(folder, ctx, args)
