"""What the mixins of `Store` (`vectors`, `views`, `health`, `routes`, `consolidation`) use of
the store they are mixed into, as a Protocol: their methods take `self: StoreHost`, so each is
checked against this and `Store` is checked against it wherever a mixin method is called on one.

The mixins' own methods that call each other through `self` are listed here too.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from ..filters import Filters

if TYPE_CHECKING:
    import numpy as np

    from .vectors import Space


class StoreHost(Protocol):
    workspace_id: str
    _lock: threading.RLock
    # sqlite3's or sqlean's connection (sqlean is the same module built with extensions)
    _db: sqlite3.Connection

    def transaction(self) -> AbstractContextManager[None]: ...
    def meta_get(self, key: str) -> str | None: ...
    def meta_set(self, key: str, value: str) -> None: ...
    def _check_usable(self) -> None: ...
    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
    def _exec(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor: ...
    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    def _predicate(self, filters: Filters) -> tuple[str, list[Any]]: ...

    # the mixins' own, called across methods
    def vector_model(self, space: Space = "text") -> tuple[str, int] | None: ...
    def _create_vector_index(self, space: Space, dim: int) -> None: ...
    def _fill_vector_index(self, space: Space, dim: int) -> None: ...
    def _doc_keys(self, doc_ids: set[int]) -> dict[int, tuple[int, int, float, float]]: ...
    def store_vectors(
        self, items: Sequence[tuple[int, int, np.ndarray]], *, space: Space = "text"
    ) -> int: ...
    def commit_counts(self) -> dict[str, int]: ...
