"""Workspace trust: what a repository's own `.nano-brain.yml` may decide.

A workspace file comes with the repository, so a stranger may have written it. Settings that
send data or credentials somewhere, name files outside the workspace, run the user's CPU on a
pattern of someone else's choosing, weaken redaction, delete memory or say who the user is
(`SENSITIVE`) take effect from it only once the person has trusted that exact file: `nano-brain
trust` records the file's SHA-256 in the user's state folder, the way direnv's `allow` does, and
a changed file needs trusting again. Until then those keys are dropped with one warning. The
user's own config file and the environment are always trusted; an editor that has a trust model
of its own (VS Code's Workspace Trust) may decide for its sidecar instead of the recorded hash.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from . import paths
from .errors import InvalidInputError
from .privatefiles import private_dir, read_private, write_private

log = logging.getLogger(__name__)

TRUST_FILE = "trusted-configs.json"
#: More trusted files than anyone keeps; the file stays far below the private-file bound.
MAX_TRUSTED = 500


@dataclass(frozen=True, slots=True)
class _Sensitive:
    keys: tuple[str, ...]
    """The dotted path, each step by its name and its alias (`storage.max_size|maxSize`)."""
    why: str
    safe: Callable[[Any], bool] | None = None
    """Values an untrusted file may set (they send nothing anywhere, weaken nothing)."""


def _one_of(*allowed: object) -> Callable[[Any], bool]:
    return lambda value: any(value == a for a in allowed)


SENSITIVE: tuple[_Sensitive, ...] = (
    _Sensitive(("storage", "url"), "connects to a server with your credentials"),
    _Sensitive(("storage", "db_path"), "names a file outside the workspace"),
    _Sensitive(("storage", "workspace"), "chooses which team memory is read and written"),
    _Sensitive(("storage", "max_size|maxSize"), "evicts memory"),
    _Sensitive(("storage", "evict_decisions"), "evicts decisions", _one_of(False)),
    _Sensitive(("embedding", "provider"), "sends text to an endpoint", _one_of("local", "none")),
    _Sensitive(("embedding", "base_url"), "sends text to an endpoint"),
    _Sensitive(("embedding", "api_key_env"), "chooses which credential is sent"),
    _Sensitive(
        ("harvest", "summarizer", "provider"), "sends transcripts to an endpoint", _one_of("digest")
    ),
    _Sensitive(("harvest", "summarizer", "base_url"), "sends transcripts to an endpoint"),
    _Sensitive(("harvest", "summarizer", "api_key_env"), "chooses which credential is sent"),
    _Sensitive(  # a section left empty (None) names no folder
        ("harvest", "locations"), "names folders outside the workspace", _one_of(None)
    ),
    _Sensitive(("harvest", "ticket_patterns"), "runs regular expressions on your data"),
    _Sensitive(("user", "name"), "says who you are in the audit log"),
    _Sensitive(("redact", "enabled"), "turns redaction off", _one_of(True)),
)


class WorkspaceTrust(BaseModel):
    """The verdict on one workspace config file, as `config check`, `doctor` and editors show it."""

    path: str
    sha256: str
    trusted: bool
    by: str | None = None
    """What trusted it: `nano-brain trust` (the recorded hash) or the editor."""
    sensitive: list[str] = Field(default_factory=list)
    """The keys it sets that need trust (dotted), whether or not they took effect."""
    ignored: list[str] = Field(default_factory=list)
    """The keys dropped because the file is not trusted."""

    def warning(self) -> str | None:
        """The one line that says what was ignored and how to allow it; None when nothing was."""
        if not self.ignored:
            return None
        return (
            f"{self.path} is not trusted: {', '.join(self.ignored)} ignored (review the file, "
            "then run `nano-brain trust`)"
        )


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sensitive_keys(data: dict[str, Any]) -> list[str]:
    """The dotted keys of `data` (a parsed config file) that need trust, in SENSITIVE's order."""
    return [name for name, _ in _found(data)]


def strip_sensitive(data: dict[str, Any]) -> list[str]:
    """Remove from `data` (in place) every key that needs trust; the dotted names removed."""
    removed = []
    for name, (parent, key) in _found(data):
        parent.pop(key, None)
        removed.append(name)
    return removed


def _found(data: dict[str, Any]) -> Iterator[tuple[str, tuple[dict[str, Any], str]]]:
    for rule in SENSITIVE:
        parent: Any = data
        names: list[str] = []
        for step in rule.keys:
            if not isinstance(parent, dict):
                break
            key = next((k for k in step.split("|") if k in parent), None)
            if key is None:
                break
            names.append(key)
            if len(names) < len(rule.keys):
                parent = parent[key]
                continue
            if rule.safe is None or not rule.safe(parent[key]):
                yield ".".join(names), (parent, key)


def judge(
    path: Path, raw: bytes, data: dict[str, Any], *, editor: bool | None = None
) -> WorkspaceTrust | None:
    """Decide on a parsed workspace file (`raw` its bytes); drops what needs trust it lacks.

    `editor` is an editor's own verdict on the workspace (True/False), None to go by the hash
    `nano-brain trust` recorded. None is returned for a file that sets nothing sensitive.
    """
    found = sensitive_keys(data)
    if not found:
        return None
    sha = digest(raw)
    if editor is not None:
        trusted, by = editor, ("the editor" if editor else None)
    else:
        trusted = TrustStore().is_trusted(path, sha)
        by = "nano-brain trust" if trusted else None
    ignored = [] if trusted else strip_sensitive(data)
    return WorkspaceTrust(
        path=str(path), sha256=sha, trusted=trusted, by=by, sensitive=found, ignored=ignored
    )


class TrustedFile(BaseModel):
    path: str
    sha256: str
    trusted_at: float


class TrustStore:
    """The user's list of trusted workspace config files (path and SHA-256), 0600."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or paths.state_dir()
        self.path = self.folder / TRUST_FILE

    def entries(self) -> dict[str, TrustedFile]:
        """Every trusted file by path; an unreadable list trusts nothing (and says so)."""
        try:
            data = json.loads(read_private(self.path))
            files = data["files"] if isinstance(data, dict) else None
            if not isinstance(files, list):
                raise ValueError("no list of files")
            entries = [TrustedFile.model_validate(item) for item in files]
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, InvalidInputError) as exc:
            log.warning("%s cannot be read (%s): no workspace config is trusted", self.path, exc)
            return {}
        return {entry.path: entry for entry in entries}

    def is_trusted(self, path: Path, sha256: str) -> bool:
        entry = self.entries().get(str(path))
        return entry is not None and entry.sha256 == sha256

    def allow(self, path: Path, sha256: str) -> TrustedFile:
        """Trust `path` as it is now (the content whose hash is `sha256`)."""
        entry = TrustedFile(path=str(path), sha256=sha256, trusted_at=time.time())
        with self._locked() as entries:
            entries[entry.path] = entry
            if len(entries) > MAX_TRUSTED:  # forget the oldest
                for old in sorted(entries.values(), key=lambda e: e.trusted_at)[:-MAX_TRUSTED]:
                    del entries[old.path]
        return entry

    def revoke(self, path: Path) -> TrustedFile | None:
        """Stop trusting `path`; the entry that was removed, if any."""
        with self._locked() as entries:
            return entries.pop(str(path), None)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, TrustedFile]]:
        """The entries, written back on exit, with other `trust` commands kept out meanwhile."""
        private_dir(self.folder)
        fd = os.open(self.folder / f".{TRUST_FILE}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            entries = self.entries()
            yield entries
            files = [e.model_dump() for e in sorted(entries.values(), key=lambda e: e.path)]
            write_private(self.path, json.dumps({"files": files}, indent=1))
        finally:
            os.close(fd)
