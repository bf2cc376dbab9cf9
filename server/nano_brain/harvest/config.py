"""The `harvest:` section of the configuration, and its lenient loader.

The models live in `nano_brain.config` with every other section (loading the config must not
import the transcript parsers); they are re-exported here under their old names. Every
invalid or unknown value warns and falls back to its default; loading never raises.

    harvest:
      agents: [claude-code, codex]        # default: every agent
      locations:
        claude_code: ~/.claude/projects   # default: the agent's own default folder
      summarizer:
        provider: openai                  # default: digest (no LLM)
        base_url: http://127.0.0.1:8080/v1
        model: qwen2.5-7b-instruct
        api_key_env: OPENAI_API_KEY
        timeout_s: 60
      debounce_s: 2
      settle_s: 30
      max_line_bytes: 32MB                # longer transcript records are skipped
      max_file_bytes: 1GB                 # bytes read per transcript file at most
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import (
    DEFAULT_TICKET_PATTERN,
    HarvestConfig,
    LocationsConfig,
    SummarizerConfig,
    load_config,
)

__all__ = [
    "DEFAULT_TICKET_PATTERN",
    "HarvestConfig",
    "LocationsConfig",
    "SummarizerConfig",
    "harvest_config_of",
    "load_harvest_config",
]


def load_harvest_config(
    root: Path | None = None, *, env: dict[str, str] | None = None
) -> tuple[HarvestConfig, list[str]]:
    """The `harvest:` section of the effective config, and the warnings about it."""
    loaded = load_config(root, env=env)
    return loaded.config.harvest, [w for w in loaded.warnings if w.startswith("harvest")]


def harvest_config_of(brain: Any) -> tuple[HarvestConfig, list[str]]:
    """The harvest config a Brain was opened with (its warnings were logged then)."""
    return brain.config.harvest, []
