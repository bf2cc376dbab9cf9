"""Remote providers against a double of the endpoint a user would configure."""

import json

import httpx
import numpy as np
import pytest

from nano_brain.embedding.remote import OllamaProvider, OpenAIProvider
from nano_brain.errors import EmbeddingError


def _openai_endpoint(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    assert request.url.path == "/v1/embeddings"
    assert request.headers["authorization"] == "Bearer sk-test"
    data = [
        {"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])
    ]
    return httpx.Response(200, json={"data": list(reversed(data))})


def test_openai_compatible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test")
    provider = OpenAIProvider(
        model="m",
        base_url="http://embed.test/v1",
        timeout_s=5,
        api_key_env="MY_KEY",
        client=httpx.Client(transport=httpx.MockTransport(_openai_endpoint)),
    )
    out = provider.embed_documents(["a", "abcd"])
    assert out.shape == (2, 3) and provider.dim == 3 and provider.name == "openai/m"
    expected = np.array([4.0, 1.0, 0.0]) / np.linalg.norm([4.0, 1.0, 0.0])
    assert np.allclose(out[1], expected)  # answer order restored from "index"


def test_ollama() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/embed"
        n = len(json.loads(request.content)["input"])
        return httpx.Response(200, json={"embeddings": [[0.0, 2.0]] * n})

    provider = OllamaProvider(
        model="nomic",
        base_url="http://ollama.test",
        timeout_s=5,
        client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    assert np.allclose(provider.embed_query("x"), [0.0, 1.0])


@pytest.mark.parametrize(
    "response,message",
    [
        (httpx.Response(500, text="boom"), "answered 500"),
        (httpx.Response(200, text="nope"), "JSON"),
        (httpx.Response(200, json={"x": 1}), "unexpected answer shape"),
    ],
)
def test_endpoint_errors_are_embedding_errors(response: httpx.Response, message: str) -> None:
    provider = OpenAIProvider(
        model="m",
        base_url="http://e.test",
        timeout_s=5,
        api_key_env="NONE",
        client=httpx.Client(transport=httpx.MockTransport(lambda r: response)),
    )
    with pytest.raises(EmbeddingError, match=message):
        provider.embed_documents(["a"])


def test_unreachable_endpoint() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    provider = OllamaProvider(
        model="m",
        base_url="http://127.0.0.1:9",
        timeout_s=1,
        client=httpx.Client(transport=httpx.MockTransport(refuse)),
    )
    with pytest.raises(EmbeddingError, match="cannot reach"):
        provider.embed_documents(["a"])
