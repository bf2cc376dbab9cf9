"""The workspace as a whole: all its indexable files (:func:`walk_workspace`), and how they
differ from a previous index (:func:`scan_changes`): a file whose size and mtime match the
previous index costs one ``stat`` and is not read."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Unpack

from .walk import (
    DEFAULT_MAX_BYTES,
    NotRegularFile,
    SkippedFile,
    WalkedFile,
    WalkOptions,
    iter_workspace,
    read_regular,
)


@dataclass(slots=True)
class WalkResult:
    files: list[WalkedFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)

    def skipped_by_reason(self) -> dict[str, int]:
        return dict(Counter(s.reason for s in self.skipped))


class FileState(NamedTuple):
    """What the previous index recorded about a file."""

    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A new or changed file, with the content already read (so it is read once)."""

    file: WalkedFile
    content: bytes
    sha256: str

    @property
    def path(self) -> str:
        return self.file.path


@dataclass(slots=True)
class Changes:
    """How the workspace differs from a previous index.

    ``touched`` files have a new mtime or size but the same content hash (only their stat
    needs updating); ``renamed`` pairs a deleted path with a new path of identical content
    (both also appear in ``deleted`` and ``new``). ``states`` is the map to store for next
    time.
    """

    unchanged: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    changed: list[ChangedFile] = field(default_factory=list)
    new: list[ChangedFile] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    states: dict[str, FileState] = field(default_factory=dict)


def walk_workspace(root: str | os.PathLike[str], **options: Unpack[WalkOptions]) -> WalkResult:
    """Collect :func:`iter_workspace` into files and skips (same keyword options)."""
    result = WalkResult()
    for item in iter_workspace(root, **options):
        if isinstance(item, WalkedFile):
            result.files.append(item)
        else:
            result.skipped.append(item)
    return result


def scan_changes(
    root: str | os.PathLike[str],
    previous: Mapping[str, FileState | tuple[int, int, str]],
    **options: Unpack[WalkOptions],
) -> Changes:
    """Classify the workspace's files against ``previous`` ({path: (size, mtime_ns, sha256)}).

    Files whose size and mtime match are ``unchanged`` without being read; the rest are read
    once and hashed, and their content is handed back for parsing.
    """
    prev = {p: FileState(*s) for p, s in previous.items()}
    changes = Changes()
    known = {p: (s.size, s.mtime_ns) for p, s in prev.items()}
    seen: set[str] = set()
    for item in iter_workspace(root, known=known, **options):
        if isinstance(item, SkippedFile):
            changes.skipped.append(item)
            continue
        seen.add(item.path)
        old = prev.get(item.path)
        if old is not None and (old.size, old.mtime_ns) == (item.size, item.mtime_ns):
            changes.unchanged.append(item.path)
            changes.states[item.path] = old
            continue
        limit = options.get("max_bytes", DEFAULT_MAX_BYTES)
        try:
            content = read_regular(item.abs_path, limit)
        except NotRegularFile:
            changes.skipped.append(SkippedFile(item.path, "special"))
            continue
        except OSError:
            changes.skipped.append(SkippedFile(item.path, "unreadable"))
            continue
        if len(content) > limit:  # grew since the walk's stat
            changes.skipped.append(SkippedFile(item.path, "too_large"))
            continue
        digest = hashlib.sha256(content).hexdigest()
        changes.states[item.path] = FileState(item.size, item.mtime_ns, digest)
        if old is not None and old.sha256 == digest:
            changes.touched.append(item.path)
        elif old is not None:
            changes.changed.append(ChangedFile(item, content, digest))
        else:
            changes.new.append(ChangedFile(item, content, digest))
    changes.deleted = sorted(p for p in prev if p not in seen)
    by_hash: dict[str, list[str]] = {}
    for f in changes.new:
        by_hash.setdefault(f.sha256, []).append(f.path)
    gone: dict[str, list[str]] = {}
    for p in changes.deleted:
        gone.setdefault(prev[p].sha256, []).append(p)
    for digest, olds in gone.items():
        news = by_hash.get(digest, [])
        if len(olds) == 1 and len(news) == 1:
            changes.renamed.append((olds[0], news[0]))
    return changes
