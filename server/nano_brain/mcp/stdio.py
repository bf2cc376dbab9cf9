"""MCP over stdin/stdout with a reader that answers every line it cannot use.

The SDK's stdio reader logs a line that is not a JSON-RPC message (invalid UTF-8, truncated
JSON, nesting too deep, a lone surrogate escape) and drops it, so the client waits for its
timeout. This transport answers such a line at once, as the HTTP transport does: -32700
(parse error) for text that is not JSON, -32600 (invalid request) for JSON that is not a
JSON-RPC message or a line over the size bound, with the request's id when it has a usable
one and null otherwise. Then it reads on.

Lines are bounded before they are read. While serving, fd 0 reads /dev/null and fd 1 writes
to stderr, so stray prints from libraries cannot corrupt the protocol; the wire is served
from private duplicates of both.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
import pydantic_core
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)

_CHUNK = 1 << 16

Incoming = SessionMessage | Exception


@asynccontextmanager
async def stdio_streams(
    max_message_bytes: int,
    *,
    wire: tuple[BinaryIO, BinaryIO] | None = None,
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]
]:
    """(read, write) streams for `Server.run` over stdin/stdout (or the `wire` given)."""
    restore: Callable[[], None] | None = None
    if wire is None:
        wire_in, wire_out, restore = _claim_std_fds()
    else:
        wire_in, wire_out = wire
    read_send, read_recv = anyio.create_memory_object_stream[Incoming](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_loop, wire_in, max_message_bytes, read_send, write_send.clone())
            tg.start_soon(_write_loop, wire_out, write_recv)
            yield read_recv, write_send
    finally:
        if restore is not None:
            restore()


def parse_line(line: bytes, max_message_bytes: int) -> SessionMessage | types.JSONRPCError | None:
    """One line of the wire: a message, the error to answer it with, or None (blank)."""
    text = line.strip(b" \t\r\n")
    if not text:
        return None
    if len(text) > max_message_bytes:
        return _error(None, types.INVALID_REQUEST, f"message over {max_message_bytes} bytes")
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _error(None, types.PARSE_ERROR, f"Parse error: not UTF-8 at byte {exc.start}")
    try:
        raw = pydantic_core.from_json(text, allow_inf_nan=False)
    except ValueError as exc:
        # JSON the strict parser refuses but the lenient one reads (a lone surrogate escape,
        # NaN, deep nesting) still names its request: answer that request instead of leaving
        # it to time out.
        request_id = _request_id(_lenient_json(text))
        if request_id is not None:
            return _error(
                request_id, types.INVALID_REQUEST, f"Invalid request: not strict JSON: {exc}"
            )
        return _error(None, types.PARSE_ERROR, f"Parse error: {exc}")
    try:
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        return _error(
            _request_id(raw), types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message"
        )
    return SessionMessage(message)


def _lenient_json(text: bytes) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _request_id(raw: Any) -> types.RequestId | None:
    """The id to answer an invalid message with, when it carries a usable one."""
    if not isinstance(raw, dict):
        return None
    value = raw.get("id")
    if isinstance(value, str) or (type(value) is int and -(2**63) <= value < 2**63):
        return value
    return None


def _error(request_id: types.RequestId | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=types.ErrorData(code=code, message=" ".join(message.split())),
    )


async def _read_loop(
    wire_in: BinaryIO,
    limit: int,
    messages: MemoryObjectSendStream[Incoming],
    replies: MemoryObjectSendStream[SessionMessage],
) -> None:
    async with messages, replies:
        while True:
            line = await anyio.to_thread.run_sync(
                _read_line, wire_in, limit, abandon_on_cancel=True
            )
            if line is None:
                return  # EOF: the client is gone; the server finishes what it has and stops
            parsed = parse_line(line, limit)
            if parsed is None:
                continue
            try:
                if isinstance(parsed, types.JSONRPCError):
                    log.warning("stdio: answered an unusable message: %s", parsed.error.message)
                    await replies.send(SessionMessage(parsed))
                else:
                    await messages.send(parsed)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return


def _read_line(wire_in: BinaryIO, limit: int) -> bytes | None:
    """One line of at most `limit` bytes (+ newline); a longer one is skipped to its end and
    returned clipped, so it is answered as too large. None at EOF."""
    line = wire_in.readline(limit + 2)
    if not line:
        return None
    if line.endswith(b"\n") or len(line) < limit + 2:  # whole, or the last line before EOF
        return line
    while True:  # drain the rest of the oversize line without keeping it
        rest = wire_in.readline(_CHUNK)
        if not rest or rest.endswith(b"\n"):
            return line


async def _write_loop(
    wire_out: BinaryIO, outgoing: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    async with outgoing:
        async for item in outgoing:
            data = _encode(item)
            if data is None:
                continue
            try:
                await anyio.to_thread.run_sync(_write_all, wire_out, data)
            except OSError as exc:  # the client closed stdout: nothing more can be said
                log.info("stdio: cannot write to the client (%s); stopping", exc)
                return


def _encode(item: SessionMessage) -> bytes | None:
    try:
        return item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
    except (ValueError, UnicodeError, pydantic_core.PydanticSerializationError):
        log.exception("stdio: cannot encode an outgoing message")
        request_id = getattr(item.message, "id", None)
        if request_id is None or not isinstance(
            item.message, types.JSONRPCResponse | types.JSONRPCError
        ):
            return None
        fallback = _error(request_id, types.INTERNAL_ERROR, "the result could not be encoded")
        return fallback.model_dump_json(by_alias=True).encode() + b"\n"


def _write_all(wire_out: BinaryIO, data: bytes) -> None:
    wire_out.write(data)
    wire_out.flush()


def _claim_std_fds() -> tuple[BinaryIO, BinaryIO, Callable[[], None]]:
    """Private duplicates of fds 0/1 for the wire; 0 reads /dev/null and 1 goes to stderr
    until the returned function restores them."""
    sys.stdout.flush()
    wire_in_fd, wire_out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    os.dup2(2, 1)

    def restore() -> None:
        sys.stdout.flush()
        os.dup2(wire_in_fd, 0)
        os.dup2(wire_out_fd, 1)

    # closefd=False: a worker thread may still block on the wire after serving ends, so its
    # descriptor must never be closed and reused under it.
    wire_in = os.fdopen(wire_in_fd, "rb", closefd=False)
    wire_out = os.fdopen(wire_out_fd, "wb", closefd=False)
    return wire_in, wire_out, restore
