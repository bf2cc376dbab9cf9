"""Posting a hook event to the workspace's running server (unix socket or loopback TCP).

One HTTP/1.1 request on a plain socket, ``Connection: close``, the answer read to the end:
`http.client` would cost a hook process more to import (it loads the email parser) than the
server takes to answer.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..serving.statefiles import Endpoint, read_private

MAX_ANSWER_BYTES = 1024 * 1024 + 16384
"""An answer (headers and body) larger than this is not read: the hook answers itself."""


def post_hook(endpoint: Endpoint, path: str, body: bytes, timeout: float) -> dict[str, Any] | None:
    """The server's JSON answer ({} when it adds nothing); None when it did not answer (not
    listening, an error status, a timeout): the caller answers itself."""
    if timeout <= 0.05:
        return None
    url = urlsplit(endpoint.url)
    headers = [
        f"POST {path} HTTP/1.1",
        f"Host: {url.netloc or 'localhost'}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    try:
        if endpoint.auth and endpoint.token_file:
            token = read_private(Path(endpoint.token_file)).strip()
            headers.append(f"Authorization: Bearer {token}")
        answer = _exchange(endpoint, url.hostname, url.port, _request(headers, body), timeout)
    except (OSError, ValueError):
        return None
    return _parse(answer)


def _request(headers: list[str], body: bytes) -> bytes:
    return ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1") + body


def _exchange(
    endpoint: Endpoint, host: str | None, port: int | None, request: bytes, timeout: float
) -> bytes:
    if endpoint.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address: Any = endpoint.socket
    else:
        sock = socket.socket(socket.AF_INET6 if host and ":" in host else socket.AF_INET)
        address = (host or "127.0.0.1", port or 80)
    with sock:
        sock.settimeout(timeout)
        sock.connect(address)
        sock.sendall(request)
        parts: list[bytes] = []
        size = 0
        while chunk := sock.recv(65536):
            parts.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise ValueError("answer too large")
    return b"".join(parts)


def _parse(answer: bytes) -> dict[str, Any] | None:
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].split()
    if len(status_line) < 2 or not status_line[0].startswith(b"HTTP/1."):
        return None
    if status_line[1] == b"204":
        return {}
    if status_line[1] != b"200":
        return None
    if b"transfer-encoding: chunked" in head.lower():
        return None  # the route answers with a length; anything else is not ours
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
