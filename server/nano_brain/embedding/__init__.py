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
    "configured_name",
    "create_provider",
    "normalize",
]


def configured_name(config: EmbeddingConfig, *, model: str | None = None) -> str | None:
    """The name the configured provider would record, without loading it (None: no
    provider). Raises EmbeddingError for an unknown local model."""
    from . import local

    model = model or config.model
    if config.provider == "none":
        return None
    if config.provider == "local":
        key = model or local.DEFAULT_LOCAL_MODEL
        if key not in LOCAL_MODELS:
            known = ", ".join(sorted(LOCAL_MODELS)) or "none"
            raise EmbeddingError(f"unknown local model {key!r} (shipped: {known})")
        return f"local/{key}"
    default = "nomic-embed-text" if config.provider == "ollama" else "text-embedding-3-small"
    return f"{config.provider}/{model or default}"


def create_provider(
    config: EmbeddingConfig, *, model: str | None = None
) -> EmbeddingProvider | None:
    """The provider a config asks for, for `model` if given (else the config's note model);
    None for `provider: none` (lexical search only)."""
    from . import local

    model = model or config.model
    if config.provider == "none":
        return None
    if config.provider == "local":
        key = model or local.DEFAULT_LOCAL_MODEL
        spec = LOCAL_MODELS.get(key)
        if spec is None:
            known = ", ".join(sorted(LOCAL_MODELS)) or "none"
            raise EmbeddingError(f"unknown local model {key!r} (shipped: {known})")
        return LocalOnnxProvider(spec, threads=config.threads)
    from .remote import OllamaProvider, OpenAIProvider  # httpx: only for remote providers

    if config.provider == "ollama":
        return OllamaProvider(
            model=model or "nomic-embed-text",
            base_url=config.base_url or "http://127.0.0.1:11434",
            timeout_s=config.timeout_s,
            dimensions=config.dimensions,
        )
    return OpenAIProvider(
        model=model or "text-embedding-3-small",
        base_url=config.base_url or "https://api.openai.com/v1",
        timeout_s=config.timeout_s,
        dimensions=config.dimensions,
        api_key_env=config.api_key_env,
    )
