"""HTTP-side protection: the per-workspace bearer token, Host/Origin checks, bind policy.

A local HTTP server is reachable by any web page the user opens (DNS rebinding makes
`evil.example` resolve to 127.0.0.1), and by any local user. So: loopback or a 0600 unix
socket by default, a bearer token on every request, and Host/Origin must name a loopback
address unless the operator explicitly opened the server with `--allow-remote`.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from .. import paths
from ..errors import InvalidInputError

log = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def workspace_state_dir(workspace_id: str) -> Path:
    """`<XDG state>/nano-brain/workspaces/<id>`: token and endpoint files, mode 0700."""
    folder = paths.state_dir() / "workspaces" / workspace_id
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    return folder


def token_path(workspace_id: str) -> Path:
    return workspace_state_dir(workspace_id) / "mcp-token"


def load_or_create_token(workspace_id: str) -> str:
    """The workspace's bearer token, generated (0600, never rewritten) on first use."""
    path = token_path(workspace_id)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path)
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
    log.info("generated MCP bearer token in %s", path)
    return token


def _read_token(path: Path) -> str:
    token = path.read_text(encoding="ascii").strip()
    if len(token) < 32:
        raise InvalidInputError(f"token file {path} is damaged; delete it to get a new one")
    if path.stat().st_mode & 0o077:
        log.warning("token file %s was readable by others; fixing its mode to 0600", path)
        os.chmod(path, 0o600)
    return token


def is_loopback(host: str) -> bool:
    """True for localhost and loopback IP literals (brackets allowed, port not)."""
    host = host.strip().lower().strip("[]")
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, auth: bool, allow_remote: bool) -> None:
    """Refuse a bind that would expose the store: beyond loopback needs auth + allow_remote."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise InvalidInputError(
            f"refusing to bind {host}: not a loopback address (pass --allow-remote to expose "
            "the workspace's memory to the network)"
        )
    if not auth:
        raise InvalidInputError(f"refusing to bind {host} without authentication")


def _split_host(value: str) -> str:
    """The host part of a Host header value (`[::1]:8080` -> `::1`, `a.b:80` -> `a.b`)."""
    value = value.strip()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HttpGuard:
    """ASGI middleware in front of the MCP app: Host, then Origin, then the bearer token.

    Responses: 421 for a foreign Host, 403 for a foreign Origin, 401 for a missing or wrong
    token; nothing reaches the MCP layer (or the store) before all three pass.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        allow_remote: bool = False,
        extra_hosts: Iterable[str] = (),
    ) -> None:
        self._app = app
        self._token = token.encode() if token else None
        self._allow_remote = allow_remote
        self._extra_hosts = {h.lower() for h in extra_hosts}

    def _host_ok(self, host: str) -> bool:
        name = _split_host(host).lower()
        return is_loopback(name) or self._allow_remote or name in self._extra_hosts

    def _origin_ok(self, origin: str, host: str) -> bool:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        if is_loopback(parts.hostname):
            return True
        # A remote client's browser page served by this very host is same-origin.
        return self._allow_remote and parts.netloc.lower() == host.lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if not host or not self._host_ok(host):
            log.warning("refused request with Host %r (DNS rebinding protection)", host)
            await _respond(send, 421, "Misdirected request: Host is not a loopback address")
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin, host):
            log.warning("refused request with Origin %r", origin)
            await _respond(send, 403, "Forbidden: Origin is not allowed")
            return
        if self._token is not None:
            scheme, _, presented = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                presented.strip().encode(), self._token
            ):
                await _respond(
                    send,
                    401,
                    "Unauthorized: send Authorization: Bearer <token> (see nano-brain mcp-config)",
                    extra=[(b"www-authenticate", b'Bearer realm="nano-brain"')],
                )
                return
        await self._app(scope, receive, send)


async def _respond(
    send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
