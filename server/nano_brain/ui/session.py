"""One-time codes: how a browser page gets the workspace's bearer token without a URL that
carries it.

`nano-brain ui` opens `http://127.0.0.1:PORT/#code=CODE`. The fragment never reaches a server
(no access log, no Referer); the page reads it, removes it from the address bar and history
with `history.replaceState`, and posts the code to `/api/session`, which answers with the
token once. The code works once and for a few minutes, so the copy that stays in the browser
process's argv (readable by other local users in /proc) or in a shell's history is worth
nothing after the page opened. The page keeps the token in memory only: not in a cookie
(cookies are not separated by port, so every other local server on 127.0.0.1 would receive
it) and not in web storage (a later server on the same port could read it).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable

CODE_TTL_SECONDS = 300.0
MAX_OPEN_CODES = 16


class OneTimeCodes:
    """Codes that each trade once, before they expire, for the token. Thread-safe."""

    def __init__(
        self, *, ttl: float = CODE_TTL_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._codes: dict[str, float] = {}

    def mint(self) -> str:
        """A new code; the oldest open one is dropped when too many are open."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._expire()
            while len(self._codes) >= MAX_OPEN_CODES:
                self._codes.pop(next(iter(self._codes)))
            self._codes[code] = self._clock() + self._ttl
        return code

    def redeem(self, presented: str) -> bool:
        """True once for a code minted here and not yet expired or redeemed."""
        data = presented.encode("utf-8", "replace")
        with self._lock:
            self._expire()
            # compare with every open code in constant time: the set is tiny
            match = None
            for code in self._codes:
                if hmac.compare_digest(code.encode(), data):
                    match = code
            if match is None:
                return False
            del self._codes[match]
            return True

    def _expire(self) -> None:
        now = self._clock()
        for code in [c for c, until in self._codes.items() if until <= now]:
            del self._codes[code]
