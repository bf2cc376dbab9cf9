"""Turn the workspace's agent sessions into session summaries in the Brain, incrementally.

One harvest tick (`Harvester.run_once`) discovers the sessions that ran in the workspace and,
for each one, decides what it costs:

1. **A stat.** The stored summary's metadata records a *stamp* of the source (paths, sizes
   and mtimes; for an OpenCode database row, its update time). Same stamp -> "unchanged";
   the transcript is not opened. A source with no summary but a tombstone -> "tombstoned",
   also without opening it: the user deleted that summary, and it stays deleted.
2. **A parse.** A new or touched source is parsed. Its content hash (`source.version`) is
   compared with the version the summary was derived from; equal -> "unchanged".
3. **A write.** Otherwise the session is digested (secrets redacted), summarised and
   written with `kind='session'` under a `source_path` naming the source, so a grown
   session becomes a new version of the same document (the earlier one is kept as
   history). `Brain.write_derived` (the harvester owns these source keys) refuses a
   tombstoned source, so a deletion that races the tick sticks too.

Outcomes that write nothing (touched but identical, other workspace, empty) are remembered
in memory for the process's life, keyed by stamp, so a watcher does not re-parse them on
every tick; a new process re-parses them once.

`Harvester.watch` runs ticks from watchdog events on the agents' folders, debounced, plus a
periodic rescan for events the watcher missed, and holds back sessions still being written
until they have been quiet for `settle_s`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import AgentName
from ..errors import NanoBrainError, TombstonedError
from ..fields import is_tag
from ..filters import STATUSES, Filters
from ..redact import redact_text
from ..text import marker_safe_end, marker_safe_start
from ..timeutil import iso
from ..userpatterns import UserPatterns
from ._common import describe_skipped
from ._files import ReadLimits, warn_once
from .config import HarvestConfig, harvest_config_of
from .decisions import harvest_decisions
from .digest import Digest, build_digest
from .model import Session, SessionSource, TranscriptError, is_within
from .report import Action, HarvestItem, HarvestReport
from .sources import HarvestLocations, discover_sessions, load_session
from .summarize import DIGEST, Summarizer, Summary, create_summarizer
from .watch import SessionWatch

log = logging.getLogger("nano_brain.harvest")

FORMAT_VERSION = 1
"""Bump when the stored summary's layout changes: every session is then summarised again."""
COLLECTION = "sessions"


@dataclass(frozen=True, slots=True)
class _Stamp:
    value: str
    newest: float


class Harvester:
    """Harvests one Brain's workspace. Open the Brain with `actor='harvest'` for the audit log.

    `locations`, `summarizer` and `config` default to the workspace's `harvest:` config.
    Not thread-safe: run ticks from one thread (`watch` does).
    """

    def __init__(
        self,
        brain: Any,
        locations: HarvestLocations | None = None,
        summarizer: Summarizer | None = None,
        *,
        config: HarvestConfig | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if config is None:
            config, self.config_warnings = harvest_config_of(brain)
        else:
            self.config_warnings = []
        self.brain = brain
        self.config = config
        self.root = Path(brain.root)
        self.locations = locations or HarvestLocations.from_config(config.locations)
        self.summarizer = summarizer or create_summarizer(config.summarizer)
        self.limits = ReadLimits.of(config)
        self._clock = clock
        # a pattern that times out is skipped for the harvester's life (a command, a watch)
        self._tickets = UserPatterns(config.ticket_patterns)
        # key -> (stamp, action) for outcomes that wrote nothing; see the module docstring
        self._known: dict[str, tuple[str, Action]] = {}
        # key -> time of the last summariser attempt that fell back to the digest
        self._attempts: dict[str, float] = {}
        # (newest audit id, summaries by source, tombstoned sources); see `_snapshot`
        self._snapshot_cache: tuple[int, dict[str, Any], set[str]] | None = None
        if getattr(brain, "actor", "harvest") != "harvest":
            log.debug("harvesting with a Brain whose actor is %r", brain.actor)

    # -- one tick ---------------------------------------------------------------------------

    def run_once(
        self,
        *,
        agents: Iterable[AgentName] | None = None,
        dry_run: bool = False,
        settle_s: float = 0.0,
    ) -> HarvestReport:
        """Discover this workspace's sessions and bring their summaries up to date.

        `settle_s` holds back sources modified less than that many seconds ago (watch mode);
        a one-shot harvest that a person asked for takes everything (0). A dry run parses
        what changed, to tell added and updated from unchanged, but writes nothing and
        calls no endpoint.
        """
        started = time.perf_counter()
        selected = [a for a in (agents or self.config.agents) if a in self.config.agents]
        recorded, stones = self._snapshot()
        now = self._clock()
        report = HarvestReport(dry_run=dry_run)
        given_up = len(self._tickets.timed_out)
        for source in discover_sessions(self.root, self.locations, selected, limits=self.limits):
            try:
                item = self._one(source, recorded, stones, now, dry_run, settle_s)
            except Exception as exc:  # one bad session must not stop the tick
                log.debug("harvesting %s failed", source.key, exc_info=True)
                item = HarvestItem("failed", source.agent, source.key, source.session_id)
                item.error = f"{exc.__class__.__name__}: {exc}"
            if item.action == "failed":  # once per process and error: a watcher re-tries
                warn_once(
                    f"failed:{source.key}:{item.error}",
                    "cannot harvest %s: %s",
                    source.key,
                    item.error,
                )
            elif item.skipped and item.action in ("added", "updated"):
                log.warning("%s: skipped %s", source.key, describe_skipped(item.skipped))
            report.items.append(item)
        report.errors += [self._tickets.describe(p) for p in self._tickets.timed_out[given_up:]]
        report.elapsed_s = time.perf_counter() - started
        if report.changed or any(i.action == "failed" for i in report.items):
            log.info("harvest: %s in %.3fs", report.counts(), report.elapsed_s)
        return report

    def _snapshot(self) -> tuple[dict[str, Any], set[str]]:
        """Stored session summaries by source key (without content) and tombstoned sources.

        Every mutation of the store appends to its audit log (append-only, ids only grow),
        so while the newest audit id is the one seen last tick, nothing was written,
        deleted or tombstoned, by this process or another: the last snapshot still holds
        and a watch tick skips reading every summary's metadata.
        """
        newest = self.brain.store.audit_rows(limit=1)
        marker = newest[0].id if newest else 0
        if self._snapshot_cache is not None and self._snapshot_cache[0] == marker:
            return self._snapshot_cache[1], self._snapshot_cache[2]
        rows = self.brain.store.list_documents(
            Filters(kinds=("session",), statuses=STATUSES), limit=10**9
        )
        recorded = {row.source_path: row for row in rows if row.source_path}
        stones = {stone.source for stone in self.brain.store.tombstones()}
        self._snapshot_cache = (marker, recorded, stones)
        return recorded, stones

    def _one(
        self,
        source: SessionSource,
        recorded: dict[str, Any],
        stones: set[str],
        now: float,
        dry_run: bool,
        settle_s: float,
    ) -> HarvestItem:
        key = source.key
        item = HarvestItem("unchanged", source.agent, key, source.session_id)
        row = recorded.get(key)
        if row is None and key in stones:
            item.action = "tombstoned"
            return item
        try:
            stamp = _stamp(source)
        except OSError as exc:
            item.action, item.error = "failed", f"cannot stat the transcript: {exc}"
            return item
        meta: dict[str, Any] = row.metadata.get("harvest", {}) if row is not None else {}
        if row is not None:
            item.doc_id, item.version, item.title = row.uid, row.version, row.title
            item.summarizer = meta.get("summarizer")
        retry = self._wants_summary(key, meta, now)
        current = meta.get("format") == FORMAT_VERSION and not retry
        if row is not None and current and meta.get("stamp") == stamp.value:
            return item
        known = self._known.get(key)
        if known is not None and known[0] == stamp.value and not retry:
            item.action = known[1]
            return item
        if settle_s > 0 and now - stamp.newest < settle_s:
            item.action = "settling"
            item.due_in_s = round(settle_s - (now - stamp.newest), 3)
            return item
        try:
            session = load_session(source, limits=self.limits)
        except TranscriptError as exc:
            item.action, item.error = "failed", str(exc)
            return item
        item.session_id, item.warnings = session.session_id, session.warnings
        item.skipped = dict(session.skipped) or None
        if session.cwd and not is_within(session.cwd, self.root):
            # Folder names encode the cwd lossily (`/a/b-c` and `/a/b/c` share one):
            # the cwd recorded inside the transcript decides.
            return self._remember(item, key, stamp, "other-workspace")
        if not _has_content(session):
            return self._remember(item, key, stamp, "empty")
        if row is not None and current and meta.get("source_version") == session.source.version:
            return self._remember(item, key, stamp, "unchanged")
        item.action = "added" if row is None else "updated"
        if dry_run:
            return item
        return self._write(item, session, stamp, now)

    def _write(self, item: HarvestItem, session: Session, stamp: _Stamp, now: float) -> HarvestItem:
        digest = build_digest(session)
        summary = self.summarizer.summarize(session, digest)
        if summary.error:
            self._attempts[item.source] = now
        else:
            self._attempts.pop(item.source, None)
        content = self._compose(session, digest, summary)
        metadata = {"harvest": self._metadata(session, digest, summary, stamp, now)}
        try:
            result = self.brain.write_derived(
                content,
                title=digest.title,
                tags=self._tags(session),
                collection=COLLECTION,
                kind="session",
                metadata=metadata,
                source_path=item.source,
                created_at=session.started,
            )
        except TombstonedError:
            item.action = "tombstoned"
            return item
        except NanoBrainError as exc:
            item.action, item.error = "failed", str(exc)
            log.warning("cannot store the summary of %s: %s", item.source, exc)
            return item
        doc = result.document
        item.doc_id, item.version, item.title = doc.id, doc.version, doc.title
        item.summarizer, item.error = summary.summarizer, summary.error
        item.redactions = sum(digest.redactions.values())
        if not (result.created or result.updated):
            # identical content already stored (another process was first)
            return self._remember(item, item.source, stamp, "unchanged")
        self._known.pop(item.source, None)
        item.action = "added" if result.created else "updated"
        item.decisions = harvest_decisions(self.brain, session, item.source, doc).added
        return item

    def _remember(self, item: HarvestItem, key: str, stamp: _Stamp, action: Action) -> HarvestItem:
        self._known[key] = (stamp.value, action)
        item.action = action
        return item

    def _wants_summary(self, key: str, meta: dict[str, Any], now: float) -> bool:
        """True when the configured summariser should (re)write a digest-only summary.

        That is: an endpoint is configured and the stored summary came from the digest
        (it failed last time, or the endpoint was configured since), and the last failed
        attempt is older than `retry_after_s`. A summary is never downgraded to a digest.
        """
        wanted = self.summarizer.name
        if not meta or wanted == DIGEST or meta.get("summarizer") == wanted:
            return False
        last = max(float(meta.get("summarized_at") or 0.0), self._attempts.get(key, 0.0))
        if meta.get("summarizer_error") is None and key not in self._attempts:
            last = 0.0  # never tried with this summariser: no need to wait
        return now - last >= self.config.summarizer.retry_after_s

    # -- what is stored -----------------------------------------------------------------------

    def _compose(self, session: Session, digest: Digest, summary: Summary) -> str:
        """The stored Markdown: header, provenance, LLM summary, digest facts, conversation.

        The provenance line makes every source version its own document version, so the
        metadata of the current version always describes the content beside it.
        """
        head, sep, body = digest.markdown.partition("\n## ")
        source = session.source
        parts = [
            head.rstrip(),
            f"- Source version: {source.version[:16]} ({source.size} bytes)",
        ]
        if summary.summarizer != DIGEST:
            parts += ["", summary.text.strip()]
        if sep:
            parts += ["", ("## " + body).rstrip()]
        rest = "\n".join(parts) + "\n"
        cap = int(self.brain.config.storage.max_content_bytes)
        room = min(self.config.max_conversation_chars, cap - len(rest.encode()) - 64)
        conversation = _clip(digest.conversation, room)
        if conversation:
            rest += f"\n## Conversation\n\n{conversation}\n"
        while len(rest.encode()) > cap and conversation:  # multi-byte text: shrink until it fits
            room = room * 3 // 4
            conversation = _clip(digest.conversation, room)
            rest = "\n".join(parts) + "\n"
            if conversation:
                rest += f"\n## Conversation\n\n{conversation}\n"
        return rest

    def _metadata(
        self, session: Session, digest: Digest, summary: Summary, stamp: _Stamp, now: float
    ) -> dict[str, Any]:
        """Provenance: which source version the summary came from, how, and what went wrong.

        Stored under one `harvest` key, so each version's metadata replaces the last one
        whole (Brain merges metadata one level deep).
        """
        roles: dict[str, int] = {}
        for message in session.messages:
            roles[message.role] = roles.get(message.role, 0) + 1
        source = session.source
        return {
            "format": FORMAT_VERSION,
            "agent": session.agent,
            "session_id": session.session_id,
            "cwd": redact_text(session.cwd) if session.cwd else None,
            "git_branch": redact_text(session.git_branch) if session.git_branch else None,
            "model": session.model,
            "started": iso(session.started),
            "ended": iso(session.ended),
            "messages": dict(sorted(roles.items())),
            "tool_calls": len(session.tool_calls()),
            # the store links the session to these files (document_files): `nano-brain why`
            "files_changed": sorted({*digest.files_edited, *digest.files_written}),
            "source_paths": [redact_text(p) for p in source.paths],
            "source_version": source.version,
            "source_size": source.size,
            "source_mtime": source.mtime,
            "stamp": stamp.value,
            "warnings": session.warnings,
            "skipped": dict(session.skipped),
            "redactions": digest.redactions,
            "summarizer": summary.summarizer,
            "summarizer_wanted": self.summarizer.name,
            "summarizer_error": summary.error,
            "summarized_at": now,
        }

    def _tags(self, session: Session) -> list[str]:
        tags = ["session", f"agent:{session.agent}"]
        # a pattern sees the branch as it is stored: a secret in it cannot become a tag
        branch = redact_text(session.git_branch) if session.git_branch else ""
        for ticket in self._tickets.matches(branch, what="a git branch"):
            tag = f"ticket:{ticket}"
            if is_tag(tag) and tag not in tags:
                tags.append(tag)
        return tags

    # -- watch mode ----------------------------------------------------------------------------

    def watch(
        self,
        *,
        stop: threading.Event | None = None,
        on_report: Callable[[HarvestReport], None] | None = None,
        debounce_s: float | None = None,
        settle_s: float | None = None,
        rescan_s: float | None = None,
        agents: Iterable[AgentName] | None = None,
    ) -> None:
        """Harvest now, then on every burst of file events in the agents' folders.

        Events only mark agents dirty; a tick runs once no event came for `debounce_s`
        (bursts of appends cost one tick). Every `rescan_s` a full tick runs anyway, and
        folders that did not exist yet are watched once they appear. Sessions held back
        as still settling get a tick when they are due. Returns when `stop` is set.
        """
        selected = [a for a in (agents or self.config.agents) if a in self.config.agents]
        settle = self.config.settle_s if settle_s is None else settle_s
        SessionWatch(
            lambda chosen: self.run_once(agents=chosen, settle_s=settle),
            selected,
            {agent: self.locations.base(agent).expanduser() for agent in selected},
            debounce=self.config.debounce_s if debounce_s is None else debounce_s,
            settle=settle,
            rescan=self.config.rescan_s if rescan_s is None else rescan_s,
            on_report=on_report,
        ).run(stop or threading.Event())


# -- helpers -------------------------------------------------------------------------------


def _stamp(source: SessionSource) -> _Stamp:
    """A cheap change stamp: stats only, never reads a transcript's content.

    Files: path, size and mtime (ns) of every file of the session (a new sub-agent file
    changes the list). An OpenCode database row: its `time_updated`, since the shared
    database file changes whenever any session does. OpenCode legacy storage: also the
    mtimes of the session's message and part folders, where new files appear.
    """
    if source.agent == "opencode" and source.paths[0].endswith(".db"):
        if source.updated is not None:
            return _Stamp(f"db:{source.updated!r}", source.updated)
    paths = list(source.paths)
    if source.agent == "opencode" and not source.paths[0].endswith(".db") and source.session_id:
        storage = Path(source.paths[0]).parents[2]
        messages = storage / "message" / source.session_id
        paths.append(str(messages))
        try:
            paths += sorted(str(storage / "part" / m.stem) for m in messages.glob("*.json"))
        except OSError:
            pass
    digest = hashlib.sha1(usedforsecurity=False)
    newest = 0.0
    for index, path in enumerate(paths):
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            if index == 0:
                raise
            continue  # an optional folder (no parts yet)
        digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        newest = max(newest, stat.st_mtime)
    return _Stamp(digest.hexdigest(), newest)


def _has_content(session: Session) -> bool:
    """A session worth a summary: someone asked something or the assistant did something."""
    return any(
        (m.role == "user" and not m.kind and m.text.strip())
        or (m.role == "assistant" and (m.text.strip() or m.tool_calls))
        for m in session.messages
    )


def _clip(text: str, limit: int) -> str:
    """`text` within `limit` characters: its head and tail, with the cut marked (never
    through a redaction marker)."""
    if limit <= 0 or not text:
        return ""
    if len(text) <= limit:
        return text
    marker = f"\n\n[… {len(text) - limit} characters omitted …]\n\n"
    half = max(0, (limit - len(marker)) // 2)
    head = text[: marker_safe_end(text, half)]
    tail = text[marker_safe_start(text, len(text) - half) :]
    return head.rstrip() + marker + tail.lstrip()
