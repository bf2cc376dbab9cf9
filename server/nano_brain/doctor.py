"""`nano-brain doctor`: is this install and this workspace's store in working order?

Each check is one line: ok, warning or error, what was found, and for the last two the fix.
The checks read and change nothing (a missing store is not created, file modes are looked
at, not repaired); the one repair, rebuilding the full-text indexes, is asked for by name.
`:checkhealth nano_brain` and the VS Code status bar show the same list.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from . import paths
from .config import Config, load_config
from .errors import NanoBrainError
from .trust import WorkspaceTrust

if TYPE_CHECKING:
    from .brain import Brain
    from .store.interface import MemoryStore

log = logging.getLogger(__name__)

Level = Literal["ok", "warning", "error"]
PENDING_WARNING = 1000
"""More chunks than this without a vector: search leans on the lexical leg until they are
embedded, worth a warning; a few are the background worker's normal backlog."""


@dataclass(frozen=True, slots=True)
class Check:
    area: str
    """install, config, store, files or transcripts"""
    name: str
    level: Level
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Report:
    workspace: str
    checks: list[Check]

    @property
    def errors(self) -> int:
        return sum(c.level == "error" for c in self.checks)

    @property
    def warnings(self) -> int:
        return sum(c.level == "warning" for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "workspace": self.workspace,
            "errors": self.errors,
            "warnings": self.warnings,
            "checks": [c.to_dict() for c in self.checks],
        }


def run(
    root: str | Path | None = None, *, db_path: str | Path | None = None, repair: bool = False
) -> Report:
    """Every check for the workspace at `root`; `repair` rebuilds drifted full-text indexes."""
    workspace = paths.workspace_root(root)
    checks: list[Check] = []
    checks.extend(_guarded("install", _install))
    checks.extend(_guarded("install", _grammars))
    loaded = load_config(workspace if workspace.is_dir() else None)
    trust_line = loaded.trust.warning() if loaded.trust is not None else None
    checks.extend(_config([w for w in loaded.warnings if w != trust_line]))
    checks.extend(_trust(loaded.trust))
    checks.extend(_guarded("store", lambda: _store(workspace, loaded.config, db_path, repair)))
    checks.extend(_guarded("files", lambda: _files(workspace)))
    checks.extend(_guarded("transcripts", lambda: _transcripts(workspace, loaded.config)))
    return Report(str(workspace), checks)


def _guarded(area: str, group: Callable[[], Iterator[Check]]) -> list[Check]:
    """A group's checks; a group that fails outright is reported, never raised."""
    out: list[Check] = []
    try:
        out.extend(group())
    except Exception as exc:  # a broken install must still get a report
        log.debug("doctor check failed", exc_info=True)
        out.append(
            Check(
                area,
                "check failed",
                "error",
                f"{type(exc).__name__}: {exc}",
                "report this with `nano-brain -vv doctor` output",
            )
        )
    return out


# -- install ---------------------------------------------------------------------------------


def _install() -> Iterator[Check]:
    yield Check("install", "python", "ok", sys.version.split()[0])
    from .store import probe_engine

    engine = probe_engine()
    if engine.fts5_error is not None:
        yield Check(
            "install",
            "sqlite",
            "error",
            f"{engine.name} {engine.version} has no FTS5 with trigrams: {engine.fts5_error}",
            "pip install --force-reinstall sqlean.py",
        )
    else:
        yield Check(
            "install", "sqlite", "ok", f"{engine.name} {engine.version}, FTS5 with trigrams"
        )
    if engine.vec_error is not None:
        yield Check(
            "install",
            "sqlite-vec",
            "error",
            f"cannot load sqlite-vec: {engine.vec_error}",
            "pip install --force-reinstall sqlite-vec sqlean.py",
        )
    else:
        yield Check("install", "sqlite-vec", "ok", f"sqlite-vec {engine.vec_version} loads")
    yield from _models()


def _models() -> Iterator[Check]:
    from .embedding import local, shipped  # noqa: F401  (shipped registers the models)

    for key, spec in sorted(local.LOCAL_MODELS.items()):
        try:
            dist = importlib.metadata.distribution(spec.distribution)
        except importlib.metadata.PackageNotFoundError:
            yield Check(
                "install",
                f"model {key}",
                "warning",
                f"{spec.distribution} is not installed",
                f"pip install {spec.distribution}",
            )
            continue
        onnx = Path(str(dist.locate_file(spec.onnx_file)))
        vocab = Path(__file__).parent / "embedding" / "data" / spec.vocab
        missing = [p.name for p in (onnx, vocab) if not p.is_file()]
        if missing:
            yield Check(
                "install",
                f"model {key}",
                "error",
                f"missing {', '.join(missing)}",
                f"pip install --force-reinstall {spec.distribution} nano-brain",
            )
        else:
            size = onnx.stat().st_size / 1e6
            yield Check("install", f"model {key}", "ok", f"{onnx.name} ({size:.0f} MB)")


def _grammars() -> Iterator[Check]:
    from .codeindex.errors import GrammarMissingError
    from .codeindex.languages import get_language, supported_languages

    found, missing = [], []
    for name in supported_languages():
        try:
            get_language(name)
            found.append(name)
        except GrammarMissingError as exc:
            missing.append(str(exc))
    if found:
        yield Check("install", "tree-sitter", "ok", f"grammars: {', '.join(found)}")
    for text in missing:
        fix = text.split("install it with ", 1)[-1].strip("`") if "install it with" in text else ""
        yield Check("install", "tree-sitter", "warning", text.split(";")[0], fix)


# -- config ----------------------------------------------------------------------------------


def _config(warnings: list[str]) -> Iterator[Check]:
    if not warnings:
        yield Check("config", "config", "ok", "no invalid values")
    for text in warnings:
        yield Check(
            "config",
            "config",
            "warning",
            text,
            "correct or remove the value in config.yml (`nano-brain config`)",
        )


def _trust(trust: WorkspaceTrust | None) -> Iterator[Check]:
    """Whether the workspace's own config file may set endpoints, keys and outside paths."""
    if trust is None:
        yield Check("config", "trust", "ok", "the workspace config sets nothing that needs trust")
    elif trust.trusted:
        detail = f"{trust.path} trusted by {trust.by}: {', '.join(trust.sensitive)} apply"
        yield Check("config", "trust", "ok", detail)
    else:
        yield Check(
            "config",
            "trust",
            "warning",
            f"{trust.path} is not trusted: {', '.join(trust.ignored)} ignored (a repository's "
            "own config may not send data or credentials anywhere or name outside files)",
            "review the file, then run `nano-brain trust` (a changed file needs it again)",
        )


# -- the workspace store ---------------------------------------------------------------------


def _store(
    workspace: Path, config: Config, db_path: str | Path | None, repair: bool
) -> Iterator[Check]:
    if not workspace.is_dir():
        yield Check(
            "store",
            "workspace",
            "error",
            f"{workspace} is not a directory",
            "run in the workspace, or pass --workspace",
        )
        return
    path = Path(db_path or config.storage.db_path or paths.default_db_path(workspace)).expanduser()
    if not path.exists():
        yield Check("store", "store", "ok", f"no store yet at {path} (made on the first write)")
        return
    from .brain import Brain

    try:
        brain = Brain(workspace, db_path=path)
    except NanoBrainError as exc:
        yield Check(
            "store",
            "store",
            "error",
            str(exc),
            "restore the file from a backup, or move it away to start afresh",
        )
        return
    with brain:
        yield from _store_state(brain.store, path)
        yield from _fulltext(brain.store, repair)
        yield from _vectors(brain)


def _store_state(store: MemoryStore, path: Path) -> Iterator[Check]:
    """The store's schema and size, whether it can be written, and its integrity."""
    yield Check(
        "store",
        "store",
        "ok",
        f"{path} (schema {store.schema_version()}, {store.file_size() / 1e6:.1f} MB)",
    )
    if store.read_only:
        yield Check(
            "store",
            "writable",
            "warning",
            "the store is read-only for this user",
            f"check the owner and mode of {path} and its folder",
        )
    problems = store.integrity_problems()
    if problems:
        yield Check(
            "store",
            "integrity",
            "error",
            "; ".join(problems[:3]),
            "restore the store from a backup; `nano-brain status` shows what is still readable",
        )
    else:
        yield Check("store", "integrity", "ok", "integrity_check: ok")


def _fulltext(store: MemoryStore, repair: bool) -> Iterator[Check]:
    """Whether the full-text indexes match their content; `repair` rebuilds them if not."""
    drift = store.fulltext_problems()
    if drift and repair and not store.read_only:
        store.rebuild_fulltext()
        drift = store.fulltext_problems()
        if not drift:
            yield Check("store", "full-text", "ok", "full-text indexes rebuilt")
    if drift:
        yield Check(
            "store",
            "full-text",
            "error",
            "; ".join(f"{t}: {m}" for t, m in drift.items()),
            "nano-brain doctor --repair",
        )
    elif not repair:
        yield Check("store", "full-text", "ok", "full-text indexes match their content")


def _vectors(brain: Brain) -> Iterator[Check]:
    """The embedding backlog, and whether each space's model can embed its queries."""
    pending = brain.store.counts()["pending_embeddings"]
    level: Level = "warning" if pending > PENDING_WARNING else "ok"
    yield Check(
        "store",
        "pending vectors",
        level,
        f"{pending} chunks without a vector",
        "nano-brain reembed --pending" if level != "ok" else "",
    )
    for space in ("text", "code"):
        state = brain.embedder.describe(space)["state"]
        if state == "ok":
            yield Check(
                "store", f"{space} model", "ok", brain.embedder.describe(space)["model"] or ""
            )
        elif "vectors come from" in state:
            yield Check(
                "store",
                f"{space} model",
                "error",
                state.removeprefix("unavailable: "),
                f"nano-brain reembed{' --code' if space == 'code' else ''}",
            )
        else:
            yield Check(
                "store",
                f"{space} model",
                "warning",
                state.removeprefix("unavailable: "),
                "set embedding.provider in config.yml (lexical search works)",
            )


# -- private files ---------------------------------------------------------------------------


def _files(workspace: Path) -> Iterator[Check]:
    wid = paths.workspace_id(workspace)
    folder = paths.state_dir() / "workspaces" / wid
    store_file = paths.default_db_path(workspace)
    wanted = [
        (folder, 0o700, "state folder"),
        (folder / "mcp-token", 0o600, "token file"),
        (folder / "mcp-endpoint.json", 0o600, "MCP endpoint file"),
        (folder / "ui-endpoint.json", 0o600, "memory page endpoint file"),
        (store_file, 0o600, "store file"),
    ]
    for path, mode, what in wanted:
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            yield Check("files", what, "error", f"{path} is a symlink", f"remove {path}")
        elif info.st_uid != os.getuid():
            yield Check(
                "files",
                what,
                "error",
                f"{path} belongs to another user",
                f"remove {path}, or fix its owner",
            )
        elif stat.S_IMODE(info.st_mode) & ~mode & 0o777:
            yield Check(
                "files",
                what,
                "error",
                f"{path} is mode {stat.S_IMODE(info.st_mode):o}, others may read it",
                f"chmod {mode:o} {path}",
            )
        else:
            yield Check("files", what, "ok", f"{path} ({stat.S_IMODE(info.st_mode):o})")


# -- transcripts -----------------------------------------------------------------------------


def _transcripts(workspace: Path, config: Config) -> Iterator[Check]:
    from .harvest.sources import HarvestLocations, discover_sessions

    harvest = config.harvest
    locations = HarvestLocations.from_config(harvest.locations)
    seen = False
    for agent in harvest.agents:
        base = locations.base(agent).expanduser()
        if not base.exists():
            continue
        seen = True
        sessions = discover_sessions(workspace, locations, [agent]) if workspace.is_dir() else []
        yield Check(
            "transcripts", agent, "ok", f"{base}: {len(sessions)} session(s) of this workspace"
        )
    if not seen:
        yield Check(
            "transcripts",
            "agents",
            "ok",
            "no agent transcript folder found (harvest has nothing to read)",
        )


def render(report: Report) -> str:
    """The report as text lines, one per check, each problem with its fix below it."""
    width = max((len(c.name) for c in report.checks), default=8)
    lines = [f"nano-brain doctor: {report.workspace}"]
    for c in report.checks:
        lines.append(f"{c.level.upper():<8}{c.area:<12}{c.name:<{width + 2}}{c.detail}")
        if c.fix and c.level != "ok":
            lines.append(f"{'':<20}fix: {c.fix}")
    lines.append(f"{report.errors} error(s), {report.warnings} warning(s)")
    return "\n".join(lines)
