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
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import InvalidInputError
from .statefiles import create_private_once, read_private, token_path

log = logging.getLogger(__name__)


def load_or_create_token(workspace_id: str) -> str:
    """The workspace's bearer token, generated (0600, never rewritten) on first use."""
    path = token_path(workspace_id)
    token = secrets.token_urlsafe(32)
    if create_private_once(path, token + "\n"):
        log.info("generated MCP bearer token in %s", path)
        return token
    return _read_token(path)


def _read_token(path: Path) -> str:
    try:
        token = read_private(path, limit=4096).strip()
    except OSError as exc:
        raise InvalidInputError(f"cannot read token file {path}: {exc.strerror}") from exc
    if len(token) < 32 or not token.isascii() or not token.isprintable():
        raise InvalidInputError(f"token file {path} is damaged; delete it to get a new one")
    return token


def is_loopback(host: str) -> bool:
    """True for a loopback bind address: `localhost`, 127.0.0.0/8 or ::1 (brackets allowed,
    port not); the same rule the Host check applies."""
    value = host.strip()
    if ":" in value and not value.startswith("["):
        value = f"[{value}]"  # a bare IPv6 address, as --host takes it
    parsed = parse_host_port(value)
    return parsed is not None and parsed.port is None and parsed.is_loopback()


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


@dataclass(frozen=True, slots=True)
class HostPort:
    """A parsed `host[:port]`: the host lowercased, an IPv6 address without brackets."""

    host: str
    port: int | None
    kind: Literal["name", "ipv4", "ipv6"]

    def is_loopback(self) -> bool:
        """`localhost` exactly, 127.0.0.0/8 or ::1; never `localhost.` or `*.localhost`."""
        if self.kind == "name":
            return self.host == "localhost"
        if self.kind == "ipv6":
            return self.host == "::1"
        return ipaddress.IPv4Address(self.host).is_loopback

    def same_authority(self, other: HostPort, default_port: int) -> bool:
        return self.host == other.host and (self.port or default_port) == (
            other.port or default_port
        )


# RFC 3986 authority without userinfo: a bracketed IPv6 address, or a name / dotted IPv4,
# then an optional numeric port; nothing else (no `@`, no path, no zone id, no spaces).
_HOST_PORT = re.compile(
    r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]{2,45})\]|(?P<name>[A-Za-z0-9_.-]{1,253}))"
    r"(?::(?P<port>[0-9]{1,5}))?"
)
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<authority>[^/?#@\s]*)")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_host_port(value: str) -> HostPort | None:
    """`value` as host[:port] (a Host header, an origin's authority); None if malformed.

    A name whose last label is numeric must be a dotted-quad IPv4 address: `127.1` or
    `0x7f.0.0.1` would mean 127.0.0.1 to a browser, so they are malformed, not foreign.
    """
    match = _HOST_PORT.fullmatch(value)
    if match is None:
        return None
    port_text = match["port"]
    port = int(port_text) if port_text is not None else None
    if port is not None and not 0 < port <= 65535:
        return None
    if match["ipv6"] is not None:
        try:
            address = ipaddress.IPv6Address(match["ipv6"])
        except ValueError:
            return None
        return HostPort(str(address), port, "ipv6")
    name = match["name"].lower()
    labels = name[:-1].split(".") if name.endswith(".") else name.split(".")
    if any(_LABEL.fullmatch(label) is None for label in labels):
        return None
    if labels[-1].isdigit() or labels[-1].startswith("0x"):
        if name.endswith("."):
            return None
        try:
            return HostPort(str(ipaddress.IPv4Address(name)), port, "ipv4")
        except ValueError:
            return None
    return HostPort(name, port, "name")


def parse_origin(value: str) -> tuple[str, HostPort] | None:
    """An Origin header as (scheme, host:port); None unless it is a serialized http(s) origin
    (no path, no userinfo, not `null`)."""
    match = _ORIGIN.fullmatch(value)
    if match is None:
        return None
    scheme = match["scheme"].lower()
    if scheme not in _DEFAULT_PORTS:
        return None
    authority = parse_host_port(match["authority"])
    return (scheme, authority) if authority is not None else None


class HttpGuard:
    """ASGI middleware in front of the MCP app: Host, then Origin, then the bearer token.

    Responses: 400 for a missing, repeated or malformed Host (RFC 9112 section 3.2), 421 for a
    well-formed foreign Host, 403 for a foreign, malformed or repeated Origin, 401 for a
    missing, wrong or repeated token. Nothing reaches the MCP layer (or the store) before all
    three pass. Only `localhost`, 127.0.0.0/8 and `[::1]` are loopback names; `--allow-remote`
    accepts any well-formed Host, and an Origin only when it is loopback or this very Host.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        allow_remote: bool = False,
        extra_hosts: Iterable[str] = (),
        verify: Callable[[str], bool] | None = None,
    ) -> None:
        """`token` is the one bearer token accepted; or `verify` says which are (the memory
        page's tokens, minted while it runs); neither: no token needed."""
        self._app = app
        self._token = token.encode() if token else None
        self._verify = verify
        self._unauthorized = (
            "Unauthorized: send Authorization: Bearer <token> (see nano-brain mcp-config)"
            if verify is None
            else "Unauthorized: this page's session has ended; run `nano-brain ui` again"
        )
        self._allow_remote = allow_remote
        self._extra_hosts = {h.lower() for h in extra_hosts}

    def _host_ok(self, host: HostPort) -> bool:
        return host.is_loopback() or self._allow_remote or host.host in self._extra_hosts

    def _origin_ok(self, origin: str, host: HostPort) -> bool:
        parsed = parse_origin(origin)
        if parsed is None:
            return False
        scheme, authority = parsed
        if authority.is_loopback():
            return True
        # A remote client's browser page served by this very host is same-origin.
        return self._allow_remote and authority.same_authority(host, _DEFAULT_PORTS[scheme])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets: the MCP app serves none
            await send({"type": "websocket.close", "code": 1008})
            return
        headers: dict[str, list[str]] = {}
        for key, value in scope["headers"]:
            headers.setdefault(key.decode("latin-1").lower(), []).append(value.decode("latin-1"))
        hosts = headers.get("host", [])
        host = parse_host_port(hosts[0]) if len(hosts) == 1 else None
        if host is None:
            log.warning("refused request with malformed Host %s", _shown(hosts))
            await _respond(send, 400, "Bad request: one well-formed Host header is required")
            return
        if not self._host_ok(host):
            log.warning("refused request with Host %s (DNS rebinding protection)", _shown(hosts))
            await _respond(send, 421, "Misdirected request: Host is not a loopback address")
            return
        origins = headers.get("origin", [])
        if origins and (len(origins) > 1 or not self._origin_ok(origins[0], host)):
            log.warning("refused request with Origin %s", _shown(origins))
            await _respond(send, 403, "Forbidden: Origin is not allowed")
            return
        needs_token = self._token is not None or self._verify is not None
        if needs_token and not self._token_ok(headers.get("authorization", [])):
            await _respond(
                send,
                401,
                self._unauthorized,
                extra=[(b"www-authenticate", b'Bearer realm="nano-brain"')],
            )
            return
        await self._app(scope, receive, send)

    def _token_ok(self, values: list[str]) -> bool:
        """Exactly one `Authorization: Bearer <token>`; never logged, compared in constant time."""
        if len(values) != 1:
            return False
        scheme, _, presented = values[0].partition(" ")
        if scheme.lower() != "bearer":
            return False
        if self._verify is not None:
            return self._verify(presented.strip())
        assert self._token is not None
        return hmac.compare_digest(presented.strip().encode("latin-1"), self._token)


def _shown(values: list[str]) -> str:
    """Header values for a log line: escaped and bounded (they are attacker-controlled)."""
    text = repr(values[0]) if len(values) == 1 else f"{len(values)} values"
    return text if len(text) <= 120 else text[:119] + "…"


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
