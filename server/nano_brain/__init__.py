"""nano-brain: a memory for coding workspaces.

The public names are imported on first use (PEP 562): `import nano_brain` alone, as every CLI
call does, must not pay for pydantic models, SQLite or the embedding runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Brain": "brain",
    "Config": "config",
    "load_config": "config",
    "EmbeddingError": "errors",
    "InvalidInputError": "errors",
    "ModelMismatchError": "errors",
    "NanoBrainError": "errors",
    "NotFoundError": "errors",
    "StoreError": "errors",
    "Filters": "filters",
    "SearchRequest": "search",
}

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

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'nano_brain' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
