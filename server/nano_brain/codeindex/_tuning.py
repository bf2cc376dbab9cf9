"""The interpreter set up for an index run, and back as it was after (see
:func:`tuned_for_indexing`)."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_tuning_lock = threading.Lock()
_tuning_runs = 0
_tuning_saved: tuple[bool, float] = (False, 0.0)
#: The interpreter's thread switch interval during an index run (seconds; default 0.005).
SWITCH_INTERVAL_S = 0.001


@contextmanager
def tuned_for_indexing() -> Iterator[None]:
    """The interpreter set up for an index run, and back as it was after.

    - The cyclic garbage collector is off: a cold run keeps a few hundred thousand rows and
      parse records alive, and the collections their allocations trigger re-walk all of them
      (a tenth of the run's CPU). The rows form no cycles; what does is collected once the
      collector is back.
    - Threads hand over the GIL every millisecond instead of every five: the full-text
      thread runs SQLite statements while the main thread resolves calls in Python, and each
      statement waited for the GIL before and after it (index builds took twice their time).

    Runs on several threads share one setting.
    """
    global _tuning_runs, _tuning_saved
    with _tuning_lock:
        if _tuning_runs == 0:
            _tuning_saved = (gc.isenabled(), sys.getswitchinterval())
            gc.disable()
            sys.setswitchinterval(min(SWITCH_INTERVAL_S, _tuning_saved[1]))
        _tuning_runs += 1
    try:
        yield
    finally:
        with _tuning_lock:
            _tuning_runs -= 1
            if _tuning_runs == 0:
                if _tuning_saved[0]:
                    gc.enable()
                sys.setswitchinterval(_tuning_saved[1])
