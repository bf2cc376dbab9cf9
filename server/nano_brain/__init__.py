"""nano-brain: a memory for coding workspaces."""

from .brain import Brain
from .config import Config, load_config
from .errors import (
    EmbeddingError,
    InvalidInputError,
    ModelMismatchError,
    NanoBrainError,
    NotFoundError,
    StoreError,
)
from .filters import Filters
from .search import SearchRequest

__version__ = "0.1.0"

__all__ = [
    "Brain",
    "Config",
    "EmbeddingError",
    "Filters",
    "InvalidInputError",
    "ModelMismatchError",
    "NanoBrainError",
    "NotFoundError",
    "SearchRequest",
    "StoreError",
    "__version__",
    "load_config",
]
