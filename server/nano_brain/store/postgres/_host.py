"""What the PostgreSQL store's mixins (`lexical`, `vectors`) use of the store they are mixed
into, as a Protocol: their methods take `self: PgHost`, so each is checked against this and
`PostgresStore` is checked against it wherever a mixin method is called on one."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from ...filters import Filters

if TYPE_CHECKING:
    from ..rows import Hit
    from ..spaces import Space


class PgHost(Protocol):
    workspace_id: str
    vector_index: str
    _lock: threading.RLock
    _db: Any  # a psycopg connection (psycopg is imported where it is used)
    _depth: int
    _owner: bool | None
    _pass_counts: dict[Filters, tuple[int, float]]
    _counts_lock: threading.Lock

    @property
    def location(self) -> str: ...
    def transaction(self) -> AbstractContextManager[None]: ...
    def meta_get(self, key: str) -> str | None: ...
    def meta_set(self, key: str, value: str) -> None: ...
    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
    def _binary_rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
    def _planned_rows(
        self, sql: str, params: Sequence[Any] = (), *, binary: bool = False
    ) -> list[Any]: ...
    def _exec(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def _many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    def _predicate(self, filters: Filters) -> tuple[str, list[Any]]: ...
    def _workspace_chunks(self) -> int: ...
    def count_documents(self, filters: Filters, cap: int) -> int: ...

    # the mixins' own, called across methods
    def vector_model(self, space: Space = "text") -> tuple[str, int] | None: ...
    def pending_count(self, space: Space | None = None) -> int: ...
    def _record_model(self, space: Space, model: str, dim: int) -> None: ...
    def _owns_vectors(self) -> bool: ...
    def _maybe_build_ivfflat(self, space: Space, dim: int) -> None: ...
    def _words(
        self,
        terms: list[str],
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], int]: ...
    def _few_pass(self, filters: Filters) -> bool: ...
    def _driven(
        self,
        words: str,
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], int]: ...
    def _trigram(
        self,
        terms: list[str],
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]: ...
    def _read(
        self,
        words: str,
        op: str,
        take: tuple[int, int],
        exact_below: int,
        filters: Filters,
        inner: int | None,
        limit: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], int, int, bool]: ...
    def _any_document(self, filters: Filters) -> bool: ...
