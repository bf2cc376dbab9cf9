"""Progress on stderr: a rich bar on a terminal, plain periodic lines anywhere else.

CI logs and editors' task runners capture stderr without a terminal; a bar draws nothing
there, so they get one line per phase start, every few seconds, and at each phase's end.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import click

from ..embedprogress import SpaceProgress
from ._output import raw_stderr

#: Seconds between two plain progress lines of the same phase.
LINE_INTERVAL_S = 2.0


class PhaseProgress:
    """A context manager yielding ``update(phase, done, total)`` (total 0: unknown)."""

    def __init__(
        self,
        quiet: bool,
        labels: dict[str, str] | None = None,
        *,
        interval_s: float = LINE_INTERVAL_S,
        detail: Callable[[], str | None] | None = None,
    ) -> None:
        self._labels = labels or {}
        self._interval = interval_s
        # what a line adds after the count (an estimate): asked at most once per interval
        self._detail = detail
        self._detail_at: float | None = None
        self._tty = sys.stderr.isatty()
        # --json keeps a terminal clean for the result; lines never disturb a captured stdout.
        self._bar: Any = None if (quiet or not self._tty) else _rich_bar()
        self._lines = not self._tty
        self._tasks: dict[str, Any] = {}
        self._last: dict[str, float] = {}
        self._ended: set[str] = set()

    def __enter__(self) -> Callable[[str, int, int], None]:
        if self._bar is not None:
            self._bar.start()
        return self.update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def update(self, phase: str, done: int, total: int) -> None:
        label = self._labels.get(phase, phase)
        if self._bar is not None:
            task = self._tasks.get(phase)
            if task is None:
                task = self._tasks[phase] = self._bar.add_task(label, total=total or None)
            detail = self._fresh_detail()
            described = {"description": f"{label}: {detail}"} if detail else {}
            self._bar.update(task, completed=done, total=total or None, **described)
        if not self._lines or phase in self._ended:
            return
        now = time.monotonic()
        finished = bool(total) and done >= total
        last = self._last.get(phase)
        if last is not None and not finished and now - last < self._interval:
            return
        self._last[phase] = now
        if finished:
            self._ended.add(phase)
        count = f"{done}/{total}" if total else f"{done}"
        pct = f" ({100 * done // total}%)" if total else ""
        detail = None if finished or self._detail is None else self._detail()
        click.echo(f"nano-brain: {label} {count}{pct}{f': {detail}' if detail else ''}", err=True)

    def _fresh_detail(self) -> str | None:
        """The detail for the bar, asked again once per interval (None between)."""
        now = time.monotonic()
        if self._detail is None or (
            self._detail_at is not None and now - self._detail_at < self._interval
        ):
            return None
        self._detail_at = now
        return self._detail()


class progress_bar:  # noqa: N801  (used as `with progress_bar(...) as update`)
    """Embedding progress: ``update(done, total)``; ``detail`` adds an estimate to it."""

    def __init__(self, quiet: bool, detail: Callable[[], str | None] | None = None) -> None:
        self._inner = PhaseProgress(quiet, {"embed": "embedding"}, detail=detail)

    def __enter__(self) -> Callable[[int, int], None]:
        update = self._inner.__enter__()
        return lambda done, total: update("embed", done, total)

    def __exit__(self, *exc: object) -> None:
        self._inner.__exit__(*exc)


def embedding_detail(read: Callable[[], Mapping[Any, SpaceProgress]]) -> Callable[[], str | None]:
    """A `progress_bar` detail: each space still waiting for vectors, how far it is and about
    how long the rest takes (``read``: `Brain.embedding_progress`)."""

    def detail() -> str | None:
        return "; ".join(p.describe() for p in read().values() if p.pending) or None

    return detail


def _rich_bar() -> Any:
    # rich costs ~25 ms to import: only commands that show a bar on a terminal pay it.
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=raw_stderr()),
        transient=True,
    )
