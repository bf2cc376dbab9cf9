"""Embedding spaces and the keys k-NN indexes are partitioned by: the same in every dialect.

Chunks live in one of two embedding spaces, each with its own model and k-NN index:
``text`` (notes and session summaries) and ``code`` (symbols and indexed files). A space
records which model made its vectors (in the store's meta), so changing one model invalidates
only that space.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal, Protocol

Space = Literal["text", "code"]
SPACES: tuple[Space, ...] = ("text", "code")
#: Meta keys holding each space's model name and dimension.
MODEL_KEYS: dict[Space, tuple[str, str]] = {
    "text": ("embedding_model", "embedding_dim"),
    "code": ("code_embedding_model", "code_embedding_dim"),
}
#: SQL for whether a document `d` belongs to a space.
IN_SPACE: dict[Space, str] = {"text": "d.kind != 'code'", "code": "d.kind = 'code'"}
KIND_KEYS = {"note": 0, "session": 1, "code": 2, "commit": 3}
KIND_SQL = "CASE d.kind WHEN 'note' THEN 0 WHEN 'session' THEN 1 WHEN 'commit' THEN 3 ELSE 2 END"
#: The k-NN index's largest k.
MAX_K = 4096


def collection_key(name: str) -> int:
    """The integer a collection is partitioned by in the k-NN indexes (a 56-bit hash).

    A hash needs no table and no lookup; two names sharing one is harmless because the
    predicate on `documents` is still applied to every candidate.
    """
    return int.from_bytes(hashlib.blake2b(name.encode("utf-8"), digest_size=7).digest(), "big")


def space_of_kind(kind: str) -> Space:
    return "code" if kind == "code" else "text"


def spaces_for(kinds: Sequence[str]) -> tuple[Space, ...]:
    """The spaces that can hold documents of these kinds (all kinds when none is named)."""
    if not kinds:
        return SPACES
    return tuple(s for s in SPACES if any(space_of_kind(k) == s for k in kinds))


class _Meta(Protocol):
    """What `VectorModels` uses of the store it is mixed into."""

    def meta_get(self, key: str) -> str | None: ...
    def meta_set(self, key: str, value: str) -> None: ...


class VectorModels:
    """Mixed into each dialect's store: which model made a space's vectors (kept in meta)."""

    def vector_model(self: _Meta, space: Space = "text") -> tuple[str, int] | None:
        name_key, dim_key = MODEL_KEYS[space]
        name, dim = self.meta_get(name_key), self.meta_get(dim_key)
        return (name, int(dim)) if name and dim else None

    def _record_model(self: _Meta, space: Space, model: str, dim: int) -> None:
        name_key, dim_key = MODEL_KEYS[space]
        self.meta_set(name_key, model)
        self.meta_set(dim_key, str(dim))
