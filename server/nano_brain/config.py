"""Configuration: one pydantic model, defaults in one place, invalid values warn and fall back.

Sources, later ones winning: defaults, the global `config.yml` under the XDG config dir, the
workspace's `.nano-brain.yml`, then `NANO_BRAIN_<SECTION>__<KEY>` environment variables.
"""

from __future__ import annotations

import logging
import os
import re
import reprlib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import paths
from .configfile import read_yaml
from .errors import NanoBrainError
from .timeutil import parse_duration
from .trust import WorkspaceTrust, judge

log = logging.getLogger(__name__)

WORKSPACE_CONFIG_NAME = ".nano-brain.yml"
ENV_PREFIX = "NANO_BRAIN_"
#: The shipped model the code index is embedded with (see embedding/shipped.py).
DEFAULT_LOCAL_CODE_MODEL = "all-minilm-l6-v2-int8"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4}


def parse_size(text: str | int) -> int:
    """Bytes in a size such as `500MB`, `2GB` or a plain number of bytes."""
    match = _SIZE.match(str(text))
    if not match:
        raise ValueError(f"invalid size {text!r}: expected e.g. 500MB or 2GB")
    return int(float(match.group(1)) * _SIZE_UNITS[(match.group(2) or "b").lower()])


class StorageConfig(_Section):
    db_path: Path | None = None
    """Override of the store file; default `<data dir>/workspaces/<id>/brain.db`."""
    max_content_bytes: int = Field(5 * 1024 * 1024, gt=0)
    busy_timeout_ms: int = Field(10_000, ge=0)
    max_size: str | None = Field(None, alias="maxSize")
    """Evict documents when the store grows past this (e.g. `500MB`); None = no limit."""
    evict_decisions: bool = False
    """Let eviction remove active decisions too (pinned documents are never evicted)."""
    url: str | None = None
    """A team store: `postgresql://user@host:5432/db` (notes, sessions, audit log shared by
    everyone on the same `workspace`); None = the local SQLite file. Never with a password:
    libpq reads it from PGPASSWORD or ~/.pgpass."""
    workspace: str | None = Field(None, min_length=1, max_length=200)
    """The workspace's name in a team store; default: the git remote `origin` of the
    repository (so every clone shares it), else this folder's id."""
    vector_index: Literal["ivfflat", "hnsw", "exact"] = "ivfflat"
    """The team store's approximate k-NN index (pgvector): ivfflat, hnsw or exact scans."""

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from .dburl import check_url

        try:
            return check_url(value.strip())
        except NanoBrainError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("max_size")
    @classmethod
    def _size(cls, value: str | None) -> str | None:
        if value is not None and parse_size(value) <= 0:
            raise ValueError("must be positive")
        return value

    def max_size_bytes(self) -> int | None:
        return None if self.max_size is None else parse_size(self.max_size)


class DecayConfig(_Section):
    """Phase-1 relevance decay: how fast unused memories fade (off by default)."""

    enabled: bool = False
    half_life: str = Field("30d", alias="halfLife")
    boost_weight: float = Field(0.15, ge=0, le=1, alias="boostWeight")

    @field_validator("half_life")
    @classmethod
    def _duration(cls, value: str) -> str:
        return _positive_duration(value)

    def half_life_days(self) -> float:
        return parse_duration(self.half_life) / 86400


class ReviewConfig(_Section):
    enabled: bool = False
    """Notes written by agents (MCP) or harvested start `unreviewed` until a person confirms."""


class RedactConfig(_Section):
    enabled: bool = True
    """Replace credentials in every note with `[REDACTED:<kind>]` before it is stored
    (harvested transcripts are redacted whatever this says)."""


class EmbeddingConfig(_Section):
    provider: Literal["local", "ollama", "openai", "none"] = "local"
    model: str | None = None
    """Model for notes and sessions; default depends on the provider (the shipped model for
    `local`)."""
    code_model: str | None = None
    """Model for the code index; default `all-minilm-l6-v2-int8` for `local` (it knows code
    far better than the note model), the note model for other providers."""
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int | None = Field(None, gt=0)
    batch_size: int = Field(32, gt=0, le=1024)
    threads: int = Field(default_factory=lambda: min(2, os.cpu_count() or 1), gt=0, le=64)
    """Texts of a batch the local model embeds at once, each on a thread of its own at low
    priority (the model's operators run on one thread each). Default: two, or one on a
    one-core machine; more than the cores only adds switching."""
    timeout_s: float = Field(30.0, gt=0)
    test_code: bool = False
    """Test code gets vectors too. Off by default: test code is found by its words and
    symbols, and is two thirds of a large repository's symbols (SQLAlchemy: 27,565 of
    42,092), so most of a first index's embedding time."""
    embed_on_write: bool = True
    """A short-lived writer (the CLI) embeds its note before it exits (else its chunks wait
    for the next fill); long-running front ends always embed in the background."""

    def code_model_name(self) -> str | None:
        """The code space's model (None: the provider's default, as for notes)."""
        if self.code_model is not None:
            return self.code_model
        return DEFAULT_LOCAL_CODE_MODEL if self.provider == "local" else self.model


class FusionConfig(_Section):
    """Reciprocal rank fusion: score = sum of weight / (rrf_k + rank) over the legs."""

    rrf_k: int = Field(10, gt=0)
    lexical_weight: float = Field(1.0, ge=0)
    vector_weight: float = Field(1.0, ge=0)


class CodeFusionConfig(FusionConfig):
    """Fusion for code-only searches, tuned on CoSQA dev for the default code model
    (all-MiniLM-L6): its vectors find code far better than words do, so the lexical leg
    mostly breaks ties (MRR 0.52 where equal weights give 0.48)."""

    rrf_k: int = Field(5, gt=0)
    lexical_weight: float = Field(0.3, ge=0)
    vector_weight: float = Field(1.0, ge=0)


class SearchConfig(_Section):
    rrf_k: int = Field(10, gt=0)
    lexical_weight: float = Field(1.5, ge=0)
    vector_weight: float = Field(1.0, ge=0)
    recency_weight: float = Field(0.05, ge=0)
    recency_half_life: str = "30d"
    default_limit: int = Field(10, gt=0, le=1000)
    candidates: int = Field(30, gt=0, le=2000)
    """Candidates the lexical leg contributes to fusion (the vector leg brings 30 too).
    LoCoMo dev R@10 by pool: 20 -> 0.693, 25 -> 0.699, 30 -> 0.706, 35 -> 0.704, 50 -> 0.705;
    CoSQA is the same at 30 and 50; 30 costs 11% less per query than 50 at 10k chunks."""

    code_fusion: CodeFusionConfig = Field(default_factory=lambda: CodeFusionConfig())
    """Fusion for code-only queries (kind=code)."""
    usage_boost_weight: float = Field(0.15, ge=0)
    """Phase-1 usage boost in hybrid search; 0 disables it (access is still tracked)."""
    track_access: bool = True
    """Count the documents a search returns as accessed (feeds the usage boost and decay)."""
    vector_min_similarity: float = Field(0.15, ge=-1, le=1)
    """Note and session matches by meaning less similar than this (cosine) are dropped: on a
    small store the nearest note is otherwise returned however unrelated it is. Measured for
    the default note model on LoCoMo: 0.6% of the evidence turns are below 0.15."""
    usage_band: float = Field(0.1, ge=0, le=1)
    """How far use can lift a result, on the relevance scale where 1.0 is "first in every
    leg": a result only passes others whose relevance is within this of its own."""
    usage_floor: float = Field(0.5, ge=0, le=1)
    """Only candidates at least this fraction as relevant as the best one are lifted by use."""
    feedback_terms: int = Field(5, ge=0, le=50)
    """Pseudo-relevance feedback: words taken from the best lexical matches to search again
    with (0 turns it off)."""
    feedback_weight: float = Field(0.2, ge=0, le=1)
    """What a feedback word's match counts for, against the query's own words."""
    thread_weight: float = Field(0.5, ge=0, le=1)
    """Share of a note's relevance lent to its neighbours in the thread (0 turns it off)."""
    thread_window: int = Field(2, ge=0, le=10)
    """How many notes before and after a match in its thread receive a share."""
    thread_gap: str = "30m"
    """A pause longer than this between two writes starts a new thread."""
    relevance_floor: bool = True
    """Hybrid lists (`query`, `memory_query`, the page) and the related lists (hover, `why`)
    show only what clears the relevance floor measured for the model, and may be empty
    (docs/search.md); false shows every candidate, however unrelated."""
    supersede_demotion: float = Field(0.5, ge=0, le=1)
    """Score factor for superseded documents when a query asks to include them."""

    @field_validator("recency_half_life", "thread_gap")
    @classmethod
    def _duration(cls, value: str) -> str:
        return _positive_duration(value)


# -- harvest ---------------------------------------------------------------------------------
# The `harvest:` section lives here, not in the harvest package, so that loading the config
# never imports the parsers and the harvest package can import this module freely.

AgentName = Literal["claude-code", "codex", "pi", "opencode", "gemini"]
AGENTS: tuple[AgentName, ...] = ("claude-code", "codex", "pi", "opencode", "gemini")
DEFAULT_TICKET_PATTERN = r"\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b"


class LocationsConfig(_Section):
    """Base folder per agent; None means the agent's default below the home folder."""

    claude_code: Path | None = None
    codex: Path | None = None
    pi: Path | None = None
    opencode: Path | None = None
    gemini: Path | None = None


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
    max_line_bytes: int = Field(32 * 1024**2, ge=1024, le=1024**3)
    """Longest transcript record read (a JSONL line, or a whole JSON session file); a longer
    one is skipped and counted, never loaded."""
    max_file_bytes: int = Field(1024**3, ge=1024, le=64 * 1024**3)
    """Most bytes read from one transcript file; the rest is skipped and counted."""

    @field_validator("max_line_bytes", "max_file_bytes", mode="before")
    @classmethod
    def _size(cls, value: Any) -> Any:
        return parse_size(value) if isinstance(value, str) else value

    @field_validator("ticket_patterns")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        # the engine that runs them decides; imported here, as a config that sets no
        # patterns (most) needs no engine loaded
        from .userpatterns import compile_pattern

        for pattern in value:
            compile_pattern(pattern)  # ValueError naming the pattern
        return value

    @field_validator("agents")
    @classmethod
    def _unique(cls, value: list[AgentName]) -> list[AgentName]:
        return list(dict.fromkeys(value))


class ConsolidateConfig(_Section):
    every: str | None = Field(
        None,
        description="run a consolidation pass this often in the editor's sidecar (e.g. 24h); "
        "it only proposes (the review queue applies); off when unset",
    )

    @field_validator("every")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        return None if value is None else _positive_duration(value)


class ChunkingConfig(_Section):
    max_chars: int = Field(1200, ge=200, le=100_000)
    overlap_chars: int = Field(150, ge=0, le=10_000)


def _positive_duration(value: str) -> str:
    try:
        seconds = parse_duration(value)
    except NanoBrainError as exc:
        raise ValueError(str(exc)) from None
    if seconds <= 0:
        raise ValueError("must be positive")
    return value


class UserConfig(_Section):
    name: str | None = Field(None, min_length=1, max_length=200)
    """Who you are in a team store's audit log; default: git's `user.name`."""


class HistoryConfig(_Section):
    """The git history as memory (see docs/history.md)."""

    enabled: bool = True
    """Index the workspace's git history with the code (`nano-brain index`, the sidecar)."""
    max_commits: int = Field(10_000, ge=1, le=1_000_000, alias="maxCommits")
    """Keep at most this many commits, the newest."""
    since: str | None = None
    """Only commits since this date (any date git understands, e.g. 2024-01-01, 2.years)."""
    max_files_per_commit: int = Field(300, ge=1, le=100_000, alias="maxFilesPerCommit")
    """A commit changing more files (a vendored import, a mass reformat) is kept as memory,
    but its symbols are not linked beyond this many files."""
    search_weight: float = Field(0.5, ge=0, le=1, alias="searchWeight")
    """How much a commit found by a query that names no kind counts against a note."""

    @field_validator("since")
    @classmethod
    def _since(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or len(value) > 100 or value.startswith("-")):
            raise ValueError("must be a date or age git understands, e.g. 2024-01-01")
        return value


class HooksConfig(_Section):
    """What agent hooks add to an agent's context (`nano-brain hooks install`, docs/hooks.md)."""

    enabled: bool = True
    """Off: every hook answers nothing."""
    session_start_chars: int = Field(4000, ge=200, le=9500, alias="sessionStartChars")
    before_edit_chars: int = Field(3000, ge=200, le=9500, alias="beforeEditChars")
    prompt_chars: int = Field(2000, ge=200, le=9500, alias="promptChars")
    pinned_decisions: Literal["inform", "ask"] = Field("inform", alias="pinnedDecisions")
    """Before an edit of code a pinned decision is anchored to: `inform` (add it to the
    context) or `ask` (the agent asks the person to confirm the edit, where it can)."""
    deadline_ms: int = Field(1500, ge=50, le=60_000, alias="deadlineMs")
    """A hook that has not answered by then answers nothing (the agent goes on)."""


class Config(_Section):
    storage: StorageConfig = Field(default_factory=StorageConfig)
    user: UserConfig = Field(default_factory=UserConfig)
    harvest: HarvestConfig = Field(default_factory=HarvestConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    decay: DecayConfig = Field(default_factory=DecayConfig)
    review: ReviewConfig = Field(default_factory=ReviewConfig)
    redact: RedactConfig = Field(default_factory=RedactConfig)
    history: HistoryConfig = Field(default_factory=HistoryConfig)
    consolidate: ConsolidateConfig = Field(default_factory=ConsolidateConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)


class LoadedConfig(BaseModel):
    """The effective config together with every warning met while loading it."""

    config: Config
    warnings: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    trust: WorkspaceTrust | None = None
    """The verdict on the workspace file, when it sets anything that needs trust."""


def load_config(
    root: Path | None = None,
    *,
    overrides: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    workspace_trusted: bool | None = None,
) -> LoadedConfig:
    """Merge every config source for a workspace; never raises on a bad value.

    Every bad value is in `warnings` (logged at debug only): the caller shows them.

    The workspace file's sensitive keys count only when it is trusted (`trust`):
    `workspace_trusted` is an editor's own verdict, None to go by `nano-brain trust`.
    """
    warnings: list[str] = []
    sources: list[str] = []
    merged: dict[str, Any] = {}
    user_file = Path(os.environ.get("NANO_BRAIN_CONFIG", paths.config_dir() / "config.yml"))
    judged: WorkspaceTrust | None = None
    workspace_file = paths.workspace_root(root) / WORKSPACE_CONFIG_NAME if root else None
    for file, own in ((user_file, True), (workspace_file, False)):
        if file is None:
            continue
        read = read_yaml(file, warnings)
        if read is None:
            continue
        data, raw = read
        if not own:
            judged = judge(file, raw, data, editor=workspace_trusted)
            if judged is not None and (line := judged.warning()) is not None:
                warnings.append(line)
        sources.append(str(file))
        _deep_merge(merged, data)
    _deep_merge(merged, _from_env(os.environ if env is None else env))
    if overrides:
        _deep_merge(merged, overrides)
    config = validate_leniently(Config, merged, "", warnings)
    # Showing them is the front end's part (each prints them once: the CLI on stderr or in its
    # report, the sidecar to the editor); a log line here would say each a second time.
    for message in warnings:
        log.debug("config: %s", message)
    return LoadedConfig(config=config, warnings=warnings, sources=sources, trust=judged)


def _from_env(environ: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in environ.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        section, _, field = key[len(ENV_PREFIX) :].lower().partition("__")
        result.setdefault(section, {})[field] = value
    return result


def _deep_merge(into: dict[str, Any], new: dict[str, Any]) -> None:
    for key, value in new.items():
        if value is None and isinstance(into.get(key), dict):
            continue  # a section left empty sets nothing: it keeps what an earlier file set
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


def validate_leniently(model: type[BaseModel], data: Any, where: str, warnings: list[str]) -> Any:
    """Validate `data` as `model`; each invalid or unknown key warns and takes its default.

    The one rule for every settings tree users type by hand: config files, the environment
    and editors' initializationOptions. A section left empty (YAML's None: a heading whose
    keys are all commented out) means its defaults.
    """
    if data is None:
        return model()
    if not isinstance(data, dict):
        warnings.append(
            f"{where or 'config'}: expected a mapping, got {brief(data)}; using defaults"
        )
        return model()
    clean: dict[str, Any] = {}
    aliases = {f.alias: n for n, f in model.model_fields.items() if f.alias}
    for raw_key, value in data.items():
        name = f"{where}.{brief(raw_key, quoted=False)}" if where else brief(raw_key, quoted=False)
        key = aliases.get(str(raw_key), str(raw_key))
        field = model.model_fields.get(key)
        if field is None:
            warnings.append(f"{name}: unknown key; ignored")
            continue
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            clean[key] = validate_leniently(annotation, value, name, warnings)
            continue
        probe = model.model_construct()
        try:
            model.__pydantic_validator__.validate_assignment(probe, key, value)
        except (ValidationError, ValueError, TypeError, RecursionError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            reason = " ".join(str(reason).split())  # one line, whatever the message held
            default = field.get_default(call_default_factory=True)
            warnings.append(
                f"{name}: invalid value {brief(value)} ({reason[:200]}); using default {default!r}"
            )
            continue
        clean[key] = getattr(probe, key)
    try:
        return model.model_validate(clean)
    except ValidationError as exc:  # each value passed alone; never expected, never fatal
        warnings.append(f"{where or 'config'}: {exc.errors()[0]['msg']}; using defaults")
        return model()


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlevel = 3


def brief(value: Any, *, quoted: bool = True) -> str:
    """A value for a warning: bounded, however long or deep what the user wrote is, and
    without the password of a URL."""
    if not quoted and isinstance(value, str) and value.isprintable() and len(value) <= 80:
        return value  # a key as the user typed it; anything odd is shown quoted
    if isinstance(value, str):
        if "://" in value:  # a URL's parameters may hide a password (`pass%77ord=`): mask all
            from .dburl import shown

            value = shown(value)
        value = _QUERY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", value))
    return _REPR.repr(value)


_URL_PASSWORD = re.compile(r"(://[^/@:\s]*:)[^/@\s]*@")
_QUERY_PASSWORD = re.compile(r"(password=)[^&\s]*", re.IGNORECASE)
