"""Index a workspace's code into its store: incremental, parallel, resumable.

One run:

1. **scan**: walk the workspace (``.gitignore``, excludes, vendored folders, binaries and huge
   files skipped with reasons). A file whose size and mtime match the stored ones costs that
   stat and nothing else.
2. **parse**: other files go to a pool of worker processes that read, hash and parse them and
   hand back plain row tuples (cheap to pickle); a file whose hash did not change is only
   re-stamped. Small change sets are parsed in-process (a pool costs more than it saves).
3. **write**: each file's rows (symbols, edges, one search document per symbol) replace its
   old rows in the transaction of its batch; deleted files lose theirs.
4. **resolve**: calls are resolved against the whole workspace (a change in one file can bind
   or unbind calls in others), and only the edges whose target changed are rewritten. A flag
   in ``meta`` makes an interrupted run resolve again next time. A first index, or a change
   too wide to follow, resolves every call streamed from the store a batch at a time, so
   that its memory does not grow with the workspace.

Embeddings are not computed here: symbol chunks are lexically searchable on commit and wait
for ``Brain.embed_pending`` (the CLI runs it after indexing unless told not to).
"""

from __future__ import annotations

import logging
import os
import posixpath
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store import CodeStore, finish_interrupted_load, index_run_lock
from ..store.code import FULLTEXT_PENDING_KEY, BulkFile, FileRecord
from ._fulltext import Fulltext
from ._parse_worker import pool_context, work, worker_start
from ._rebind import Interface, Rebinding
from ._route_links import relink
from ._tuning import tuned_for_indexing
from .languages import code_extensions
from .model import FileIndex
from .stored import file_index_from_rows
from .walk import (
    DEFAULT_MAX_BYTES,
    SkippedFile,
    WalkedFile,
    WalkOptions,
    check_relative,
    iter_paths,
    iter_workspace,
)

if TYPE_CHECKING:
    from ..brain import Brain

log = logging.getLogger(__name__)

#: Prose files indexed as whole documents with the engine's chunker.
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".txt", ".rst"})
#: Below this many files to parse, a process pool costs more than it saves.
POOL_THRESHOLD = 48
#: Source bytes per symbol search document, about (the standard library: 550), to weigh a
#: bulk load against the documents a store already holds.
SOURCE_BYTES_PER_DOCUMENT = 1000
#: Most files a pass limited to named paths takes; more make it a full pass (one walk).
MAX_PATHS = 256
#: Files per write transaction: small enough that other writers never wait long.
BATCH_FILES = 250
#: Source bytes per write transaction. Files are parsed biggest first, so a count of files
#: alone put 80% of the standard library's bytes in the first batch: the writer idled while
#: the workers parsed it, then the workers idled while it was written.
BATCH_BYTES = 256 * 1024
#: Parsed records (symbols and calls) an incremental run keeps for its resolver; past this
#: it resolves every call again, streamed from the store, rather than grow (a branch switch
#: that rewrites half a large repository).
FRESH_RECORDS = 100_000
#: Symbol chunks a bulk load hands to the full-text thread at a time while it parses (see
#: _fulltext.Fulltext): the standard library's 22k go in five statements instead of one at the end.
FULLTEXT_STEP_CHUNKS = 5000
_PENDING_KEY = "code_resolve_pending"
_FULLTEXT_KEY = FULLTEXT_PENDING_KEY

#: progress(phase, done, total); phases: ``scan``, ``parse``, ``resolve`` (and ``embed``
#: when ``indexing.index_workspace`` embeds afterwards).
IndexProgress = Callable[[str, int, int], None]


@dataclass(slots=True)
class IndexReport:
    """What one run did; ``skipped`` counts paths by reason, ``skipped_paths`` lists some."""

    files: int = 0
    source_files: int = 0
    text_files: int = 0
    unchanged: int = 0
    touched: int = 0
    new: int = 0
    changed: int = 0
    deleted: int = 0
    parsed: int = 0
    documents_added: int = 0
    symbols: int = 0
    edges: int = 0
    calls: int = 0
    resolved_calls: int = 0
    retargeted_calls: int = 0
    reresolved_calls: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    skipped_paths: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    resolved: bool = False
    workers: int = 1
    seconds: float = 0.0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    pending_embeddings: int = 0
    #: chunks embedded after the index committed (``indexing.index_workspace(embed=True)``)
    embedded: int = 0
    #: HTTP routes linked after this run (when it changed files), see ``_route_links``
    routes: int = 0
    #: the git history pass that followed (``nano_brain.history.HistoryReport.to_dict()``)
    history: dict[str, Any] | None = None
    #: how many files the pass looked at when limited to named paths (None: it walked all)
    paths: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped_paths"] = [{"path": p, "reason": r} for p, r in self.skipped_paths]
        return data

    def skip(self, path: str, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if len(self.skipped_paths) < 200:
            self.skipped_paths.append((path, reason))


class Indexer(Rebinding):
    """Runs index passes of one Brain's workspace into its store."""

    def __init__(
        self,
        brain: Brain,
        *,
        workers: int | None = None,
        exclude: Sequence[str] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        batch_files: int = BATCH_FILES,
        batch_bytes: int = BATCH_BYTES,
    ) -> None:
        self.brain = brain
        self.code = CodeStore(brain.store)
        self.root = Path(brain.root)
        self.workers = max(1, workers if workers is not None else min(2, os.cpu_count() or 1))
        self.exclude = list(exclude)
        self.max_bytes = max_bytes
        self.batch_files = max(1, batch_files)
        self.batch_bytes = max(1, batch_bytes)

    def run(
        self, progress: IndexProgress | None = None, *, paths: Collection[str] | None = None
    ) -> IndexReport:
        """One incremental pass; returns what it did (never raises for one bad file).

        ``paths`` (relative, POSIX) limits the pass to those files, as an editor that knows
        what it saved or saw change can: each is checked as the walk would check it, and one
        that is gone, or no longer indexable, is removed. Anything else the pass would decide
        from the whole tree (a ``.gitignore``, a folder, more than :data:`MAX_PATHS` paths)
        makes it a full pass.
        """
        if paths is not None and not self._targeted(paths):
            paths = None
        with index_run_lock(self.brain.store), tuned_for_indexing():
            return self._run(progress or (lambda phase, done, total: None), paths)

    def _targeted(self, paths: Collection[str]) -> bool:
        """Whether a pass over just ``paths`` sees all that changed."""
        if len(paths) > MAX_PATHS:
            return False
        for rel in paths:
            check_relative(rel)  # refused before anything is looked at
            if posixpath.basename(rel) == ".gitignore" or (self.root / rel).is_dir():
                return False
        return True

    def _run(self, notify: IndexProgress, paths: Collection[str] | None) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport(paths=None if paths is None else len(paths))
        store = self.brain.store.local  # this clone's code index (team mode: not the team store)
        # parse results of this run, kept for the resolver: {path: (FileIndex, call edge ids)}
        self._fresh: dict[str, tuple[FileIndex, list[int]]] = {}
        self._fresh_records = 0
        # what other files' calls could see of each file this run replaced or removed, before
        # (None: the file is new); only calls that saw something that changed are re-resolved
        self._before: dict[str, Interface | None] = {}
        # symbol chunks written without their full-text rows (bulk runs), by id range
        self._unindexed: list[tuple[int, int]] = []
        self._fulltext: Fulltext | None = None
        finish_interrupted_load(self.brain.store)
        # before any chunk is written: whether test code's chunks wait for a vector
        store.set_test_vectors(self.brain.config.embedding.test_code)
        self._full = store.meta_get(_PENDING_KEY) == "1"
        self._streamed = self._full
        known = self.code.files()
        self.code.tune_for_bulk()
        jobs, seen = self._scan(known, report, notify, paths)
        t_scan = time.perf_counter()
        report.phase_seconds["scan"] = round(t_scan - started, 4)
        deleted = sorted(p for p in (known if paths is None else paths) if p in known
                         and p not in seen)  # fmt: skip
        report.deleted = len(deleted)
        # a first index (no source file known yet) loads in bulk: lookup indexes built after
        # the load, full-text rows added in one statement, calls resolved streamed
        bulk = len(jobs) >= POOL_THRESHOLD and not any(r.language for r in known.values())
        self._streamed |= bulk
        try:
            changed = self._parse_and_write(jobs, known, deleted, report, notify, bulk)
            t_write = time.perf_counter()
            report.phase_seconds["parse_write"] = round(t_write - t_scan, 4)
            if changed or self._full or self._unindexed or self._fulltext is not None:
                self._resolve(report, notify, bulk)
                report.resolved = True
        finally:
            if self._fulltext is not None:  # the run failed before it handed the load over
                self._fulltext.stop()
        if changed:
            try:
                report.routes = relink(self.code, self._go_modules(self._route_files()))
            except Exception as exc:  # routes are a view of the index: never cost the index
                log.warning("routes not linked: %s: %s", type(exc).__name__, exc)
                report.errors.append(f"routes not linked: {exc}")
        report.phase_seconds["resolve"] = round(time.perf_counter() - t_write, 4)
        if bulk and changed:
            self.code.checkpoint()
        counts = self.code.counts()
        report.files = counts["files"]
        report.source_files = counts["source_files"]
        report.text_files = counts["text_files"]
        report.symbols = counts["symbols"]
        report.edges = counts["edges"]
        report.calls = counts["calls"]
        report.resolved_calls = counts["resolved_calls"]
        report.pending_embeddings = store.pending_count()
        report.seconds = round(time.perf_counter() - started, 4)
        if changed:
            with store.transaction():
                store.audit(
                    at=time.time(),
                    actor=self.brain.actor,
                    action="index",
                    details={
                        k: getattr(report, k)
                        for k in ("new", "changed", "deleted", "touched", "symbols", "seconds")
                    },
                )
        return report

    # -- scan ------------------------------------------------------------------------------

    def _scan(
        self,
        known: dict[str, FileRecord],
        report: IndexReport,
        notify: IndexProgress,
        paths: Collection[str] | None,
    ) -> tuple[list[tuple[WalkedFile, FileRecord | None]], set[str]]:
        """Files to read (new, or with a new stat) and every path still present (of
        ``paths`` only, when given)."""
        jobs: list[tuple[WalkedFile, FileRecord | None]] = []
        seen: set[str] = set()
        options: WalkOptions = {
            "exclude": self.exclude,
            "max_bytes": self.max_bytes,
            "suffixes": set(code_extensions()) | TEXT_SUFFIXES,
        }
        stats = {p: (r.size, r.mtime_ns) for p, r in known.items()}
        walk = (
            iter_workspace(self.root, known=stats, **options)
            if paths is None
            else iter_paths(self.root, paths, known=stats, **options)
        )
        for item in walk:
            if isinstance(item, SkippedFile):
                report.skip(item.path, item.reason)
                continue
            if item.language is None and posixpath.splitext(item.path)[1].lower() not in (
                TEXT_SUFFIXES
            ):
                continue  # e.g. Gemfile-like names the walk keeps; not ours
            seen.add(item.path)
            old = known.get(item.path)
            if old is not None and (old.size, old.mtime_ns) == (item.size, item.mtime_ns):
                report.unchanged += 1
                continue
            jobs.append((item, old))
            if len(seen) % 500 == 0:
                notify("scan", len(seen), 0)
        notify("scan", len(seen), len(seen))
        return jobs, seen

    # -- parse and write -----------------------------------------------------------------

    def _results(
        self,
        jobs: list[tuple[str, str, str | None, str | None, int, int, int]],
        report: IndexReport,
    ) -> Iterator[tuple[Any, ...]]:
        if len(jobs) < POOL_THRESHOLD or self.workers == 1:
            report.workers = 1
            yield from map(work, jobs)
            return
        report.workers = self.workers
        # parse workers live for one run: their collector stays off (see tuned_for_indexing)
        with ProcessPoolExecutor(
            self.workers, mp_context=pool_context(), initializer=worker_start
        ) as pool:
            yield from pool.map(work, jobs, chunksize=4)

    def _parse_and_write(
        self,
        walked: list[tuple[WalkedFile, FileRecord | None]],
        known: dict[str, FileRecord],
        deleted: list[str],
        report: IndexReport,
        notify: IndexProgress,
        bulk: bool,
    ) -> bool:
        """Parse what changed and write it in batches; True when any row changed."""
        store = self.brain.store.local
        cfg = self.brain.config.chunking
        by_path = {w.path: w for w, _ in walked}
        if len(walked) >= POOL_THRESHOLD:
            # big files first: the pool's last chunks are then short and the workers finish
            # together (a huge file parsed last would keep one core busy alone)
            walked = sorted(walked, key=lambda item: -item[0].size)
        jobs = [
            (
                w.path,
                str(w.abs_path),
                w.language,
                old.sha256 if old else None,
                cfg.max_chars,
                cfg.overlap_chars,
                self.max_bytes,
            )
            for w, old in walked
        ]
        if not jobs and not deleted:
            return False
        tombstoned = self.code.tombstoned()
        changed = False
        if deleted or bulk:
            with store.transaction():
                store.meta_set(_PENDING_KEY, "1")
                if bulk:
                    store.meta_set(_FULLTEXT_KEY, "1")
                    # the engine's indexes too when the load outweighs what the store holds
                    adds = sum(w.size for w, _ in walked) // SOURCE_BYTES_PER_DOCUMENT
                    self.code.drop_lookup_indexes(engine=self.code.document_count() < adds)
                for path in deleted:
                    self._forget(path)
            changed = True
        total = len(jobs)
        done = 0
        batch: list[tuple[Any, ...]] = []
        batch_bytes = 0
        for result in self._results(jobs, report):
            batch.append(result)
            batch_bytes += by_path[result[1]].size
            done += 1
            if len(batch) >= self.batch_files or batch_bytes >= self.batch_bytes:
                changed |= self._write_batch(batch, by_path, known, tombstoned, report, bulk)
                batch, batch_bytes = [], 0
                if self._unindexed:
                    self._fulltext_ranges(last=False)
            notify("parse", done, total)
        if batch:
            changed |= self._write_batch(batch, by_path, known, tombstoned, report, bulk)
        return changed

    def _forget(self, path: str) -> None:
        """Remove an indexed file's rows, remembering what other files could see of it."""
        if path not in self._before and not self._streamed:
            self._before[path] = self.code.interface_of(path)
        self._fresh.pop(path, None)
        self.code.delete_file(path)

    def _write_batch(
        self,
        batch: list[tuple[Any, ...]],
        by_path: dict[str, WalkedFile],
        known: dict[str, FileRecord],
        tombstoned: set[str],
        report: IndexReport,
        bulk: bool,
    ) -> bool:
        now = time.time()
        changed = False
        pending: list[tuple[BulkFile, list[Any]]] = []
        with self.brain.store.local.transaction():
            # another index run may have added some of these files since the scan
            present = self.code.existing_paths([r[1] for r in batch if r[0] == "code"]) if (
                bulk
            ) else set()  # fmt: skip
            for result in batch:
                tag, path = result[0], result[1]
                walked = by_path[path]
                if tag == "skip":
                    changed |= self._skipped(result, known, report)
                    continue
                if tag == "same":
                    self.code.touch_file(path, walked.size, walked.mtime_ns)
                    report.touched += 1
                    continue
                if not changed and not bulk:
                    self.brain.store.local.meta_set(_PENDING_KEY, "1")
                changed = True
                report.parsed += 1
                if path in known:
                    report.changed += 1
                else:
                    report.new += 1
                if tag == "text":
                    report.documents_added += self._write_text(result, walked, tombstoned, now)
                    continue
                row, routes = _code_rows(result, walked)
                if bulk and path not in present:
                    pending.append((row, routes))
                    continue
                report.documents_added += self._write_code(row, routes, known, tombstoned,
                                                           now)  # fmt: skip
            if pending:
                report.documents_added += self._add_code_files(pending, tombstoned, now)
        return changed

    def _skipped(
        self, result: tuple[Any, ...], known: dict[str, FileRecord], report: IndexReport
    ) -> bool:
        """Count a file the workers skipped; True when it was indexed before (its old rows,
        now wrong, are removed)."""
        path, reason = result[1], result[2]
        report.skip(path, reason)
        if reason == "parse_error":
            report.errors.append(f"{path}: {result[3]}")
            log.warning("cannot parse %s: %s", path, result[3])
        if path in known:
            self._forget(path)
            return True
        return False

    def _write_text(
        self, result: tuple[Any, ...], walked: WalkedFile, tombstoned: set[str], now: float
    ) -> int:
        """Replace a prose file's document; returns the documents added."""
        _, path, sha, title, content, content_hash, chunks = result
        return self.code.replace_text_file(
            path=path,
            size=walked.size,
            mtime_ns=walked.mtime_ns,
            sha256=sha,
            title=title,
            content=content,
            content_hash=content_hash,
            chunks=chunks,
            tombstoned=tombstoned,
            now=now,
        )

    def _write_code(
        self,
        row: BulkFile,
        routes: list[Any],
        known: dict[str, FileRecord],
        tombstoned: set[str],
        now: float,
    ) -> int:
        """Replace one source file's rows (remembering what other files could see of it
        before); returns the documents added."""
        path = row.path
        if path not in self._before and not self._streamed:
            self._before[path] = self.code.interface_of(path) if path in known else None
        added, call_ids = self.code.replace_code_file(
            path=path,
            size=row.size,
            mtime_ns=row.mtime_ns,
            sha256=row.sha256,
            language=row.language,
            namespace=row.namespace,
            default_export=row.default_export,
            has_errors=row.has_errors,
            symbols=row.symbols,
            imports=row.imports,
            calls=row.calls,
            tombstoned=tombstoned,
            now=now,
            assignments=row.assignments,
        )
        self._keep(row, call_ids)
        self.brain.store.local.replace_route_facts(path, routes)
        return added

    def _keep(self, row: BulkFile, call_ids: list[int]) -> None:
        """Keep a parsed file for the resolver, unless every call is resolved again from
        the store (then nothing parsed is kept; past FRESH_RECORDS this run becomes one)."""
        if self._streamed:
            return
        index = file_index_from_rows(
            row.path, row.language, row.namespace, row.default_export,
            row.symbols, row.imports, row.calls, row.assignments,
        )  # fmt: skip
        self._fresh[row.path] = (index, call_ids)
        self._fresh_records += len(index.symbols) + len(index.calls)
        if self._fresh_records > FRESH_RECORDS:
            log.info("more than %d records changed: every call is resolved again", FRESH_RECORDS)
            self._streamed = True
            self._fresh, self._before = {}, {}

    def _add_code_files(
        self,
        pending: list[tuple[BulkFile, list[Any]]],
        tombstoned: set[str],
        now: float,
    ) -> int:
        """A bulk load's new source files, in one go (their full-text rows come later, see
        :meth:`_fulltext_ranges`); returns the documents added."""
        added, ids, first, last = self.code.add_code_files(
            [row for row, _ in pending], tombstoned=tombstoned, now=now
        )
        if last >= first and self._unindexed and self._unindexed[-1][1] + 1 == first:
            # one statement for consecutive batches: FTS5 indexes one big range
            # faster than many small ones (0.3 s over the stdlib's 42 batches)
            self._unindexed[-1] = (self._unindexed[-1][0], last)
        elif last >= first:
            self._unindexed.append((first, last))
        for (row, routes), call_ids in zip(pending, ids, strict=True):
            self._keep(row, call_ids)
            if routes:
                self.brain.store.local.replace_route_facts(row.path, routes)
        return added

    # -- resolve ---------------------------------------------------------------------------

    def _resolve(self, report: IndexReport, notify: IndexProgress, bulk: bool) -> None:
        """Re-resolve the calls a change can affect; rewrite the edges whose target moved.

        A call's resolution depends on the definitions and imports visible to it, never on
        other calls, and every rule looks a callee up by its bare name (or an import's local
        name). So the calls of the files this run parsed are resolved, and elsewhere only the
        calls whose name a changed file defined or bound (before or after the change), or
        that pointed at a symbol that changed, plus inherited method names of subclasses of a
        changed class; the lookups read only the files they reach. A cold index, or a run
        that changed too much to follow, resolves every call again streamed from the store;
        a run interrupted before resolving makes the next one resolve everything again.
        """
        notify("resolve", 0, 1)
        store = self.brain.store.local
        if self._unindexed:
            self._fulltext_ranges(last=True)
        indexer_thread, self._fulltext = self._fulltext, None
        if indexer_thread is not None:
            # the streamed resolution reads calls by file: the load's indexes come first
            indexer_thread.finish(bulk=bulk)
            indexer_thread.join()
            if indexer_thread.error is not None:
                raise indexer_thread.error
        elif bulk:
            with store.transaction():
                self.code.ensure_indexes()
        scope = None if self._streamed else self._affected()
        if scope is None:
            self._fresh = {}
            resolved, retargeted = self._resolve_all(notify)
        else:
            edge_ids, refs, stored = self._resolve_some(*scope)
            updates: list[tuple[str | None, str, int]] = []
            for (target, how), edge_id in zip(refs, edge_ids, strict=True):
                if stored.get(edge_id, (None, "unresolved")) != (target, how):
                    updates.append((target, how, edge_id))
            self._fresh = {}
            with store.transaction():
                self.code.set_call_targets(updates)
            resolved, retargeted = len(edge_ids), len(updates)
        with store.transaction():
            store.meta_set(_PENDING_KEY, "0")
        report.retargeted_calls = retargeted
        report.reresolved_calls = resolved
        if scope is not None or not resolved:  # else the last batch said it
            notify("resolve", 1, 1)

    def _fulltext_ranges(self, *, last: bool) -> None:
        """Hand the symbol chunks written so far without full-text rows to the full-text
        thread: in steps of FULLTEXT_STEP_CHUNKS while parsing (one statement per step: FTS5
        takes one big range faster than many small ones), all of them with ``last``."""
        pending = sum(b - a + 1 for a, b in self._unindexed)
        if not last and pending < FULLTEXT_STEP_CHUNKS:
            return
        if self._fulltext is None:
            self._fulltext = Fulltext(self.code)
            self._fulltext.start()
        ranges, self._unindexed = self._unindexed, []
        self._fulltext.add(ranges)


def _code_rows(result: tuple[Any, ...], walked: WalkedFile) -> tuple[BulkFile, list[Any]]:
    """A worker's ``code`` result as the file's row and its route facts."""
    (_, path, sha, language, namespace, default_export, errors, syms, imps, calls, assigns,
     routes) = result  # fmt: skip
    row = BulkFile(path, walked.size, walked.mtime_ns, sha, language, namespace, default_export,
                   errors, syms, imps, calls, assigns)  # fmt: skip
    return row, routes
