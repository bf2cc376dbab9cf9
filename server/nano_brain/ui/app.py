"""The memory page as an ASGI app: the static bundle, and a JSON API over one workspace's Brain.

Behind the MCP server's own guard (`serving.security.HttpGuard`: Host, then Origin, then a bearer
token), three kinds of route: the page's API under `/api/` takes a page token (minted for
one page by this server, see `session`); `/api/code`, where a second `nano-brain ui` asks for
a fresh one-time code, takes the workspace's token; `/api/session`, where a code is traded for
a page token, and the page itself and its bundle (public code) take none. Every change goes
through the Brain's methods (confirm, retract, supersede), audited as this Brain's actor (`ui`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, TypeVarTuple

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import jsonlimits
from ..errors import (
    InvalidInputError,
    NanoBrainError,
    NotFoundError,
    StoreCorruptError,
    StoreError,
    StoreReadOnlyError,
)
from ..search import validate_request
from ..serving.security import HttpGuard
from ..workspace import Workspace
from .peer import same_user
from .session import PageSessions
from .views import MemoryViews, TimelineQuery

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
"""A request body is a search or an action: a query of at most 4,000 characters and a few
filters. Anything larger is refused before it is read whole."""
_UID = re.compile(r"[0-9a-f]{12}")
_REPLAYED = (
    "this link was already used, by another page or program, and the session it opened has "
    "been ended. If you did not open it twice, someone else may have it: run `nano-brain ui` "
    "again for a fresh link"
)
_OTHER_USER = "this link only works for the user who ran `nano-brain ui`"
_SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-resource-policy": "same-origin",
}
# The bundle is one script and one stylesheet of our own: nothing inline, nothing remote.
_PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_ASSET_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
}
_STATUS: tuple[tuple[type[NanoBrainError], int], ...] = (
    (InvalidInputError, 400),
    (NotFoundError, 404),
    (StoreReadOnlyError, 409),
    (StoreCorruptError, 503),
    (StoreError, 503),
)

M = TypeVar("M", bound=BaseModel)
_R = TypeVar("_R")
_Args = TypeVarTuple("_Args")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SessionBody(_Strict):
    code: str = Field(min_length=1, max_length=200)


class RetractBody(_Strict):
    reason: str = Field("", max_length=2000)


class SupersedeBody(_Strict):
    """Exactly one: `by` (this document is replaced by that one) or `replaces` (this one
    replaces that one)."""

    by: str | None = Field(None, max_length=13)
    replaces: str | None = Field(None, max_length=13)

    @model_validator(mode="after")
    def _one(self) -> SupersedeBody:
        if (self.by is None) == (self.replaces is None):
            raise ValueError("give exactly one of `by` and `replaces`")
        return self


def static_dir() -> Path:
    """Where the built bundle lives inside the package."""
    return Path(str(resources.files("nano_brain.ui") / "static"))


def load_assets(folder: Path | None = None) -> dict[str, tuple[bytes, str]]:
    """The bundle's files by URL path (read once: the page is a few files of our own)."""
    folder = folder or static_dir()
    assets: dict[str, tuple[bytes, str]] = {}
    if not folder.is_dir():
        return assets
    for path in sorted(folder.iterdir()):
        kind = _ASSET_TYPES.get(path.suffix)
        if kind and path.is_file():
            url = "/" if path.name == "index.html" else f"/assets/{path.name}"
            assets[url] = (path.read_bytes(), kind)
    return assets


def build_app(
    workspace: Workspace,
    *,
    token: str,
    sessions: PageSessions,
    assets: dict[str, tuple[bytes, str]] | None = None,
    allow_remote: bool = False,
) -> ASGIApp:
    """The page and its API for `workspace`, behind the Host/Origin/token guard; `token` is the
    workspace's, good for `/api/code` only."""
    api = _Api(workspace, sessions)
    files = load_assets() if assets is None else assets
    api_router = Router(routes=api.routes())
    code_router = Router(routes=[Route("/api/code", api.code, methods=["POST"])])
    open_router = Router(
        routes=[
            Route("/api/session", api.session, methods=["POST"]),
            Route("/", partial(_asset, files, "/"), methods=["GET", "HEAD"]),
            Route("/assets/{name}", partial(_named_asset, files), methods=["GET", "HEAD"]),
        ]
    )
    guarded_api = HttpGuard(
        api_router, token=None, verify=sessions.valid, allow_remote=allow_remote
    )
    guarded_code = HttpGuard(code_router, token=token, allow_remote=allow_remote)
    guarded_open = HttpGuard(open_router, token=None, allow_remote=allow_remote)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == "/api/code":
            await guarded_code(scope, receive, send)
        elif path.startswith("/api/") and path != "/api/session":
            await guarded_api(scope, receive, send)
        else:
            await guarded_open(scope, receive, send)

    return app


class _Api:
    """The JSON endpoints; each runs its Brain call on a worker thread."""

    def __init__(self, workspace: Workspace, sessions: PageSessions) -> None:
        self.brain = workspace.brain
        self.views = MemoryViews(workspace.brain)
        self._sessions = sessions

    def routes(self) -> list[Route]:
        get, post = ["GET"], ["POST"]
        return [
            Route("/api/info", self._handler(self.info), methods=get),
            Route("/api/search", self._handler(self.search), methods=post),
            Route("/api/timeline", self._handler(self.timeline), methods=get),
            Route("/api/timeline/bucket", self._handler(self.bucket), methods=get),
            Route("/api/review", self._handler(self.review), methods=get),
            Route("/api/map", self._handler(self.code_map), methods=get),
            Route("/api/map/file", self._handler(self.map_file), methods=get),
            Route("/api/log", self._handler(self.log), methods=get),
            Route("/api/documents/{id}", self._handler(self.document), methods=get),
            Route("/api/documents/{id}/diff", self._handler(self.diff), methods=get),
            Route("/api/documents/{id}/confirm", self._handler(self.confirm), methods=post),
            Route("/api/documents/{id}/retract", self._handler(self.retract), methods=post),
            Route("/api/documents/{id}/supersede", self._handler(self.supersede), methods=post),
        ]

    @staticmethod
    def _handler(
        fn: Callable[[Request], Awaitable[Any]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return _json(await fn(request))
            except NanoBrainError as exc:
                status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
                return _json({"error": str(exc)}, status)
            except _BodyTooLarge:
                return _json({"error": f"request body over {MAX_BODY_BYTES} bytes"}, 413)

        return endpoint

    # -- the session ----------------------------------------------------------------------

    async def session(self, request: Request) -> Response:
        """Trade a one-time code for a page token (no token needed; Host and Origin checked)."""
        try:
            body = _model(SessionBody, await _body(request))
        except NanoBrainError as exc:
            return _json({"error": str(exc)}, 400)
        except _BodyTooLarge:
            return _json({"error": "request body too large"}, 413)
        # before the code is looked at: another user cannot even use up the owner's code
        ends = (_address(request.scope.get("client")), _address(request.scope.get("server")))
        if not await _run(same_user, *ends):
            log.warning("refused a one-time code presented by another local user")
            return _json({"error": _OTHER_USER}, 403)
        redeemed = self._sessions.redeem(body.code)
        if redeemed.token is not None:
            return _json({"token": redeemed.token})
        if redeemed.outcome == "replayed":
            log.warning(
                "a one-time code was presented twice: ended the page session it had opened "
                "(the link may have leaked)"
            )
            return _json({"error": _REPLAYED}, 403)
        log.warning("refused a used, expired or unknown one-time code")
        return _json(
            {"error": "this link was already used or has expired: run `nano-brain ui` again"}, 403
        )

    async def code(self, request: Request) -> Response:
        """A fresh one-time code (for a second `nano-brain ui`, which holds the workspace
        token; no page token opens this)."""
        return _json({"code": self._sessions.mint()})

    # -- reads ------------------------------------------------------------------------------

    async def info(self, request: Request) -> dict[str, Any]:
        return await _run(self.views.info)

    async def search(self, request: Request) -> dict[str, Any]:
        body = await _body(request)
        if not isinstance(body, dict):
            raise InvalidInputError("send the search as a JSON object")
        search = validate_request(**body)
        response = await _run(self.brain.search, search)
        return response.model_dump()

    async def timeline(self, request: Request) -> dict[str, Any]:
        return await _run(self.views.timeline, _timeline_query(request))

    async def bucket(self, request: Request) -> dict[str, Any]:
        start = _number(request, "start")
        end = _number(request, "end")
        return await _run(self.views.timeline_bucket, _timeline_query(request), start, end)

    async def review(self, request: Request) -> dict[str, Any]:
        limit = _int(request, "limit", 100, 1, 500)
        return await _run(self.views.review, limit)

    async def code_map(self, request: Request) -> dict[str, Any]:
        return await _run(self.views.code_map)

    async def map_file(self, request: Request) -> dict[str, Any]:
        path = request.query_params.get("path", "")
        if not path or len(path) > 4096:
            raise InvalidInputError("path is required (at most 4096 characters)")
        return await _run(self.views.file_anchors, path)

    async def log(self, request: Request) -> dict[str, Any]:
        limit = _int(request, "limit", 100, 1, 1000)
        ref = request.query_params.get("id")
        entries = await _run(partial(self.brain.log, ref=_uid(ref) if ref else None, limit=limit))
        return {"entries": [e.model_dump() for e in entries]}

    async def document(self, request: Request) -> dict[str, Any]:
        return await _run(self.views.document, _path_uid(request))

    async def diff(self, request: Request) -> dict[str, Any]:
        old = _int(request, "from", 1, 1, 1_000_000)
        new = _int(request, "to", 2, 1, 1_000_000)
        return await _run(self.views.diff, _path_uid(request), old, new)

    # -- changes: the Brain's own methods, audited as `ui` -------------------------------------

    async def confirm(self, request: Request) -> dict[str, Any]:
        await _body(request)  # read (bounded) and ignored: the action takes no options
        doc = await _run(self.brain.confirm, _path_uid(request))
        return doc.model_dump()

    async def retract(self, request: Request) -> dict[str, Any]:
        body = _model(RetractBody, await _body(request))
        doc = await _run(partial(self.brain.retract, _path_uid(request), reason=body.reason))
        return doc.model_dump()

    async def supersede(self, request: Request) -> dict[str, Any]:
        body = _model(SupersedeBody, await _body(request))
        this = _path_uid(request)
        if body.by is not None:
            old, new = this, _uid(body.by)
        else:
            old, new = _uid(body.replaces or ""), this
        await _run(self.brain.supersede, old, new)
        return (await _run(self.brain.get, this)).model_dump(exclude={"content"})


class _BodyTooLarge(Exception):
    pass


async def _run(fn: Callable[[*_Args], _R], *args: *_Args) -> _R:
    """A blocking Brain call on a worker thread (the store serialises its own access)."""
    return await anyio.to_thread.run_sync(partial(fn, *args))


async def _body(request: Request) -> Any:
    """The JSON body, read in pieces and refused past MAX_BODY_BYTES or
    `jsonlimits.MAX_DEPTH` levels of nesting; `{}` when empty."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _BodyTooLarge
    data = bytearray()
    async for piece in request.stream():
        data += piece
        if len(data) > MAX_BODY_BYTES:
            raise _BodyTooLarge
    if not data.strip():
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        # also keeps a cross-site form from posting here without a CORS preflight
        raise InvalidInputError("send the body as application/json")
    return jsonlimits.loads(bytes(data))  # nesting bounded before the recursive parser


def _address(value: Any) -> tuple[str, int] | None:
    """An ASGI scope's (host, port) pair, if it is one (a unix socket has none)."""
    if isinstance(value, list | tuple) and len(value) == 2:
        host, port = value
        if isinstance(host, str) and isinstance(port, int):
            return host, port
    return None


def _model(cls: type[M], data: Any) -> M:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "body"
        raise InvalidInputError(f"{where}: {err['msg']}") from None


def _timeline_query(request: Request) -> TimelineQuery:
    q = request.query_params
    return _model(
        TimelineQuery,
        {
            "kind": q.getlist("kind"),
            "collection": q.getlist("collection"),
            "tags": q.getlist("tag"),
            "status": q.getlist("status"),
            "created_after": q.get("created_after") or None,
            "created_before": q.get("created_before") or None,
        },
    )


def _uid(ref: str) -> str:
    uid = ref.strip().lstrip("#")
    if not _UID.fullmatch(uid):
        raise InvalidInputError(f"{ref[:40]!r} is not a document id (12 hex digits)")
    return uid


def _path_uid(request: Request) -> str:
    return _uid(str(request.path_params["id"]))


def _int(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise InvalidInputError(f"{name} must be a whole number from {low} to {high}")
    return int(text)


def _number(request: Request, name: str) -> float:
    text = request.query_params.get(name, "")
    try:
        value = float(text)
    except ValueError:
        raise InvalidInputError(f"{name} must be a number (epoch seconds)") from None
    return value


def _json(data: Any, status: int = 200) -> Response:
    body = json.dumps(data, ensure_ascii=False, default=str).encode("utf-8")
    return Response(
        body, status, headers=_SECURITY_HEADERS, media_type="application/json; charset=utf-8"
    )


async def _asset(files: dict[str, tuple[bytes, str]], url: str, request: Request) -> Response:
    found = files.get(url)
    if found is None:
        if url == "/":
            return Response(
                "The page's bundle is missing from this install of nano-brain: build it with "
                "`npm run build:ui` in vscode-extension/ (a checkout), or reinstall.",
                503,
                media_type="text/plain; charset=utf-8",
            )
        return Response("Not found", 404, media_type="text/plain; charset=utf-8")
    body, kind = found
    headers = dict(_SECURITY_HEADERS)
    if url == "/":
        headers["content-security-policy"] = _PAGE_CSP
    return Response(body, 200, headers=headers, media_type=kind)


async def _named_asset(files: dict[str, tuple[bytes, str]], request: Request) -> Response:
    return await _asset(files, f"/assets/{request.path_params['name']}", request)
