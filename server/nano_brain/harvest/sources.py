"""Where each agent keeps its transcripts, and one entry point over all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import claude_code, codex, gemini, opencode, pi
from ._common import log
from .model import AGENTS, AgentName, Session, SessionSource, TranscriptError


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

    def base(self, agent: AgentName) -> Path:
        return {
            "claude-code": self.claude_projects,
            "codex": self.codex_sessions,
            "pi": self.pi_sessions,
            "opencode": self.opencode_data,
            "gemini": self.gemini_tmp,
        }[agent]


_DISCOVER: dict[AgentName, Callable[[str | Path, str | Path | None], list[SessionSource]]] = {
    "claude-code": claude_code.discover,
    "codex": codex.discover,
    "pi": pi.discover,
    "opencode": opencode.discover,
    "gemini": gemini.discover,
}
_PARSE: dict[AgentName, Callable[[SessionSource], Session]] = {
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
) -> list[SessionSource]:
    """Every session of the selected agents that ran in `root` (or below it).

    An agent whose store cannot be read (OpenCode database locked, say) is logged and
    skipped, so the others are still harvested this tick.
    """
    locations = locations or HarvestLocations()
    root_path = Path(root).expanduser()
    found: list[SessionSource] = []
    for agent in agents:
        try:
            found.extend(_DISCOVER[agent](root_path, locations.base(agent).expanduser()))
        except TranscriptError as exc:
            log.warning("skipping %s sessions this time: %s", agent, exc)
    return found


def load_session(source: SessionSource) -> Session:
    """Parse a discovered session. Raises TranscriptError when it cannot be read at all."""
    return _PARSE[source.agent](source)
