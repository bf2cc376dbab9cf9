"""Which local user is on the other end of a loopback TCP connection (Linux).

The kernel lists every TCP socket of the network namespace, with the user that owns it, in
`/proc/net/tcp` and `/proc/net/tcp6` (what `ss -e` shows). A client on the same machine
connected to us from `client_ip:client_port` owns the socket whose local address is that
and whose remote address is ours. Elsewhere (macOS, a table that cannot be read, a socket
not found), the answer is None: unknown.
"""

from __future__ import annotations

import logging
import os
import socket
import struct
from pathlib import Path

log = logging.getLogger(__name__)

_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_MAX_TABLE_BYTES = 64 << 20


def _hex_address(ip: str, port: int) -> set[str]:
    """How the table spells `ip:port` (each 32-bit word of the address in host order), in
    both tables: an IPv4 address also as IPv4-mapped IPv6."""
    try:
        packed = socket.inet_pton(socket.AF_INET, ip)
    except OSError:
        try:
            packed6 = socket.inet_pton(socket.AF_INET6, ip)
        except OSError:
            return set()
        return {"".join(f"{w:08X}" for w in struct.unpack("=4I", packed6)) + f":{port:04X}"}
    mapped = b"\0" * 10 + b"\xff\xff" + packed
    return {
        f"{struct.unpack('=I', packed)[0]:08X}:{port:04X}",
        "".join(f"{w:08X}" for w in struct.unpack("=4I", mapped)) + f":{port:04X}",
    }


def peer_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The uid owning the client's end of the connection `client` -> `server`, or None."""
    local = _hex_address(*client)
    remote = _hex_address(*server)
    if not local or not remote:
        return None
    for table in _TABLES:
        try:
            with table.open("rb") as handle:
                text = handle.read(_MAX_TABLE_BYTES).decode("ascii", "replace")
        except OSError:
            continue
        for line in text.splitlines()[1:]:
            fields = line.split()
            if len(fields) > 7 and fields[1] in local and fields[2] in remote:
                try:
                    return int(fields[7])
                except ValueError:
                    return None
    return None


def same_user(client: tuple[str, int] | None, server: tuple[str, int] | None) -> bool:
    """False only when the connection is known to come from another user (root counts as
    ours: it can read our files anyway); True when it is ours or cannot be told."""
    if client is None or server is None:
        return True
    uid = peer_uid(client, server)
    if uid is None:
        log.debug("cannot tell which user connected from %s:%s", *client)
        return True
    return uid in (os.getuid(), 0)
