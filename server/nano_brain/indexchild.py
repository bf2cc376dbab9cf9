"""An index pass run in a child process, for a long-lived process that must stay small.

A first index of a large repository grows its process by a few hundred MB (every parsed file
kept until its calls are resolved, SQLite's bulk page cache) and the heap stays mapped after.
The editor sidecar runs that pass here instead: the child opens the same workspace (root,
store, config, exclude patterns), runs :func:`nano_brain.indexing.index_workspace` without
embedding, and exits, handing all of it back. Its progress comes back over a pipe as
``(phase, done, total)``, then its report, or its error raised again in the parent. The child
leads a process group of its own (its parse workers in it), which `IndexChild.stop` ends, and
which ends itself when the parent is gone.

The child is started with "spawn": the parent runs threads, and a forked copy of a process
with threads can deadlock on a lock one of them held.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from .codeindex import IndexReport
from .codeindex.indexer import IndexProgress
from .config import Config, LoadedConfig
from .errors import NanoBrainError

log = logging.getLogger(__name__)

#: Progress of one phase is sent at most this often (the last count of a phase always is).
_PROGRESS_EVERY_S = 0.1
#: The signal that cannot be caught (Windows has none: there terminate is the end).
_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)
#: How often a waiting parent looks whether the child still runs.
_POLL_S = 0.5
#: How long a child that sent its result may take to exit, and a stopped one to end.
_EXIT_WAIT_S = 10.0


@dataclass(frozen=True)
class ChildSpec:
    """What the child needs to open the workspace the parent has open (all picklable)."""

    root: Path
    config: Config | LoadedConfig
    """The config as the parent built it (an editor's overrides and trust included)."""
    db: str | Path | None
    """The store path the parent was opened with (None: the config's or the default)."""
    actor: str
    exclude: tuple[str, ...]
    workers: int | None
    history: bool = True


class IndexChild:
    """One index pass in a child process: `start` it, `wait` for its report; `stop`, from
    any thread, ends it (and the parsers it started)."""

    def __init__(self, spec: ChildSpec) -> None:
        self.spec = spec
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._receive: Connection | None = None
        self._stopped = False

    @property
    def pid(self) -> int | None:
        """The child's process id, once started."""
        return self._process.pid if self._process is not None else None

    def start(self) -> int:
        """Start the child; returns its pid. Raises NanoBrainError once stopped."""
        ctx = multiprocessing.get_context("spawn")
        receive, send = ctx.Pipe(duplex=False)
        with self._lock:
            if self._stopped:
                receive.close()
                send.close()
                raise NanoBrainError("index pass stopped before it started")
            process = ctx.Process(
                target=_child_main,
                args=(send, self.spec, os.getpid()),
                name=f"nano-brain-index:{self.spec.root.name}",
            )
            process.start()
            self._process, self._receive = process, receive
        send.close()  # the child holds the only sending end: its exit is our end of file
        assert process.pid is not None  # started
        return process.pid

    def wait(self, progress: IndexProgress | None = None) -> IndexReport:
        """The child's report, once it sent it; its progress goes to ``progress`` meanwhile.

        An error in the child is raised here (the same NanoBrainError class and message); a
        child that ends without a result (killed, stopped) raises NanoBrainError.
        """
        process, receive = self._process, self._receive
        if process is None or receive is None:
            raise RuntimeError("IndexChild.wait before start")
        notify = progress or (lambda phase, done, total: None)
        outcome: tuple[str, Any] | None = None
        try:
            while outcome is None:
                # polled, not read until the end of file: a parser the child forked holds
                # the sending end too, and outlives a child that was killed
                if not receive.poll(_POLL_S):
                    if process.is_alive():
                        continue
                    if not receive.poll(0):
                        break
                try:
                    message = receive.recv()
                except EOFError:
                    break
                if message[0] == "progress":
                    notify(*message[1:])
                else:
                    outcome = message
        finally:
            receive.close()
            process.join(_EXIT_WAIT_S)
            if process.is_alive():  # sent its result but hangs on exit: not ours to wait for
                self.stop()
        if outcome is None:
            _signal_group(process.pid, _KILL)  # the parsers of a killed child
            why = "stopped" if self._stopped else f"ended with exit code {process.exitcode}"
            raise NanoBrainError(f"the index process {process.pid} {why} before it finished")
        kind, value = outcome
        if kind == "error":
            raise value
        report: IndexReport = value
        return report

    def run(self, progress: IndexProgress | None = None) -> IndexReport:
        """`start`, then `wait`."""
        self.start()
        return self.wait(progress)

    def stop(self) -> None:
        """End the child and every process it started (its parsers); a child not started yet
        never starts. Safe from any thread, and more than once."""
        with self._lock:
            self._stopped = True
            process = self._process
        if process is None or process.pid is None or not process.is_alive():
            return
        _signal_tree(process.pid, signal.SIGTERM)
        process.join(_EXIT_WAIT_S)
        if process.is_alive():
            _signal_tree(process.pid, _KILL)
            process.join(_EXIT_WAIT_S)


def _signal_tree(pid: int, sig: int) -> None:
    """Send ``sig`` to the child's process group (it leads one, see `_child_main`), or to
    the child alone when it has not made its group yet."""
    try:
        if hasattr(os, "killpg") and os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass  # ended meanwhile


def _signal_group(pid: int | None, sig: int) -> None:
    """Send ``sig`` to what is left of the process group an ended child led (none: nothing)."""
    if pid is None or not hasattr(os, "killpg"):
        return
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # no such group: the child ended before it made one, or took its parsers along


# -- in the child -------------------------------------------------------------------------


def _child_main(send: Connection, spec: ChildSpec, parent: int) -> None:
    """The child's body: open the workspace, index it, send the report or the error."""
    _detach(parent)
    try:
        report = _index(spec, _Progress(send))
    except Exception as exc:
        log.error("index pass in process %d failed:\n%s", os.getpid(), traceback.format_exc())
        send.send(("error", _portable(exc)))
    else:
        send.send(("report", report))
    finally:
        send.close()


def _detach(parent: int) -> None:
    """Lead a process group of our own, so the parent's `stop` reaches the parsers this
    process starts too; keep stdout clean (an editor's sidecar speaks LSP on it)."""
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)
    # SIGTERM as an exception: the store's transaction rolls back and the pool shuts down
    signal.signal(signal.SIGTERM, _terminated)
    os.dup2(2, 1)
    threading.Thread(target=_orphan_watch, args=(parent,), name="parent-watch", daemon=True).start()


def _orphan_watch(parent: int) -> None:
    """End this process group once the parent is gone (an editor killed its sidecar): the
    pass was for it, and the next sidecar indexes what is left. The parent's pid comes from
    the parent: it may be gone before this process gets here."""
    if hasattr(signal, "pthread_sigmask"):
        # a SIGTERM for the process then goes to the main thread, whose blocking call (the
        # store's index lock, say) it interrupts; taken by this thread, it would wait for it
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    while os.getppid() == parent:
        time.sleep(_POLL_S)
    log.warning("index pass in process %d: its parent %d is gone, stopping", os.getpid(), parent)
    _signal_tree(os.getpid(), signal.SIGTERM)
    time.sleep(_EXIT_WAIT_S)
    _signal_tree(os.getpid(), _KILL)


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _index(spec: ChildSpec, progress: IndexProgress) -> IndexReport:
    from .brain import Brain
    from .codeindex import CodeIndex
    from .indexing import index_workspace

    with Brain(spec.root, config=spec.config, db_path=spec.db, actor=spec.actor) as brain:
        code = CodeIndex(brain, exclude=spec.exclude, workers=spec.workers)
        return index_workspace(code, progress, history=spec.history)


class _Progress:
    """The child's progress callback: (phase, done, total) over the pipe, each phase at most
    every `_PROGRESS_EVERY_S` but always its first and last count."""

    def __init__(self, send: Connection) -> None:
        self._send = send
        self._phase = ""
        self._sent = 0.0

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        last = total > 0 and done >= total
        if phase == self._phase and not last and now - self._sent < _PROGRESS_EVERY_S:
            return
        self._phase, self._sent = phase, now
        self._send.send(("progress", phase, done, total))


def _portable(exc: Exception) -> Exception:
    """``exc`` itself when it survives the pipe (every NanoBrainError does), else a
    NanoBrainError that names it."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return NanoBrainError(f"{type(exc).__name__}: {exc}")
    return exc
