"""Posting a hook event to the workspace's running server (unix socket or loopback TCP)."""

from __future__ import annotations

import http.client
import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..serving.statefiles import Endpoint, read_private


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


def post_hook(endpoint: Endpoint, path: str, body: bytes, timeout: float) -> dict[str, Any] | None:
    """The server's JSON answer ({} when it adds nothing); None when it did not answer (not
    listening, an error status, a timeout): the caller answers itself."""
    if timeout <= 0.05:
        return None
    url = urlsplit(endpoint.url)
    headers = {"Content-Type": "application/json", "Host": url.netloc or "localhost"}
    try:
        if endpoint.auth and endpoint.token_file:
            headers["Authorization"] = f"Bearer {read_private(Path(endpoint.token_file)).strip()}"
        if endpoint.socket:
            conn: http.client.HTTPConnection = _UnixConnection(endpoint.socket, timeout)
        else:
            conn = http.client.HTTPConnection(
                url.hostname or "127.0.0.1", url.port, timeout=timeout
            )
        try:
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read(1024 * 1024)
        finally:
            conn.close()
    except (OSError, http.client.HTTPException, ValueError):
        return None
    if response.status == 204:
        return {}
    if response.status != 200:
        return None
    try:
        answer = json.loads(data)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None
