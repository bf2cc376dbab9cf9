"""The embedding provider interface: a model name, a dimension, and batch embedding."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where vectors are made, not by every CLI call
    import numpy as np


class EmbeddingProvider(ABC):
    """Turns texts into unit-length float32 vectors; one class per kind of model."""

    @property
    @abstractmethod
    def name(self) -> str:
        """Identity recorded in the store (provider and model), e.g. `local/minilm-l6-int8`."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """Length of every vector this provider returns."""

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for texts to be stored, shape (len(texts), dim)."""

    def embed_query(self, text: str) -> np.ndarray:
        """Vector for a search query (models with query prefixes override this)."""
        row: np.ndarray = self.embed_documents([text])[0]
        return row


def normalize(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = matrix / norms
    return unit
