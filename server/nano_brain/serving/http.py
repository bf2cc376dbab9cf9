"""Serve an ASGI app on a socket opened here, with uvicorn, until stopped.

Listeners are opened here (not by uvicorn) so a free port is known before serving starts
and a unix socket is 0600 before it accepts its first connection; the caller writes its
endpoint file once the server accepts connections (`serve_announced`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from ..errors import InvalidInputError


def open_listener(host: str, port: int, socket_path: Path | None) -> socket.socket:
    """A listening socket: TCP on host:port (0 = a free port) or a 0600 unix socket."""
    if socket_path is not None:
        return _unix_listener(socket_path)
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InvalidInputError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(128)
    return sock


def _unix_listener(path: Path) -> socket.socket:
    path = path.expanduser().absolute()
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise InvalidInputError(f"{path} exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # a stale socket left by a server that died
        else:
            raise InvalidInputError(f"another server is already listening on {path}")
        finally:
            probe.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)  # the socket is born 0600: no window where others may connect
    try:
        sock.bind(str(path))
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    sock.listen(128)
    return sock


def listener_url(sock: socket.socket, socket_path: Path | None, path: str) -> str:
    """The URL of `path` on the listener: `http://localhost<path>` over a unix socket, else
    host:port (an IPv6 host in brackets)."""
    if socket_path is not None:
        return f"http://localhost{path}"
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def uvicorn_server(app: ASGIApp) -> uvicorn.Server:
    """uvicorn for our app: no logging config of its own, no access log (URLs stay private)."""
    config = uvicorn.Config(
        app, log_config=None, log_level="warning", access_log=False, lifespan="on"
    )
    return uvicorn.Server(config)


async def serve_announced(
    server: uvicorn.Server, sock: socket.socket, on_started: Callable[[], None]
) -> None:
    """Serve on `sock` until stopped; `on_started` runs once it accepts connections (the
    moment to write the endpoint file), never if startup fails."""
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.005)
    if server.started:
        on_started()
    await task


@contextmanager
def absorb_resent_signals() -> Iterator[None]:
    """uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown; absorb that re-raise
    while the block runs so the caller cleans up its socket and files and the process exits
    0. The previous handlers are back afterwards. Off the main thread (where no signal
    handler can be set) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve_until_stopped(
    server: uvicorn.Server, sock: socket.socket, on_started: Callable[[], None]
) -> None:
    """Serve on `sock` until SIGINT/SIGTERM (see `serve_announced`), then close it; the
    caller removes its own files after this returns or raises."""
    try:
        with absorb_resent_signals():
            asyncio.run(serve_announced(server, sock, on_started))
    finally:
        sock.close()
