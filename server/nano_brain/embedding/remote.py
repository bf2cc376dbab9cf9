"""Embedding providers behind HTTP endpoints a user configured: Ollama and OpenAI-compatible."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from ..errors import EmbeddingError
from .base import EmbeddingProvider, normalize

log = logging.getLogger(__name__)


class _HttpProvider(EmbeddingProvider):
    _kind = ""

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        timeout_s: float,
        dimensions: int | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self._model = model
        self._base_url = base_url.rstrip("/")
        self._dimensions = dimensions
        self._client = client or httpx.Client(timeout=timeout_s)
        self._dim: int | None = dimensions

    @property
    def name(self) -> str:
        return f"{self._kind}/{self._model}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed_documents(["dimension probe"]).shape[1])
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        vectors = self._request(list(texts))
        if len(vectors) != len(texts):
            raise EmbeddingError(
                f"{self.name}: asked for {len(texts)} embeddings, got {len(vectors)}"
            )
        matrix = normalize(np.asarray(vectors, dtype=np.float32))
        if self._dim is not None and matrix.shape[1] != self._dim:
            raise EmbeddingError(
                f"{self.name}: expected dimension {self._dim}, got {matrix.shape[1]}"
            )
        self._dim = int(matrix.shape[1])
        return matrix

    def _post(self, path: str, payload: dict[str, Any], headers: dict[str, str]) -> Any:
        url = f"{self._base_url}{path}"
        try:
            response = self._client.post(url, json=payload, headers=headers)
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"{self.name}: cannot reach {url}: {exc}") from exc
        if response.status_code >= 400:
            raise EmbeddingError(
                f"{self.name}: {url} answered {response.status_code}: {response.text[:200]}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise EmbeddingError(f"{self.name}: {url} did not answer JSON") from exc

    def _request(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError


class OllamaProvider(_HttpProvider):
    """Ollama's `/api/embed` endpoint."""

    _kind = "ollama"

    def _request(self, texts: list[str]) -> list[list[float]]:
        data = self._post("/api/embed", {"model": self._model, "input": texts}, {})
        try:
            vectors: list[list[float]] = data["embeddings"]  # JSON: its shape is checked by numpy
            return vectors
        except (KeyError, TypeError) as exc:
            raise EmbeddingError(f"{self.name}: unexpected answer shape") from exc


class OpenAIProvider(_HttpProvider):
    """Any OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, LM Studio, llama.cpp...)."""

    _kind = "openai"

    def __init__(self, *, api_key_env: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._api_key = os.environ.get(api_key_env, "")

    def _request(self, texts: list[str]) -> list[list[float]]:
        payload: dict[str, Any] = {"model": self._model, "input": texts}
        if self._dimensions:
            payload["dimensions"] = self._dimensions
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        data = self._post("/embeddings", payload, headers)
        try:
            items = sorted(data["data"], key=lambda item: item.get("index", 0))
            return [item["embedding"] for item in items]
        except (KeyError, TypeError, AttributeError) as exc:
            raise EmbeddingError(f"{self.name}: unexpected answer shape") from exc
