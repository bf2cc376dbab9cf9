"""initializationOptions: a tree of small typed models, each field with a safe default.

Editors send whatever their users typed into a settings file. A typo must not stop the
server, so each invalid value is dropped (its default used) and reported once through
``window/showMessage`` and ``window/logMessage`` by the server; :func:`parse_options` is pure.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config import validate_leniently


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HoverOptions(_Section):
    enabled: bool = True
    max_notes: int = Field(5, ge=1, le=50, description="anchored notes shown per hover")
    max_related: int = Field(3, ge=0, le=20, description="related memories (0: none)")
    min_similarity: float = Field(
        0.45,
        ge=0.0,
        le=1.0,
        description="vector similarity a related memory needs when "
        "its words do not match (keeps hovers on unrelated words empty)",
    )
    max_commits: int = Field(
        3, ge=0, le=20, description="newest commits that changed the symbol (0: none)"
    )
    max_sessions: int = Field(
        2, ge=0, le=20, description="newest agent sessions that edited its file (0: none)"
    )
    snippet_chars: int = Field(160, ge=40, le=1000)
    cache_entries: int = Field(
        2048, ge=0, le=100_000, description="related-memory results kept between hovers (0: none)"
    )
    related_budget_ms: int = Field(
        25,
        ge=0,
        le=10_000,
        description="how long a hover waits for a related-memory search it has no cached "
        "result for; a slower search still finishes and shows from the next hover (0: wait)",
    )


class IndexOptions(_Section):
    enabled: bool = True
    embed: bool = Field(
        True,
        description="embed what index passes add (the vector legs), in the background after "
        "each pass, with work-done progress and an estimate; false: nothing is embedded but "
        "a note as it is written",
    )
    exclude: list[str] = Field(default_factory=list, description="gitignore-style patterns")
    debounce_ms: int = Field(
        300, ge=0, le=60_000, description="quiet time after a save or file change before indexing"
    )
    workers: int = Field(
        2,
        ge=1,
        le=16,
        description="parse processes (a forkserver pool: safe in this threaded server)",
    )
    watch: Literal["auto", "client", "server", "off"] = Field(
        "auto",
        description="who reports files changed outside the editor: `client` file watchers "
        "(registered dynamically), the `server`'s own watchdog observer, or `auto`: the "
        "client's when it can register them, else the server's",
    )


class McpOptions(_Section):
    transport: Literal["unix", "tcp", "off"] = Field(
        "unix", description="serve MCP to agents on a 0600 unix socket, a loopback port, or not"
    )
    port: int = Field(0, ge=0, le=65535, description="tcp port (0: a free one)")


class HarvestOptions(_Section):
    enabled: bool = Field(
        False,
        description="watch the agents' transcript folders and harvest this workspace's "
        "sessions while the editor is open (`nano-brain watch` does the same without one)",
    )


class EmbeddingOptions(_Section):
    provider: Literal["local", "ollama", "openai", "none"] | None = Field(
        None, description="overrides embedding.provider of the workspace config"
    )


class ReviewOptions(_Section):
    enabled: bool | None = Field(None, description="overrides review.enabled of the config")


class InitializationOptions(_Section):
    """What a client may send as ``initializationOptions`` (every key optional)."""

    hover: HoverOptions = Field(default_factory=HoverOptions)
    index: IndexOptions = Field(default_factory=IndexOptions)
    mcp: McpOptions = Field(default_factory=McpOptions)
    harvest: HarvestOptions = Field(default_factory=HarvestOptions)
    embedding: EmbeddingOptions = Field(default_factory=EmbeddingOptions)
    review: ReviewOptions = Field(default_factory=ReviewOptions)
    workspace_trusted: bool | None = Field(
        None,
        description="the editor's own verdict on the workspace (VS Code's Workspace Trust): "
        "false ignores what the workspace's `.nano-brain.yml` says about endpoints, "
        "credentials and outside files, true lets it count; unset: `nano-brain trust` decides",
    )
    code_lens: bool = True
    diagnostics: bool = True
    log_level: Literal["error", "warning", "info", "debug"] = "info"


def parse_options(raw: Any) -> tuple[InitializationOptions, list[str]]:
    """Validate ``raw``; every invalid value falls back to its default and yields a message."""
    if raw is None:
        return InitializationOptions(), []
    problems: list[str] = []
    options = validate_leniently(InitializationOptions, raw, "initializationOptions", problems)
    return options, problems


def config_overrides(options: InitializationOptions) -> dict[str, Any]:
    """The workspace config values the editor's settings override (only those it set)."""
    overrides: dict[str, Any] = {}
    if options.embedding.provider is not None:
        overrides["embedding"] = {"provider": options.embedding.provider}
    if options.review.enabled is not None:
        overrides["review"] = {"enabled": options.review.enabled}
    return overrides
