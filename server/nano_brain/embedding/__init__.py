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


#: The models the remote providers embed with when the config names none.
_OLLAMA_MODEL = "nomic-embed-text"
_OPENAI_MODEL = "text-embedding-3-small"


def configured_name(config: EmbeddingConfig, *, model: str | None = None) -> str | None:
    """The name the configured provider would record, without loading it (None: no
    provider). Raises EmbeddingError for an unknown local model."""
    model = model or config.model
    if config.provider == "none":
        return None
    if config.provider == "local":
        return f"local/{_local_model(model).key}"
    default = _OLLAMA_MODEL if config.provider == "ollama" else _OPENAI_MODEL
    return f"{config.provider}/{model or default}"


def _local_model(model: str | None) -> LocalModelSpec:
    """A shipped local model (the default one when `model` is empty); EmbeddingError for
    another name."""
    from . import local  # its default is set as the shipped models register

    key = model or local.DEFAULT_LOCAL_MODEL
    spec = LOCAL_MODELS.get(key)
    if spec is None:
        known = ", ".join(sorted(LOCAL_MODELS)) or "none"
        raise EmbeddingError(f"unknown local model {key!r} (shipped: {known})")
    return spec


def create_provider(
    config: EmbeddingConfig, *, model: str | None = None
) -> EmbeddingProvider | None:
    """The provider a config asks for, for `model` if given (else the config's note model);
    None for `provider: none` (lexical search only)."""
    model = model or config.model
    if config.provider == "none":
        return None
    if config.provider == "local":
        return LocalOnnxProvider(_local_model(model), threads=config.threads)
    from .remote import OllamaProvider, OpenAIProvider  # httpx: only for remote providers

    if config.provider == "ollama":
        return OllamaProvider(
            model=model or _OLLAMA_MODEL,
            base_url=config.base_url or "http://127.0.0.1:11434",
            timeout_s=config.timeout_s,
            dimensions=config.dimensions,
        )
    return OpenAIProvider(
        model=model or _OPENAI_MODEL,
        base_url=config.base_url or "https://api.openai.com/v1",
        timeout_s=config.timeout_s,
        dimensions=config.dimensions,
        api_key_env=config.api_key_env,
    )
