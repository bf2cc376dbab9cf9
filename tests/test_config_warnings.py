"""A config warning is shown once per command, whichever command loads the config; a section
left empty means its defaults."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from nano_brain.config import ConsolidateConfig, HarvestConfig, load_config

from .test_cli import EXE

_BAD = "search:\n  rrf_k: -1\n"


def _cli(workspace: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert EXE
    return subprocess.run(
        [EXE, *args, "--workspace", str(workspace)],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "NANO_BRAIN_CONFIG": str(config),
            "NANO_BRAIN_EMBEDDING__PROVIDER": "none",
        },
        timeout=120,
    )


def test_an_empty_section_means_its_defaults(workspace: Path) -> None:
    (workspace / ".nano-brain.yml").write_text(
        "consolidate:\n  # every: 24h\nharvest:\n  locations:\n"
    )
    loaded = load_config(workspace)
    assert loaded.warnings == []
    assert loaded.config.consolidate == ConsolidateConfig()
    assert loaded.config.harvest == HarvestConfig()


@pytest.mark.parametrize(
    "command",
    [
        ("config", "check"),
        ("config", "show"),
        ("config", "show", "--json"),
        ("status",),
        ("status", "--json"),
        ("list",),
        ("search", "anything"),
    ],
)
def test_each_warning_is_printed_once(
    workspace: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    config = tmp_path / "config.yml"
    config.write_text(_BAD)
    assert _cli(workspace, config, "write", "a note, so that the store exists").returncode == 0
    out = _cli(workspace, config, *command)
    both = out.stdout + out.stderr
    assert out.returncode == (1 if command == ("config", "check") else 0), both
    assert both.count("search.rrf_k") == 1, both
