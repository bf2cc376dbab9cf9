"""Many threads on one shared object, for the thread-safety tests of each package."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_together(work: Callable[[int], None], n: int, timeout: float = 300.0) -> None:
    """Run ``work(0)`` .. ``work(n - 1)`` on ``n`` threads released at the same moment; raise
    the first exception any of them raised, or if one is still running after ``timeout``."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            barrier.wait(60)
            work(i)
        except BaseException as exc:  # re-raised below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), name=f"test-{i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    stuck = [t.name for t in threads if t.is_alive()]
    assert not stuck, f"threads still running after {timeout} s: {stuck}"
    if errors:
        raise errors[0]
