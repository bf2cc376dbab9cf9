"""A folder's first index runs in a child process of the sidecar; later passes in the sidecar."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

from lsprotocol import types as lsp

from nano_brain import Brain, paths
from nano_brain.codeindex import CodeIndex

from ._history import REFUND_COMMIT, make_history
from .conftest import Session, start, stop

OPTIONS = {"mcp": {"transport": "off"}}
_CHILD = re.compile(r"first index of (.+) runs in process (\d+)")
SHIPPING = "def compute_shipping_cost(weight):\n    return 4.5 + weight * 0.1\n"


def _children(session: Session) -> list[tuple[Path, int]]:
    """(folder, pid) of every first index the sidecar ran in a child process, as it logged."""
    found = (_CHILD.search(m.message) for m in session.logs)
    return [(Path(m.group(1)), int(m.group(2))) for m in found if m]


def _server_pid(session: Session) -> int:
    server = session.client._server
    assert server is not None
    return server.pid


def test_first_index_runs_in_a_child_and_a_save_in_the_sidecar(
    project: Path, tmp_path: Path
) -> None:
    make_history(project)  # the child's history pass shows in hovers
    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    with Brain(twin) as brain:  # the same files indexed in this process, to compare with
        CodeIndex(brain).index()
        expected = CodeIndex(brain).counts()

    async def body() -> None:
        session = await start(project, options=OPTIONS)
        try:
            await session.indexed()
            [(root, pid)] = _children(session)
            assert root == project and pid != _server_pid(session)
            # the child's progress reached the editor as the sidecar's own would
            reports = [v["message"] for k, v in session.progress if k == "report"]
            assert any(m.startswith("parse: ") and m.endswith("/2") for m in reports), reports
            end = session.progress[-1][1]["message"]
            assert "2 files" in end and "symbols" in end, end
            status = (await session.status()).folders[0]
            assert status.last_pass.paths is None and status.last_pass.new == 2
            assert {k: getattr(status.counts, k) for k in expected} == expected
            # what the child wrote serves symbols and hovers
            assert "compute_invoice_total" in await session.symbols("compute_invoice_total")
            uri = session.open("billing.py")
            hover = await session.hover(uri, 12, 10)  # RefundPolicy.refund_amount
            assert hover is not None and REFUND_COMMIT in str(hover.contents)
            # a save: its pass runs in the sidecar, on the file it names
            (project / "billing.py").write_text(
                (project / "billing.py").read_text() + "\n\n" + SHIPPING, encoding="utf-8"
            )
            ends = session.passes()
            session.client.text_document_did_save(
                lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri))
            )
            await session.wait_for(lambda: session.passes() > ends, 30)
            assert len(_children(session)) == 1
            assert (await session.status()).folders[0].last_pass.paths == 1
            assert "compute_shipping_cost" in await session.symbols("compute_shipping_cost")
        finally:
            await stop(session)

    asyncio.run(body())


@contextlib.contextmanager
def _index_lock_held(root: Path) -> Iterator[None]:
    """Hold the store's index lock (as a CLI run would), so that the sidecar's first pass,
    once started in its child, waits there (sending nothing) until this returns."""
    lock = Path(f"{paths.default_db_path(root)}.index-lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


async def _started_first_index(project: Path) -> tuple[Session, int]:
    """The sidecar started on ``project``, its first index in a child (waiting for the index
    lock the caller holds): the session and the child's pid."""
    session = await start(project, options=OPTIONS)
    try:
        await session.wait_for(lambda: bool(_children(session)), 30)
        [(_, pid)] = _children(session)
    except BaseException:
        await stop(session)
        raise
    return session, pid


def test_a_killed_child_is_reported_and_the_next_pass_indexes(project: Path) -> None:
    async def body() -> None:
        with _index_lock_held(project):
            session, pid = await _started_first_index(project)
            try:
                os.kill(pid, signal.SIGKILL)
                await session.indexed(30)
            except BaseException:
                await stop(session)
                raise
        try:
            end = session.progress[-1][1]["message"]
            assert end.startswith("failed: ") and f"index process {pid}" in end, end
            errors = [m.message for m in session.logs if m.type == lsp.MessageType.Error]
            assert any(f"indexing {project} failed" in m for m in errors), errors
            # the next pass (any change) indexes the whole folder, in a child again
            (project / "extra.py").write_text(SHIPPING, encoding="utf-8")
            ends = session.passes()
            session.client.text_document_did_save(
                lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(session.uri("extra.py")))
            )
            await session.wait_for(lambda: session.passes() > ends, 30)
            assert not session.progress[-1][1]["message"].startswith("failed")
            assert len(_children(session)) == 2
            assert "compute_shipping_cost" in await session.symbols("compute_shipping_cost")
            assert (await session.status()).folders[0].counts.source_files == 3
        finally:
            await stop(session)

    asyncio.run(body())


def test_shutdown_stops_a_first_index_in_its_child(project: Path) -> None:
    async def body() -> None:
        with _index_lock_held(project):
            session, pid = await _started_first_index(project)
            await stop(session)  # the sidecar must end by itself: its child stopped
            assert not _group_alive(pid)

    asyncio.run(body())


def test_a_child_whose_sidecar_was_killed_ends(project: Path) -> None:
    async def body() -> None:
        with _index_lock_held(project):
            session = await start(project, options=OPTIONS)
            server = session.client._server
            assert server is not None
            try:
                await session.wait_for(lambda: bool(_children(session)), 30)
                [(_, pid)] = _children(session)
                server.kill()  # an editor ending its sidecar the hard way
                await asyncio.wait_for(server.wait(), 15)
                # the child waits for the lock, silent: it sees its parent gone by itself
                await session.wait_for(lambda: not _group_alive(pid), 15)
            finally:
                if server.returncode is None:
                    server.kill()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(session.client.stop(), 15)  # type: ignore[no-untyped-call]

    asyncio.run(body())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)


def _state(pid: int) -> str:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("State:"):
                return line.lower()
    except OSError:
        pass
    return ""


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group ``pgid`` still runs (zombies do not count)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False
