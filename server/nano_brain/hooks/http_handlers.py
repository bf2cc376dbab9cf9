"""Claude Code's HTTP hook handlers pointed at a running `nano-brain serve`.

Claude Code (v2.1.63+) can POST a hook's input to a URL instead of running a command; the
server answers at ``/hooks/<agent>/<event>`` with the warm store and embedding models. The
bearer token travels in a header, in clear over http, so the URL must stay on loopback; the
settings file names the token's environment variable, never the token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..brief.hookio import EVENTS
from ..errors import InvalidInputError
from ..serving.security import is_loopback

TOKEN_ENV = "NANO_BRAIN_HOOK_TOKEN"
"""The variable Claude Code reads the workspace's bearer token from (see `mcp-config`)."""

ROUTE = "/hooks"
"""The server's hook route: ``<base>/hooks/<agent>/<event>``."""


def base_url(url: str) -> str:
    """`url` checked as a server's base URL (http, a loopback host), without a trailing
    slash; an error that says why otherwise."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:
        raise InvalidInputError(f"--http {url!r} is not a URL: {exc}") from None
    if parts.scheme != "http" or not parts.hostname:
        raise InvalidInputError(f"--http {url!r}: expected http://HOST:PORT")
    if parts.username is not None or parts.query or parts.fragment:
        raise InvalidInputError(f"--http {url!r}: no user, query or fragment, only a base URL")
    if not is_loopback(parts.hostname):
        raise InvalidInputError(
            f"--http {url!r}: not a loopback host (127.0.0.1, ::1 or localhost); the bearer "
            "token would travel in clear"
        )
    return parts.geturl().rstrip("/")


def port_of(base: str) -> int:
    """The port a base URL from `base_url` names (http's 80 when none)."""
    return urlsplit(base).port or 80


def event_url(base: str, agent: str, arg: str) -> str:
    """Where the server answers `agent`'s hook for the runner event `arg`."""
    return f"{base}{ROUTE}/{agent}/{arg}"


def http_handler(base: str, agent: str, arg: str, timeout: int) -> dict[str, Any]:
    """The HTTP handler we write for `agent`'s runner event `arg`."""
    return {
        "type": "http",
        "url": event_url(base, agent, arg),
        "timeout": timeout,
        "headers": {"Authorization": f"Bearer ${TOKEN_ENV}"},
        "allowedEnvVars": [TOKEN_ENV],
    }


def split_ours(handler: Any, agents: tuple[str, ...]) -> tuple[str, str] | None:
    """(base URL, runner event) of an HTTP handler of ours: its URL's path ends with
    ``/hooks/<one of agents>/<event>``; None for any other handler."""
    if not isinstance(handler, dict) or handler.get("type") != "http":
        return None
    url = handler.get("url")
    if not isinstance(url, str):
        return None
    try:
        path = urlsplit(url).path
    except ValueError:
        return None
    for agent in agents:
        for event in EVENTS:
            suffix = event_url("", agent, event)
            if path.endswith(suffix):
                return url[: url.rindex(suffix)], event
    return None
