"""One write transaction per store connection, the same for every dialect: nested calls join
the outer one; a driver error leaves as the store's StoreError; a failed rollback never hides
the error that caused it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from ..errors import StoreError


class _Host(Protocol):
    _lock: threading.RLock
    _depth: int

    def _rollback(self) -> None: ...
    def _failed(self, exc: Exception) -> StoreError: ...


@contextmanager
def transaction(
    store: _Host,
    begin: Callable[[], None],
    commit: Callable[[], object],
    driver_error: type[Exception],
) -> Iterator[None]:
    """Run the body in one transaction: ``begin`` opens it (and turns its own errors into
    StoreErrors), ``commit`` ends it; ``driver_error`` is the dialect's database error."""
    with store._lock:
        if store._depth:
            store._depth += 1
            try:
                yield
            finally:
                store._depth -= 1
            return
        begin()
        store._depth = 1
        try:
            yield
        except BaseException as exc:
            store._rollback()
            if isinstance(exc, driver_error):
                raise store._failed(exc) from exc
            raise
        else:
            try:
                commit()
            except driver_error as exc:
                store._rollback()
                raise store._failed(exc) from exc
        finally:
            store._depth = 0
