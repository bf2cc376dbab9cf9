"""The `harvest:` section of the configuration, and its lenient loader.

This module imports nothing from `nano_brain.config` at import time, so `config.py` can
import `HarvestConfig` from here (to add `harvest: HarvestConfig` to `Config`) without an
import cycle. Until it does, `load_harvest_config` reads the `harvest:` section of the same
files and environment itself, with the same rule: every invalid or unknown value warns and
falls back to its default; loading never raises.

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
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .model import AGENTS, AgentName
from .sources import HarvestLocations

log = logging.getLogger("nano_brain.harvest")

DEFAULT_TICKET_PATTERN = r"\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b"


class _Section(BaseModel):
    """Same rules as `nano_brain.config` sections: unknown keys are errors, not ignored."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True)


class LocationsConfig(_Section):
    """Base folder per agent; None means the agent's default below the home folder."""

    claude_code: Path | None = None
    codex: Path | None = None
    pi: Path | None = None
    opencode: Path | None = None
    gemini: Path | None = None

    def resolve(self, home: Path | None = None) -> HarvestLocations:
        """Concrete folders: configured ones (with `~` expanded), defaults for the rest."""
        base = HarvestLocations.under_home(home) if home else HarvestLocations()
        pick = lambda value, default: Path(value).expanduser() if value else default  # noqa: E731
        return HarvestLocations(
            claude_projects=pick(self.claude_code, base.claude_projects),
            codex_sessions=pick(self.codex, base.codex_sessions),
            pi_sessions=pick(self.pi, base.pi_sessions),
            opencode_data=pick(self.opencode, base.opencode_data),
            gemini_tmp=pick(self.gemini, base.gemini_tmp),
        )


class SummarizerConfig(_Section):
    """Who writes the summary: the deterministic digest, or an OpenAI-compatible endpoint."""

    provider: Literal["digest", "openai"] = "digest"
    base_url: str | None = None
    """Endpoint root, e.g. `https://api.openai.com/v1` or a local llama.cpp/Ollama server."""
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable holding the key (never the key itself)."""
    timeout_s: float = Field(60.0, gt=0)
    max_input_chars: int = Field(24_000, ge=1000, le=1_000_000)
    """How much of the (redacted) digest and conversation is sent to the endpoint."""
    retry_after_s: float = Field(300.0, ge=0)
    """After a failed summary, wait this long before calling the endpoint again."""


class HarvestConfig(_Section):
    agents: list[AgentName] = Field(default_factory=lambda: list(AGENTS))
    """Agents whose transcripts are harvested."""
    locations: LocationsConfig = Field(default_factory=LocationsConfig)
    summarizer: SummarizerConfig = Field(default_factory=SummarizerConfig)
    debounce_s: float = Field(2.0, ge=0, le=3600)
    """Watch mode: wait for this much quiet after a file event before harvesting."""
    settle_s: float = Field(30.0, ge=0, le=86_400)
    """Watch mode: a transcript modified less than this long ago is still being written."""
    rescan_s: float = Field(300.0, gt=0, le=86_400)
    """Watch mode: full rescan period, to catch events the watcher missed."""
    max_conversation_chars: int = Field(100_000, ge=0, le=10_000_000)
    """Conversation text kept for search per session (head and tail when longer)."""
    ticket_patterns: list[str] = Field(default_factory=lambda: [DEFAULT_TICKET_PATTERN])
    """Regexes that find ticket ids in a session's git branch; each becomes `ticket:<ID>`."""

    @field_validator("ticket_patterns")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regex {pattern!r}: {exc}") from None
        return value

    @field_validator("agents")
    @classmethod
    def _unique(cls, value: list[AgentName]) -> list[AgentName]:
        return list(dict.fromkeys(value))


def load_harvest_config(
    root: Path | None = None, *, env: dict[str, str] | None = None
) -> tuple[HarvestConfig, list[str]]:
    """The `harvest:` section of the effective config, and the warnings about it."""
    from ..config import load_config  # deferred: nano_brain.config imports this module

    loaded = load_config(root, env=env)
    return loaded.config.harvest, [w for w in loaded.warnings if w.startswith("harvest")]


def harvest_config_of(brain: Any) -> tuple[HarvestConfig, list[str]]:
    """The harvest config a Brain was opened with (its warnings were logged then)."""
    return brain.config.harvest, []
