"""A module's logger that imports `logging` on its first message.

The modules an agent hook runs through (the quick store reader, private files, the hook
profile) log rarely, and importing `logging` costs a hook process about a tenth of its
budget. Elsewhere use ``logging.getLogger(__name__)`` as usual.
"""

from __future__ import annotations

from typing import Any


class LazyLogger:
    """Stands for ``logging.getLogger(name)``: every attribute is the real logger's."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        import logging

        return getattr(logging.getLogger(self._name), attribute)
