"""Page sessions: how a browser page gets a credential of its own without a URL that carries
one, and why a copy of the link is worth little to anyone else.

`nano-brain ui` opens `http://127.0.0.1:PORT/#code=CODE`. The fragment never reaches a server
(no access log, no Referer); the page reads it, removes it from the address bar and history
with `history.replaceState`, and posts the code to `/api/session`, which answers with a page
token. The page keeps that token in memory only: not in a cookie (cookies are not separated
by port, so every other local server on 127.0.0.1 would receive it) and not in web storage (a
later server on the same port could read it).

What the code buys is the page and nothing more: a page token is random, minted by this page
server for one redemption, held in its memory only, and accepted by the page's API alone;
never by the MCP endpoint, never by `/api/code` (which mints codes for `nano-brain ui`, and
takes the workspace's token). It dies with the server.

The link also sits where others may read it: the browser's command line (`/proc/PID/cmdline`
is readable by every local user), a terminal's scrollback, a shell's history. Whoever
presents a code first gets the session, so:

- a code works once, for five minutes (`CODE_TTL_SECONDS`);
- on Linux the page server honours a code only on a connection whose socket belongs to the
  user running it (or root), read from the kernel's socket table (see `peer.py`): another
  local user who copies the link is refused before the code is even looked at;
- a code presented a second time ends the session it opened. Two presentations mean two
  parties had the link, and the server cannot tell which one is the user's browser: it trusts
  neither. A thief who wins the race to the first presentation keeps the session only until
  the real page presents the code a moment later; the page then says the link was used
  elsewhere, and a fresh `nano-brain ui` gives a new one.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

CODE_TTL_SECONDS = 300.0
MAX_OPEN_CODES = 16
MAX_SESSIONS = 32
"""Page sessions open at once (a browser tab or an editor panel each); the oldest ends."""


@dataclass(frozen=True, slots=True)
class Redemption:
    """What presenting a code gave: a page token, or why not."""

    outcome: Literal["opened", "replayed", "refused"]
    token: str | None = None


def _digest(secret: str) -> bytes:
    # Secrets are kept and looked up by their hash: a lookup's timing says nothing about
    # the secret, and nothing held here can be presented back.
    return hashlib.sha256(secret.encode("utf-8", "replace")).digest()


class PageSessions:
    """One-time codes, and the page tokens they were traded for. Thread-safe."""

    def __init__(
        self, *, ttl: float = CODE_TTL_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._codes: OrderedDict[bytes, float] = OrderedDict()  # open code -> expiry
        # live page token -> the code that opened it, and back (to end it on a replay)
        self._tokens: OrderedDict[bytes, bytes] = OrderedDict()
        self._opened_by: dict[bytes, bytes] = {}

    def mint(self) -> str:
        """A new code; the oldest open one is dropped when too many are open."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._expire()
            while len(self._codes) >= MAX_OPEN_CODES:
                self._codes.popitem(last=False)
            self._codes[_digest(code)] = self._clock() + self._ttl
        return code

    def redeem(self, presented: str) -> Redemption:
        """A new page token for an open code (which closes); a used code ends the session
        it opened (`replayed`); anything else is `refused`."""
        code = _digest(presented)
        with self._lock:
            self._expire()
            if self._codes.pop(code, None) is not None:
                token = secrets.token_urlsafe(32)
                self._open(code, _digest(token))
                return Redemption("opened", token)
            opened = self._opened_by.pop(code, None)
            if opened is not None:
                del self._tokens[opened]
                return Redemption("replayed")
            return Redemption("refused")

    def valid(self, token: str) -> bool:
        """Whether `token` is a live page token of this server."""
        digest = _digest(token)
        with self._lock:
            return digest in self._tokens

    def _open(self, code: bytes, token: bytes) -> None:
        while len(self._tokens) >= MAX_SESSIONS:
            _, old_code = self._tokens.popitem(last=False)
            self._opened_by.pop(old_code, None)
        self._tokens[token] = code
        self._opened_by[code] = token

    def _expire(self) -> None:
        now = self._clock()
        while self._codes and next(iter(self._codes.values())) <= now:
            self._codes.popitem(last=False)
