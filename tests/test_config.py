from pathlib import Path

import pytest

from nano_brain.config import WORKSPACE_CONFIG_NAME, SearchConfig, load_config

DEFAULT_K = SearchConfig().rrf_k


def test_defaults_without_any_file(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    assert loaded.config.embedding.provider == "local"
    assert loaded.config.storage.max_content_bytes == 5 * 1024 * 1024
    assert loaded.warnings == []


def test_invalid_values_warn_and_fall_back(tmp_path: Path) -> None:
    (tmp_path / WORKSPACE_CONFIG_NAME).write_text(
        "search:\n  rrf_k: banana\n  recency_half_life: banana\n  candidates: 70\n"
        "embedding:\n  provider: quantum\n"
        "nonsense: 1\n"
    )
    loaded = load_config(tmp_path)
    cfg = loaded.config
    assert cfg.search.rrf_k == DEFAULT_K and cfg.search.recency_half_life == "30d"
    assert cfg.search.candidates == 70  # a valid neighbour is kept
    assert cfg.embedding.provider == "local"
    text = "\n".join(loaded.warnings)
    for key in ("search.rrf_k", "search.recency_half_life", "embedding.provider", "nonsense"):
        assert key in text


def test_layering_global_workspace_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    global_file = tmp_path / "global.yml"
    global_file.write_text("search:\n  rrf_k: 12\n  candidates: 20\n")
    (tmp_path / WORKSPACE_CONFIG_NAME).write_text("search:\n  candidates: 40\n")
    monkeypatch.setenv("NANO_BRAIN_CONFIG", str(global_file))
    monkeypatch.setenv("NANO_BRAIN_EMBEDDING__PROVIDER", "none")
    cfg = load_config(tmp_path).config
    assert (cfg.search.rrf_k, cfg.search.candidates, cfg.embedding.provider) == (12, 40, "none")


def test_unreadable_yaml_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / WORKSPACE_CONFIG_NAME).write_text("search: [unclosed\n")
    loaded = load_config(tmp_path)
    assert loaded.config.search.rrf_k == DEFAULT_K
    assert any("cannot be read" in w for w in loaded.warnings)
