"""The `harvest:` config section: same files, same lenient rule as the rest of the config."""

from __future__ import annotations

from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.harvest import (
    AGENTS,
    HarvestConfig,
    Harvester,
    HarvestLocations,
    load_harvest_config,
)
from nano_brain.harvest.config import DEFAULT_TICKET_PATTERN

from ..conftest import TinyEmbedder, trust_workspace_config
from . import _layout


def test_defaults(workspace: Path) -> None:
    config, warnings = load_harvest_config(workspace)
    assert warnings == []
    assert config == HarvestConfig()
    assert config.agents == list(AGENTS)
    assert config.summarizer.provider == "digest"
    assert config.ticket_patterns == [DEFAULT_TICKET_PATTERN]


def test_workspace_file_invalid_values_warn_and_fall_back(workspace: Path) -> None:
    (workspace / ".nano-brain.yml").write_text(
        "harvest:\n"
        "  agents: [codex, nosuch]\n"
        "  debounce_s: -1\n"
        "  settle_s: 5\n"
        "  colour: blue\n"
        "  ticket_patterns: ['(unclosed']\n"
        "  locations:\n"
        "    codex: ~/elsewhere/codex\n"
        "  summarizer:\n"
        "    provider: openai\n"
        "    base_url: http://127.0.0.1:8080/v1\n"
        "    model: qwen\n"
        "    timeout_s: 0\n"
    )
    trust_workspace_config(workspace)  # it names an endpoint and an outside folder
    config, warnings = load_harvest_config(workspace)
    assert config.settle_s == 5
    assert config.agents == list(AGENTS)  # invalid list -> default
    assert config.debounce_s == HarvestConfig().debounce_s
    assert config.ticket_patterns == [DEFAULT_TICKET_PATTERN]
    assert config.locations.codex == Path("~/elsewhere/codex")
    assert (
        HarvestLocations.from_config(config.locations).codex_sessions
        == Path.home() / "elsewhere" / "codex"
    )
    assert config.summarizer.provider == "openai" and config.summarizer.model == "qwen"
    assert config.summarizer.timeout_s == 60.0
    text = "\n".join(warnings)
    for key in (
        "agents",
        "debounce_s",
        "colour: unknown key",
        "ticket_patterns",
        "summarizer.timeout_s",
    ):
        assert f"harvest.{key}" in text, key


def test_not_a_mapping_and_global_file_and_env(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    global_file = tmp_path / "global.yml"
    global_file.write_text("harvest:\n  settle_s: 7\n  rescan_s: 60\n")
    monkeypatch.setenv("NANO_BRAIN_CONFIG", str(global_file))
    (workspace / ".nano-brain.yml").write_text("harvest:\n  rescan_s: 30\n")
    config, warnings = load_harvest_config(workspace, env={"NANO_BRAIN_HARVEST__SETTLE_S": "9"})
    assert (config.settle_s, config.rescan_s, warnings) == (9, 30, [])

    (workspace / ".nano-brain.yml").write_text("harvest: [1, 2]\n")
    config, warnings = load_harvest_config(workspace, env={})
    assert config == HarvestConfig()  # a broken section falls back whole, as in load_config
    assert warnings and "expected a mapping" in warnings[0]


def test_harvester_reads_the_workspace_config(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    loc = HarvestLocations.under_home(home)
    _layout.claude(loc, workspace)
    _layout.gemini(loc, workspace)
    (workspace / ".nano-brain.yml").write_text(
        f"harvest:\n  agents: [gemini]\n  locations:\n    gemini: {loc.gemini_tmp}\n"
    )
    trust_workspace_config(workspace)
    with Brain(workspace, provider=TinyEmbedder(), actor="harvest") as brain:
        report = Harvester(brain).run_once()
    assert [(i.agent, i.action) for i in report.items] == [("gemini", "added")]
