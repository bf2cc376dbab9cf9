"""Watch mode: harvest ticks driven by file events in the agents' folders.

Events only mark agents dirty; a tick runs once no event came for the debounce time (a burst
of appends costs one tick). A full tick runs every rescan period anyway, folders that did not
exist yet are watched once they appear, and sessions held back as still settling get a tick
when they are due. watchdog is imported when a watch starts, not with the harvester.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import AgentName
from .model import is_within
from .report import HarvestItem, HarvestReport

if TYPE_CHECKING:
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers.api import BaseObserver

log = logging.getLogger("nano_brain.harvest")

Tick = Callable[[list[AgentName]], HarvestReport]
"""One harvest tick over the agents given (the harvester's `run_once`, settling included)."""


class _Dirty:
    """The agents whose folders changed since the last tick, and when the last event came.
    Written by watchdog's thread, read by the watch loop."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.agents: set[AgentName] = set()
        self.last_event = 0.0
        self.wake = threading.Event()

    def mark(self, agents: list[AgentName]) -> None:
        with self.lock:
            self.agents.update(agents)
            self.last_event = time.monotonic()
        self.wake.set()


def _handler(bases: dict[AgentName, Path], dirty: _Dirty) -> FileSystemEventHandler:
    from watchdog.events import FileSystemEvent, FileSystemEventHandler

    class _Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("opened", "closed_no_write"):
                return  # reads (ours included) change nothing
            path = os.fsdecode(event.src_path)
            agents = [a for a, base in bases.items() if is_within(path, base)]
            if agents:
                dirty.mark(agents)

    return _Handler()


class SessionWatch:
    """Runs `tick` now, then on file events in the agents' folders, until stopped."""

    def __init__(
        self,
        tick: Tick,
        selected: list[AgentName],
        bases: dict[AgentName, Path],
        *,
        debounce: float,
        settle: float,
        rescan: float,
        on_report: Callable[[HarvestReport], None] | None,
    ) -> None:
        self._tick_agents = tick
        self._selected = selected
        self._bases = bases
        self._debounce = debounce
        self._settle = settle
        self._rescan = rescan
        self._on_report = on_report
        self._dirty = _Dirty()
        self._watched: set[Path] = set()
        self._waiting: set[str] = set()  # sessions announced as settling

    def run(self, stop: threading.Event) -> None:
        """Watch until `stop` is set; the observer thread is stopped on the way out."""
        from watchdog.observers import Observer

        observer = Observer()
        handler = _handler(self._bases, self._dirty)
        self._schedule(observer, handler)
        log.info(
            "watching %s for sessions of %s (settle %gs, debounce %gs, rescan %gs)",
            ", ".join(str(b) for b in sorted(set(self._bases.values()))) or "no folders",
            ", ".join(self._selected) or "no agents",
            self._settle,
            self._debounce,
            self._rescan,
        )
        observer.start()
        try:
            self._loop(stop, observer, handler)
        finally:
            observer.stop()
            observer.join(timeout=5)

    def _loop(
        self, stop: threading.Event, observer: BaseObserver, handler: FileSystemEventHandler
    ) -> None:
        dirty = self._dirty
        settle_due = self._tick(self._selected)
        next_rescan = time.monotonic() + self._rescan
        while not stop.is_set():
            with dirty.lock:
                pending = bool(dirty.agents)
                quiet_at = dirty.last_event + self._debounce
            deadlines = [next_rescan] + ([quiet_at] if pending else [])
            deadlines += [settle_due] if settle_due is not None else []
            timeout = max(0.0, min(deadlines) - time.monotonic())
            dirty.wake.wait(min(timeout, 0.25))  # short waits: `stop` is checked promptly
            dirty.wake.clear()
            now = time.monotonic()
            with dirty.lock:
                due = bool(dirty.agents) and now >= dirty.last_event + self._debounce
                agents = set(dirty.agents) if due else set()
                if due:
                    dirty.agents.clear()
            if now >= next_rescan or (settle_due is not None and now >= settle_due):
                self._schedule(observer, handler)
                settle_due = self._tick(self._selected)
                next_rescan = now + self._rescan
            elif agents:
                settle_due = _earliest(settle_due, self._tick(sorted(agents)))

    def _schedule(self, observer: BaseObserver, handler: FileSystemEventHandler) -> None:
        """Watch the agents' folders not watched yet (those that exist by now)."""
        for base in set(self._bases.values()) - self._watched:
            if base.is_dir():
                try:
                    observer.schedule(handler, str(base), recursive=True)
                    self._watched.add(base)
                except OSError as exc:  # inotify watch limit, permissions
                    log.warning("cannot watch %s: %s", base, exc)

    def _tick(self, agents: Iterable[AgentName]) -> float | None:
        """A tick; when sessions are settling, the monotonic time the first one is due."""
        report = self._tick_agents(list(agents))
        if self._on_report is not None:
            self._on_report(report)
        settling = [i for i in report.items if i.due_in_s is not None]
        _announce_settling(settling, self._waiting, self._settle)
        waits = [i.due_in_s for i in settling if i.due_in_s is not None]
        return time.monotonic() + min(waits) + 0.05 if waits else None


def _announce_settling(items: list[HarvestItem], waiting: set[str], settle: float) -> None:
    """Say, once per session, that watch is holding it back until it has been quiet.

    Without this line a watcher sits silent for `settle_s` after every new session.
    `waiting` is the set announced so far; sessions no longer settling leave it.
    """
    current = {item.source for item in items}
    fresh = [item for item in items if item.source not in waiting]
    waiting.intersection_update(current)
    if not fresh:
        return
    waiting.update(item.source for item in fresh)
    names = ", ".join(f"{i.agent} {(i.session_id or i.source)[:36]}" for i in fresh[:3])
    more = f" and {len(fresh) - 3} more" if len(fresh) > 3 else ""
    due = min(item.due_in_s or 0.0 for item in fresh)
    log.info(
        "waiting for %d session%s still being written to be quiet for %gs "
        "(harvested in %.0fs if nothing changes): %s%s",
        len(fresh),
        "" if len(fresh) == 1 else "s",
        settle,
        due,
        names,
        more,
    )


def _earliest(a: float | None, b: float | None) -> float | None:
    known = [x for x in (a, b) if x is not None]
    return min(known) if known else None
