"""Embedding providers: local ONNX (default), Ollama, OpenAI-compatible, or none."""

from __future__ import annotations

from ..config import EmbeddingConfig
from ..errors import EmbeddingError
from . import shipped as _shipped  # noqa: F401  (registers the shipped local models)
from .base import EmbeddingProvider, normalize
from .local import LOCAL_MODELS, LocalModelSpec, LocalOnnxProvider

__all__ = [
    "EmbeddingProvider",
    "LocalModelSpec",
    "create_provider",
    "model_name",
    "normalize",
]


_OLLAMA_MODEL = "nomic-embed-text"
_OPENAI_MODEL = "text-embedding-3-small"


def model_name(config: EmbeddingConfig) -> str | None:
    """The name `create_provider(config)` records in the store, without loading anything
    (None for `provider: none`); an unknown local model raises as `create_provider` does."""
    if config.provider == "none":
        return None
    if config.provider == "local":
        return f"local/{_local_spec(config).key}"
    default = _OLLAMA_MODEL if config.provider == "ollama" else _OPENAI_MODEL
    return f"{config.provider}/{config.model or default}"


def create_provider(config: EmbeddingConfig) -> EmbeddingProvider | None:
    """The provider a config asks for; None for `provider: none` (lexical search only)."""
    if config.provider == "none":
        return None
    if config.provider == "local":
        return LocalOnnxProvider(_local_spec(config), threads=config.threads)
    from .remote import OllamaProvider, OpenAIProvider  # httpx: only for remote providers

    if config.provider == "ollama":
        return OllamaProvider(
            model=config.model or _OLLAMA_MODEL,
            base_url=config.base_url or "http://127.0.0.1:11434",
            timeout_s=config.timeout_s,
            dimensions=config.dimensions,
        )
    return OpenAIProvider(
        model=config.model or _OPENAI_MODEL,
        base_url=config.base_url or "https://api.openai.com/v1",
        timeout_s=config.timeout_s,
        dimensions=config.dimensions,
        api_key_env=config.api_key_env,
    )


def _local_spec(config: EmbeddingConfig) -> LocalModelSpec:
    from . import local

    key = config.model or local.DEFAULT_LOCAL_MODEL
    spec = LOCAL_MODELS.get(key)
    if spec is None:
        known = ", ".join(sorted(LOCAL_MODELS)) or "none"
        raise EmbeddingError(f"unknown local model {key!r} (shipped: {known})")
    return spec
