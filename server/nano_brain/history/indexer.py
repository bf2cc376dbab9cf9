"""Index a workspace's git history: each commit a document, linked to the symbols it changed.

One pass streams the log (``git log -p -U0 --raw``, newest first), finds the symbols of each
changed source file before and after the commit (:mod:`._carry`: the newer version's symbols
carried back through the diff, a blob parsed only where that is ambiguous), maps the hunks
onto them (:mod:`._symbols`) and writes the commits in batches as they come. Each commit's
sequence number is its place in the window (``git rev-list``, hashes only), oldest smallest.

Incremental: the store remembers the HEAD it indexed and the window (``history.max_commits``,
``history.since``). When the new HEAD descends from it, only the commits since are read; when
the history was rewritten (amend, rebase, reset), the commits since the fork point are read
and the stored commits no longer in the window are deleted, so nothing is duplicated.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..chunking import chunk_text
from ..codeindex.languages import language_for_path
from ..codeindex.walk import DEFAULT_MAX_BYTES
from ..fields import is_tag
from ..redact import redact_text
from ..store.commits import COMMIT_SOURCE_PREFIX, CommitRows, CommitStore
from ..text import marker_safe_end
from ..timeutil import iso
from ..userpatterns import UserPatterns
from ._carry import SpanSource
from ._git import BlobReader, FileChange, Git, GitError, RawCommit, RepoInfo
from ._pool import ParsePool, ahead
from ._symbols import changed_symbols

if TYPE_CHECKING:
    from ..brain import Brain

log = logging.getLogger(__name__)

HistoryProgress = Callable[[str, int, int], None]
#: Commits written per transaction: other writers wait at most about this long's work.
BATCH = 1000
#: Fewer commits than this are mapped in this process alone (a pool costs more to start).
POOL_THRESHOLD = 200
_FILES_IN_CONTENT = 50
_FILES_IN_METADATA = 200
#: Redacted names, e-mails and paths remembered per run (they recur in most commits).
_CLEAN_CACHE = 50_000
_META_HEAD = "history_head"
_META_WINDOW = "history_window"
#: "1" once the stored commits were written redacted (older stores kept them as written).
_META_REDACTED = "history_redacted"
#: "1" when the history indexed last came from a shallow clone (views say so).
META_SHALLOW = "history_shallow"
#: Ticket-like words that are no tickets (encodings, hashes, standards).
_NOT_TICKETS = frozenset({"UTF", "SHA", "ISO", "PEP", "RFC", "ES", "MD", "TLS", "SSL", "HTTP"})


@dataclass(slots=True)
class HistoryReport:
    """What one history pass did."""

    state: str = "indexed"
    """indexed, up-to-date, disabled, no-git (not a repository), git-missing, no-commits"""
    message: str = ""
    head: str | None = None
    shallow: bool = False
    added: int = 0
    removed: int = 0
    commits: int = 0
    symbol_links: int = 0
    file_links: int = 0
    renames: int = 0
    parsed_blobs: int = 0
    carried_blobs: int = 0
    """past file versions whose symbols were carried back through a diff, not parsed"""
    workers: int = 1
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class HistoryIndexer:
    def __init__(self, brain: Brain, *, workers: int | None = None) -> None:
        self.brain = brain
        self.config = brain.config.history
        self.store = CommitStore(brain.store)
        self.workers = max(1, workers if workers is not None else min(2, os.cpu_count() or 1))
        self._tickets = UserPatterns(brain.config.harvest.ticket_patterns)
        self._cleaned: dict[str, str] = {}

    def run(self, progress: HistoryProgress | None = None) -> HistoryReport:
        started = time.perf_counter()
        report = HistoryReport()
        try:
            self._run(report, progress or (lambda phase, done, total: None))
        except GitError as exc:
            report.state, report.message = "failed", str(exc)
            report.errors.append(str(exc))
        report.errors += [self._tickets.describe(p) for p in self._tickets.timed_out]
        report.seconds = round(time.perf_counter() - started, 3)
        if report.state in ("indexed", "up-to-date"):
            for key, value in self.store.counts().items():
                setattr(report, key, value)
        return report

    def _run(self, report: HistoryReport, notify: HistoryProgress) -> None:
        found = self._repository(report)
        if found is None:
            return
        git, info, head = found
        cfg = self.config
        # what the index knows about itself is kept with the history (per clone in team mode)
        store, meta = self.brain.store, self.store
        kept_as = f"{cfg.max_commits}|{cfg.since or ''}"
        known = meta.meta_get(_META_HEAD)
        stored = self.store.hashes()
        if stored and meta.meta_get(_META_REDACTED) != "1":
            # indexed before commits were redacted: read them again, once, redacted
            log.info("history: reading %d commits again to redact what they hold", len(stored))
            with store.transaction():
                self.store.delete_commits(stored)
            stored = {}
        if known == head and meta.meta_get(_META_WINDOW) == kept_as and stored:
            report.state = "up-to-date"
            return
        full = not known or not stored or meta.meta_get(_META_WINDOW) != kept_as
        exclude: list[str] = []
        forward = False
        if not full and known:
            if git.is_ancestor(known, head):
                exclude, forward = [known], True
            else:
                base = git.run("merge-base", known, head, check=False).strip()
                exclude = [base] if base in stored else []
        notify("history", 0, 0)
        skip = {t.source for t in store.tombstones() if t.source.startswith(COMMIT_SOURCE_PREFIX)}
        window: list[str] = []
        if not forward:
            window = git.rev_list(head, max_count=cfg.max_commits, since=cfg.since)
        listed = window if not exclude else git.rev_list(
            head, exclude=exclude, max_count=cfg.max_commits, since=cfg.since
        )  # fmt: skip
        fresh = [h for h in listed if h not in stored and COMMIT_SOURCE_PREFIX + h not in skip]
        gone: list[str] = []
        if not forward:
            wanted = set(window)
            gone = [h for h in stored if h not in wanted]
        seqs = _numbering(fresh, window, stored, self.store.max_seq())
        reader = BlobReader(git, DEFAULT_MAX_BYTES) if fresh else None
        pool: ParsePool | None = None
        try:
            commits = git.log(head, exclude=exclude, max_count=cfg.max_commits, since=cfg.since)
            if self.workers > 1 and len(seqs) >= POOL_THRESHOLD:
                pool = ParsePool(git.root, self.workers)
                report.workers = self.workers
            source = SpanSource(reader, git.blob_diff, pool=pool) if reader is not None else None
            if source is not None and pool is not None:
                commits = ahead(commits, lambda c: self._expect(c, seqs, source, info))
            self._write(commits, seqs, source, info, report, notify, gone, forward)
        finally:
            if pool is not None:
                pool.close()
            if reader is not None:
                reader.close()
        with store.transaction():
            meta.meta_set(_META_HEAD, head)
            meta.meta_set(_META_WINDOW, kept_as)
            meta.meta_set(_META_REDACTED, "1")
            meta.meta_set(META_SHALLOW, "1" if info.shallow else "0")
            store.audit(
                at=time.time(),
                actor=self.brain.actor,
                action="history",
                details={"head": head, "added": report.added, "removed": report.removed},
            )

    def _repository(self, report: HistoryReport) -> tuple[Git, RepoInfo, str] | None:
        """The repository to read, what it is and its HEAD; None (the report saying why) when
        there is no history to index: disabled, not kept by this store, no git, no repository
        or no commit yet."""
        cfg = self.config
        if not cfg.enabled:
            report.state, report.message = "disabled", "history.enabled is off"
            return None
        if not self.store.kept:
            report.state = "disabled"
            report.message = "this store keeps no git history (it is per clone)"
            return None
        try:
            git = Git(self.brain.root)
        except GitError as exc:
            report.state, report.message = "git-missing", str(exc)
            return None
        info = git.info()
        if info is None:
            report.state = "no-git"
            report.message = "not a git repository: no history to index"
            return None
        report.head, report.shallow = info.head, info.shallow
        if info.shallow:
            report.message = (
                "shallow clone: history starts at the clone's depth "
                "(`git fetch --unshallow` for all of it)"
            )
        if info.head is None:
            report.state = "no-commits"
            report.message = "the repository has no commits yet"
            return None
        return git, info, info.head

    # -- rows ------------------------------------------------------------------------------------

    def _expect(
        self, commit: RawCommit, seqs: dict[str, int], source: SpanSource, info: RepoInfo
    ) -> None:
        """A commit read ahead: the versions its mapping will parse start parsing now."""
        if commit.hash in seqs:
            for change in self._mapped_files(commit, info):
                source.expect(change, _language(change.old_path), _language(change.new_path))

    def _mapped_files(self, commit: RawCommit, info: RepoInfo) -> list[FileChange]:
        """The files whose symbols a commit is linked to: none for merges (their changes are
        their parents'), for the first commit of a shallow clone (it seems to add every
        file), and past ``history.max_files_per_commit``."""
        if len(commit.parents) > 1 or commit.hash in info.boundary:
            return []
        return commit.files[: self.config.max_files_per_commit]

    def _write(
        self,
        commits: Iterable[RawCommit],
        seqs: dict[str, int],
        source: SpanSource | None,
        info: RepoInfo,
        report: HistoryReport,
        notify: HistoryProgress,
        gone: list[str],
        forward: bool,
    ) -> None:
        """Write the commits numbered in ``seqs`` as the log streams them (newest first),
        a batch at a time: nothing but one batch's rows is held."""
        store = self.brain.store
        total, done = len(seqs), 0
        if gone:
            with store.transaction():
                report.removed += self.store.delete_commits(gone)
        rows: list[CommitRows] = []
        for commit in commits if seqs else ():
            seq = seqs.get(commit.hash)
            if seq is None or source is None:
                continue  # stored already, or deleted by the user
            rows.append(self._rows(commit, seq, source, info))
            if len(rows) >= BATCH:
                done += self._flush(rows, report)
                notify("history", done, total)
                rows = []
        if rows:
            done += self._flush(rows, report)
            notify("history", done, total)
        if source is not None:
            report.parsed_blobs, report.carried_blobs = source.parsed, source.carried
        if forward or gone or seqs:
            with store.transaction():
                report.removed += self.store.keep_newest(self.config.max_commits)

    def _flush(self, rows: list[CommitRows], report: HistoryReport) -> int:
        with self.brain.store.transaction():
            report.added += self.store.add_commits(rows, time.time())
        return len(rows)

    def _rows(self, commit: RawCommit, seq: int, source: SpanSource, info: RepoInfo) -> CommitRows:
        boundary = commit.hash in info.boundary
        changes: list[tuple[str, str]] = []
        renames: list[tuple[str, str, str]] = []
        for change in self._mapped_files(commit, info):
            if change.status == "R" and change.old_path and change.new_path:
                renames.append((change.old_path, change.new_path, "file"))
            before_lang, after_lang = _language(change.old_path), _language(change.new_path)
            if not (before_lang or after_lang):
                continue  # not source code
            before, after = source.sides(change, before_lang, after_lang)
            if before is None or after is None:
                continue  # a side that could not be read
            found, renamed = changed_symbols(
                change.hunks,
                before,
                after,
                lambda c=change: source.texts(c),  # type: ignore[misc]
            )
            old_path, new_path = change.old_path or "", change.new_path or ""
            for name, how in found:
                path = old_path if how == "removed" else new_path
                changes.append((f"{path}::{name}", how))
            renames.extend((f"{old_path}::{o}", f"{new_path}::{n}", "symbol") for o, n in renamed)
        files = [] if boundary else [f.path for f in commit.files]
        # A repository may be a stranger's: what its commits say is stored redacted (the
        # links above are keys into the workspace's own tree, kept as they are)
        message = redact_text(commit.message)
        tags = self._ticket_tags(message)
        return _commit_rows(commit, message, seq, changes, renames, files, tags, boundary,
                            self._clean)  # fmt: skip

    def _clean(self, text: str) -> str:
        """`text` redacted; names, e-mails and paths recur, so each is redacted once a run."""
        found = self._cleaned.get(text)
        if found is None:
            if len(self._cleaned) >= _CLEAN_CACHE:
                self._cleaned.clear()
            found = self._cleaned[text] = redact_text(text)
        return found

    def _ticket_tags(self, message: str) -> list[str]:
        tags: list[str] = []
        for ticket in self._tickets.matches(message[:4000], what="a commit message"):
            if ticket.split("-", 1)[0] in _NOT_TICKETS:
                continue
            tag = f"ticket:{ticket}"
            if is_tag(tag) and tag not in tags:
                tags.append(tag)
        return tags[:20]


def _language(path: str | None) -> str | None:
    return language_for_path(path) if path else None


def _numbering(
    fresh: list[str], window: list[str], stored: dict[str, int], top: int
) -> dict[str, int]:
    """Each commit to read (newest first) its sequence number: chronological, oldest
    smallest, above every stored commit's; below them when the stored commits are all newer
    than these (an interrupted first run resumed, a window grown), so older stays smaller."""
    held = [stored[h] for h in window if h in stored]
    if fresh and held and not (set(window[: len(held)]) - stored.keys()):
        floor = min(held)
        return {h: floor - 1 - i for i, h in enumerate(fresh)}
    return {h: top + len(fresh) - i for i, h in enumerate(fresh)}


_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied",
           "T": "type changed"}  # fmt: skip


def _file_meta(change: FileChange, clean: Callable[[str], str]) -> dict[str, str]:
    meta = {"path": clean(change.path), "status": change.status}
    if change.status == "R" and change.old_path:
        meta["from"] = clean(change.old_path)
    return meta


def _commit_rows(
    commit: RawCommit,
    message: str,
    seq: int,
    changes: list[tuple[str, str]],
    renames: list[tuple[str, str, str]],
    files: list[str],
    tags: list[str],
    boundary: bool,
    clean: Callable[[str], str],
) -> CommitRows:
    """The rows of one commit; `message` is its message redacted, `clean` redacts the rest."""
    subject, _, body = message.partition("\n")
    subject = " ".join(subject.split())
    subject = subject[: marker_safe_end(subject, 200)].rstrip() or f"commit {commit.hash[:10]}"
    listed = commit.files if not boundary else []
    described = [
        f"{clean(f.path)} ({_STATUS.get(f.status, f.status)}"
        + (f" from {clean(f.old_path or '')}" if f.status == "R" else "")
        + ")"
        for f in listed[:_FILES_IN_CONTENT]
    ]
    if len(listed) > _FILES_IN_CONTENT:
        described.append(f"… and {len(listed) - _FILES_IN_CONTENT} more")
    said = [subject]
    if body.strip():
        said += ["", body.strip()]
    author, email = clean(commit.author), clean(commit.email)
    parts = [
        f"commit {commit.hash}",
        f"Author: {author} <{email}>",
        f"Date: {iso(commit.authored_at)}",
    ]
    if len(commit.parents) > 1:
        parts.append("Merge: " + " ".join(p[:10] for p in commit.parents))
    if described:
        parts.append("Files changed: " + ", ".join(described))
    told, record = "\n".join(said), "\n".join(parts)
    content = f"{told}\n\n{record}"
    metadata: dict[str, Any] = {
        "hash": commit.hash,
        "parents": commit.parents,
        "author": author,
        "email": email,
        "authored_at": iso(commit.authored_at),
        "committed_at": iso(commit.committed_at),
        "files": [clean(f.path) for f in listed[:_FILES_IN_METADATA]],
        "file_changes": [_file_meta(f, clean) for f in listed[:_FILES_IN_METADATA]],
        "files_total": len(listed),
        "symbols": len(changes),
        "tickets": [t[len("ticket:") :] for t in tags],
    }
    if len(commit.parents) > 1:
        metadata["merge"] = True
    if boundary:
        metadata["shallow_boundary"] = True
    # the message and the record are chunked apart: only the message's chunks get vectors
    # (what a commit says means something; hashes, dates and file lists are looked up by word)
    chunks = [
        (c.seq, c.text, c.heading, c.start_line, c.end_line)
        for c in chunk_text(told, max_chars=2000, overlap_chars=200)
    ]
    said_chunks, above = len(chunks), told.count("\n") + 2  # the message and a blank line
    chunks += [
        (said_chunks + c.seq, c.text, c.heading, c.start_line + above, c.end_line + above)
        for c in chunk_text(record, max_chars=2000, overlap_chars=200)
    ]
    return CommitRows(
        hash=commit.hash,
        seq=seq,
        uid=secrets.token_hex(6),
        title=subject,
        content=content,
        content_hash=hashlib.sha256(content.encode("utf-8", "replace")).hexdigest(),
        metadata=metadata,
        authored_at=commit.authored_at,
        committed_at=commit.committed_at,
        chunks=chunks,
        vector_chunks=said_chunks,
        tags=tags,
        changes=changes,
        renames=renames,
        files=files,
    )


def tickets_in(tags: Iterable[str]) -> list[str]:
    return [t[len("ticket:") :] for t in tags if t.startswith("ticket:")]
