"""Where each agent keeps its transcripts, and one entry point over all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..config import AgentName, LocationsConfig
from . import claude_code, codex, gemini, opencode, pi
from ._common import log
from ._files import DEFAULT_LIMITS, ReadLimits
from .model import AGENTS, Session, SessionSource, TranscriptError


@dataclass(frozen=True, slots=True)
class HarvestLocations:
    """Base folders per agent; each is configurable because agents honour env overrides."""

    claude_projects: Path = claude_code.DEFAULT_BASE
    codex_sessions: Path = codex.DEFAULT_BASE
    pi_sessions: Path = pi.DEFAULT_BASE
    opencode_data: Path = opencode.DEFAULT_BASE
    gemini_tmp: Path = gemini.DEFAULT_BASE

    @classmethod
    def under_home(cls, home: str | Path) -> HarvestLocations:
        """The default layout below another home folder (tests, other users, containers)."""
        home = Path(home)
        return cls(
            claude_projects=home / ".claude" / "projects",
            codex_sessions=home / ".codex" / "sessions",
            pi_sessions=home / ".pi" / "agent" / "sessions",
            opencode_data=home / ".local" / "share" / "opencode",
            gemini_tmp=home / ".gemini" / "tmp",
        )

    @classmethod
    def from_config(
        cls, config: LocationsConfig, home: str | Path | None = None
    ) -> HarvestLocations:
        """Concrete folders: configured ones (with `~` expanded), defaults for the rest."""
        base = cls.under_home(home) if home else cls()

        def pick(value: Path | None, default: Path) -> Path:
            return Path(value).expanduser() if value else default

        return cls(
            claude_projects=pick(config.claude_code, base.claude_projects),
            codex_sessions=pick(config.codex, base.codex_sessions),
            pi_sessions=pick(config.pi, base.pi_sessions),
            opencode_data=pick(config.opencode, base.opencode_data),
            gemini_tmp=pick(config.gemini, base.gemini_tmp),
        )

    def base(self, agent: AgentName) -> Path:
        return {
            "claude-code": self.claude_projects,
            "codex": self.codex_sessions,
            "pi": self.pi_sessions,
            "opencode": self.opencode_data,
            "gemini": self.gemini_tmp,
        }[agent]


_DISCOVER: dict[AgentName, Callable[..., list[SessionSource]]] = {
    "claude-code": claude_code.discover,
    "codex": codex.discover,
    "pi": pi.discover,
    "opencode": opencode.discover,
    "gemini": gemini.discover,
}
_PARSE: dict[AgentName, Callable[..., Session]] = {
    "claude-code": claude_code.parse,
    "codex": codex.parse,
    "pi": pi.parse,
    "opencode": opencode.parse,
    "gemini": gemini.parse,
}


def discover_sessions(
    root: str | Path,
    locations: HarvestLocations | None = None,
    agents: Iterable[AgentName] = AGENTS,
    *,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> list[SessionSource]:
    """Every session of the selected agents that ran in `root` (or below it).

    An agent whose store cannot be read (OpenCode database locked, a folder tree too deep
    to walk, ...) is logged in one line and skipped, so the others are still harvested.
    """
    locations = locations or HarvestLocations()
    root_path = Path(root).expanduser()
    found: list[SessionSource] = []
    for agent in agents:
        try:
            found.extend(_DISCOVER[agent](root_path, locations.base(agent).expanduser(), limits))
        except TranscriptError as exc:
            log.warning("skipping %s sessions this time: %s", agent, exc)
        except Exception as exc:  # one agent's odd folder must not stop the others
            log.warning(
                "skipping %s sessions this time: %s: %s", agent, exc.__class__.__name__, exc
            )
            log.debug("discovery of %s sessions failed", agent, exc_info=True)
    return found


def load_session(source: SessionSource, *, limits: ReadLimits = DEFAULT_LIMITS) -> Session:
    """Parse a discovered session. Raises TranscriptError when it cannot be read at all."""
    return _PARSE[source.agent](source, limits=limits)
