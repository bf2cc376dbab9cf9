"""How the indexers start their worker processes (parsing files, reading git blobs)."""

from __future__ import annotations

import multiprocessing
import sys
import threading
from multiprocessing.context import BaseContext


def pool_context(preload: str) -> BaseContext:
    """The start method for a pool whose workers run the module named `preload`.

    fork starts workers in milliseconds (they only parse), but forking a process that runs
    other threads (the editor sidecar) can deadlock the children: a forkserver there, which
    imports `preload` once so each pool's workers fork from it ready to work.
    """
    if sys.platform.startswith("linux"):
        if threading.active_count() == 1:
            return multiprocessing.get_context("fork")
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([preload])
        return ctx
    return multiprocessing.get_context("spawn")
