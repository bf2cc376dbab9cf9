"""A loopback listener that records every connection made to it: where a hostile repository's
config points the product, so a test can assert that nothing (or something) connected."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Capture:
    """What reached the listener: one bytes object per connection (its first bytes)."""

    port: int
    received: list[bytes] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def connections(self) -> int:
        with self.lock:
            return len(self.received)

    def all_bytes(self) -> bytes:
        with self.lock:
            return b"\n".join(self.received)


def _serve(sock: socket.socket, capture: Capture, stop: threading.Event) -> None:
    sock.settimeout(0.1)
    while not stop.is_set():
        try:
            conn, _ = sock.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        with conn:
            conn.settimeout(1.0)
            data = b""
            try:  # the request line and headers are enough to see what was sent
                while b"\r\n\r\n" not in data and len(data) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            with capture.lock:
                capture.received.append(data)


@contextmanager
def capture_server() -> Iterator[Capture]:
    """A listener on 127.0.0.1 that accepts, records and closes every connection."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    capture = Capture(sock.getsockname()[1])
    stop = threading.Event()
    thread = threading.Thread(target=_serve, args=(sock, capture, stop), daemon=True)
    thread.start()
    try:
        yield capture
    finally:
        stop.set()
        thread.join(5)
        sock.close()
