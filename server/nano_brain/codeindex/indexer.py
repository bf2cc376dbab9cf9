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
   in ``meta`` makes an interrupted run resolve again next time.

Embeddings are not computed here: symbol chunks are lexically searchable on commit and wait
for ``Brain.embed_pending`` (the CLI runs it after indexing unless told not to).
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import multiprocessing
import os
import posixpath
import queue
import secrets
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..chunking import chunk_text
from ..store import CodeStore, finish_interrupted_load, index_run_lock
from ..store.code import FULLTEXT_PENDING_KEY, BulkFile, FileRecord
from ._route_links import relink
from .errors import CodeIndexError
from .languages import code_extensions
from .model import Assignment, CallSite, FileIndex, ImportEdge, Symbol
from .parse import parse_file
from .resolve import CodeGraph, python_module_names
from .stored import BASES_SEP, add_edge, add_symbols, rebuild_file_indexes
from .walk import (
    DEFAULT_MAX_BYTES,
    NotRegularFile,
    SkippedFile,
    WalkedFile,
    WalkOptions,
    check_relative,
    iter_paths,
    iter_workspace,
    read_regular,
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
#: Most bytes of a go.mod read (its module line comes first).
_MAX_GOMOD_BYTES = 1 << 20
#: Most files a pass limited to named paths takes; more make it a full pass (one walk).
MAX_PATHS = 256
#: Files per write transaction: small enough that other writers never wait long.
BATCH_FILES = 250
#: Source bytes per write transaction. Files are parsed biggest first, so a count of files
#: alone put 80% of the standard library's bytes in the first batch: the writer idled while
#: the workers parsed it, then the workers idled while it was written.
BATCH_BYTES = 256 * 1024
#: How much lower the parse workers' priority is than the indexing process's (see _worker_start)
WORKER_NICE = 10
#: Symbol chunks a bulk load hands to the full-text thread at a time while it parses (see
#: _Fulltext): the standard library's 22k go in five statements instead of one at the end.
FULLTEXT_STEP_CHUNKS = 5000
_PENDING_KEY = "code_resolve_pending"
_FULLTEXT_KEY = FULLTEXT_PENDING_KEY
#: more names than this to re-resolve: resolving everything is as cheap
_MAX_NAMES = 4000
_CLASS_LIKE = frozenset({"class", "interface", "struct", "enum", "trait", "module", "type"})
#: random bytes of a document's public id (12 hex digits, as every document's)
_UID_BYTES = 6
#: a str as a JSON string literal, exactly as json.dumps writes it
_json_str: Callable[[str], str] = json.encoder.encode_basestring_ascii

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


# -- worker side ------------------------------------------------------------------------------
# A job is (path, absolute path, language or None for text, previous sha256 or None,
# chunk max chars, chunk overlap, most bytes read). Results are tagged tuples of plain values.


def _work(job: tuple[str, str, str | None, str | None, int, int, int]) -> tuple[Any, ...]:
    path, abs_path, language, old_sha, max_chars, overlap, max_bytes = job
    try:
        data = read_regular(abs_path, max_bytes)
    except NotRegularFile as exc:
        return ("skip", path, "special", str(exc))
    except OSError as exc:
        return ("skip", path, "unreadable", str(exc))
    if len(data) > max_bytes:  # grew since the walk's stat
        return ("skip", path, "too_large", f"over {max_bytes} bytes")
    sha = hashlib.sha256(data).hexdigest()
    if sha == old_sha:
        return ("same", path, sha)
    if language is None:
        return _text_rows(path, sha, data, max_chars, overlap)
    try:
        index = parse_file(path, data, language)
    except CodeIndexError as exc:
        return ("skip", path, "no_grammar", str(exc))
    except Exception as exc:  # a grammar bug must not stop the index
        return ("skip", path, "parse_error", f"{type(exc).__name__}: {exc}")
    # the search document's metadata and public id are made here, in parallel, too (the
    # JSON by hand and the ids from one draw: per symbol, json.dumps and secrets were a
    # tenth of the rows' cost)
    meta_head = '{"kind": '
    meta_tail = f', "language": {_json_str(language)}, "path": {_json_str(path)}, '
    uids = secrets.token_hex(_UID_BYTES * len(index.symbols))
    step = 2 * _UID_BYTES
    symbols = [
        (
            s.qualified_name,
            s.name,
            s.kind,
            s.parent,
            s.signature,
            s.docstring,
            s.start_line,
            s.end_line,
            s.sha256,
            BASES_SEP.join(s.bases),
            s.search_text,
            hashlib.sha256(s.search_text.encode("utf-8", "replace")).hexdigest(),
            s.search_title,
            f'{meta_head}{_json_str(s.kind)}{meta_tail}"qualified_name": '
            f"{_json_str(s.qualified_name)}}}",
            uids[i * step : (i + 1) * step],
        )
        for i, s in enumerate(index.symbols)
    ]
    imports = [(i.module, i.name, i.alias, i.line) for i in index.imports]
    calls = [(c.caller, c.callee, c.name, c.receiver, c.receiver_kind, c.line) for c in index.calls]
    assigns = [(a.scope, a.target, a.value, a.line) for a in index.assignments]
    routes = [f.row() for f in index.routes]
    return (
        "code",
        path,
        sha,
        language,
        index.namespace,
        index.default_export,
        index.has_errors,
        symbols,
        imports,
        calls,
        assigns,
        routes,
    )


def _worker_start() -> None:
    """A parse worker's setup: no cyclic collector (see _tuned_for_indexing), and a lower
    priority than the process that writes its results, so that the writer never falls behind:
    at equal priority, three busy processes on two cores left the writer a second of
    results to insert alone after the last parse (a fifth of a cold index of the standard
    library on one core)."""
    gc.disable()
    try:
        os.nice(WORKER_NICE)
    except OSError:  # not permitted: equal priority still works
        pass


def _text_rows(path: str, sha: str, data: bytes, max_chars: int, overlap: int) -> tuple[Any, ...]:
    text = data.decode("utf-8", "replace").replace("\x00", "")
    if not text.strip():
        return ("text", path, sha, path, "", "", [])
    title = next(
        (line.strip().lstrip("#").strip()[:80] for line in text.splitlines() if line.strip()),
        path,
    )
    title = f"{path}: {title}" if title != path else path
    chunks = [
        (c.seq, c.text, c.heading, c.start_line, c.end_line)
        for c in chunk_text(text, max_chars=max_chars, overlap_chars=overlap)
    ]
    return ("text", path, sha, title, text, hashlib.sha256(text.encode()).hexdigest(), chunks)


def _pool_context() -> Any:
    # fork starts workers in milliseconds (they only parse), but forking a process that runs
    # other threads (the editor sidecar) can deadlock the children: use a forkserver there.
    if sys.platform.startswith("linux"):
        if threading.active_count() == 1:
            return multiprocessing.get_context("fork")
        ctx = multiprocessing.get_context("forkserver")
        # the server imports the parser once; each pool's workers fork from it ready to parse
        ctx.set_forkserver_preload([__name__])
        return ctx
    return multiprocessing.get_context("spawn")


# -- main side --------------------------------------------------------------------------------

#: what other files can see of one file: ((namespace, default export) or None when the file
#: is not indexed, symbols (qualified name, name, kind, parent, bases), imports (module,
#: member, alias)); see CodeStore.interface_of
_Interface = tuple[Any, list[tuple[Any, ...]], list[tuple[Any, ...]]]


_tuning_lock = threading.Lock()
_tuning_runs = 0
_tuning_saved: tuple[bool, float] = (False, 0.0)
#: The interpreter's thread switch interval during an index run (seconds; default 0.005).
SWITCH_INTERVAL_S = 0.001


@contextmanager
def _tuned_for_indexing() -> Iterator[None]:
    """The interpreter set up for an index run, and back as it was after.

    - The cyclic garbage collector is off: a cold run keeps a few hundred thousand rows and
      parse records alive, and the collections their allocations trigger re-walk all of them
      (a tenth of the run's CPU). The rows form no cycles; what does is collected once the
      collector is back.
    - Threads hand over the GIL every millisecond instead of every five: the full-text
      thread runs SQLite statements while the main thread resolves calls in Python, and each
      statement waited for the GIL before and after it (index builds took twice their time).

    Runs on several threads share one setting.
    """
    global _tuning_runs, _tuning_saved
    with _tuning_lock:
        if _tuning_runs == 0:
            _tuning_saved = (gc.isenabled(), sys.getswitchinterval())
            gc.disable()
            sys.setswitchinterval(min(SWITCH_INTERVAL_S, _tuning_saved[1]))
        _tuning_runs += 1
    try:
        yield
    finally:
        with _tuning_lock:
            _tuning_runs -= 1
            if _tuning_runs == 0:
                if _tuning_saved[0]:
                    gc.enable()
                sys.setswitchinterval(_tuning_saved[1])


class _Fulltext(threading.Thread):
    """Full-text indexes a bulk load's symbol chunks on a thread, and builds its lookup
    indexes once the last batch is in.

    SQLite runs both without the GIL, so they overlap with Python work: ranges handed over
    while parsing go in as the batches commit (the parse workers are then the slow part and
    the store's connection is mostly idle), what is left after the last batch overlaps with
    resolving calls. Each range is its own transaction and waits for the store's lock, so it
    never interleaves with a batch's statements. An error is kept for ``finish``.
    """

    def __init__(self, indexer: Indexer) -> None:
        super().__init__(name="nano-brain-fulltext", daemon=True)
        self._store = indexer.brain.store.local
        self._code = indexer.code
        # ranges to index; True / False: the load is over (True: build its indexes too);
        # None: the run failed, stop without finishing
        self._queue: queue.SimpleQueue[list[tuple[int, int]] | bool | None] = queue.SimpleQueue()
        self.error: BaseException | None = None

    def add(self, ranges: list[tuple[int, int]]) -> None:
        self._queue.put(ranges)

    def finish(self, *, bulk: bool) -> None:
        """The load is over: mark its full-text rows done (``bulk``: build its indexes)."""
        self._queue.put(bulk)

    def stop(self) -> None:
        """End the thread without finishing the load (the next run rebuilds what is missing)."""
        self._queue.put(None)
        self.join()

    def run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self.error is not None:
                if isinstance(item, bool):
                    return
                continue
            try:
                with self._store.transaction():
                    if isinstance(item, bool):
                        self._store.meta_set(_FULLTEXT_KEY, "0")
                        if item:
                            self._code.ensure_indexes()
                        return
                    for first, last in item:
                        self._code.index_symbol_chunks(first, last)
            except BaseException as exc:  # re-raised by the joining thread
                self.error = exc
                if isinstance(item, bool):
                    return


def _module_names_collide(code: CodeStore, paths: list[str]) -> bool:
    """Whether a Python file added or removed shares a module name with another file (then
    imports elsewhere may have become, or stopped being, ambiguous)."""
    changed = {p for p in paths if p.endswith((".py", ".pyi"))}
    if not changed:
        return False
    now = {row[1] for row in code.graph_files() if row[2] == "python"}
    for files in (now | changed, now - changed):
        for owners in python_module_names(files).values():
            if len(owners) > 1 and changed & set(owners):
                return True
    return False


class Indexer:
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
        with index_run_lock(self.brain.store), _tuned_for_indexing():
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
        # what other files' calls could see of each file this run replaced or removed, before
        # (None: the file is new); only calls that saw something that changed are re-resolved
        self._before: dict[str, _Interface | None] = {}
        # symbol chunks written without their full-text rows (bulk runs), by id range
        self._unindexed: list[tuple[int, int]] = []
        self._fulltext: _Fulltext | None = None
        finish_interrupted_load(self.brain.store)
        self._full = store.meta_get(_PENDING_KEY) == "1"
        known = self.code.files()
        self.code.tune_for_bulk()
        jobs, seen = self._scan(known, report, notify, paths)
        t_scan = time.perf_counter()
        report.phase_seconds["scan"] = round(t_scan - started, 4)
        deleted = sorted(p for p in (known if paths is None else paths) if p in known
                         and p not in seen)  # fmt: skip
        report.deleted = len(deleted)
        # a first index (no source file known yet) loads in bulk: lookup indexes built after
        # the load, full-text rows added in one statement, calls resolved in memory
        bulk = len(jobs) >= POOL_THRESHOLD and not any(r.language for r in known.values())
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
            yield from map(_work, jobs)
            return
        report.workers = self.workers
        # parse workers live for one run: their collector stays off (see _tuned_for_indexing)
        with ProcessPoolExecutor(
            self.workers, mp_context=_pool_context(), initializer=_worker_start
        ) as pool:
            yield from pool.map(_work, jobs, chunksize=4)

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
        if path not in self._before:
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
        pending: list[tuple[BulkFile, FileIndex]] = []
        row_routes: dict[str, list[Any]] = {}
        with self.brain.store.local.transaction():
            # another index run may have added some of these files since the scan
            present = self.code.existing_paths([r[1] for r in batch if r[0] == "code"]) if (
                bulk
            ) else set()  # fmt: skip
            for result in batch:
                tag, path = result[0], result[1]
                walked = by_path[path]
                if tag == "skip":
                    report.skip(path, result[2])
                    if result[2] == "parse_error":
                        report.errors.append(f"{path}: {result[3]}")
                        log.warning("cannot parse %s: %s", path, result[3])
                    if path in known:  # it was indexed before; its old rows are now wrong
                        self._forget(path)
                        changed = True
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
                    _, _, sha, title, content, content_hash, chunks = result
                    report.documents_added += self.code.replace_text_file(
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
                    continue
                (_, _, sha, language, namespace, default_export, errors, syms, imps, calls,
                 assigns, routes) = result  # fmt: skip
                index = file_index_from_rows(
                    path, language, namespace, default_export, syms, imps, calls, assigns
                )
                row = BulkFile(path, walked.size, walked.mtime_ns, sha, language, namespace,
                               default_export, errors, syms, imps, calls, assigns)  # fmt: skip
                if bulk and path not in present:
                    pending.append((row, index))
                    row_routes[path] = routes
                    continue
                if path not in self._before:
                    self._before[path] = self.code.interface_of(path) if path in known else None
                added, call_ids = self.code.replace_code_file(
                    path=path,
                    size=walked.size,
                    mtime_ns=walked.mtime_ns,
                    sha256=sha,
                    language=language,
                    namespace=namespace,
                    default_export=default_export,
                    has_errors=errors,
                    symbols=syms,
                    imports=imps,
                    calls=calls,
                    tombstoned=tombstoned,
                    now=now,
                    assignments=assigns,
                )
                report.documents_added += added
                self._fresh[path] = (index, call_ids)
                self.brain.store.local.replace_route_facts(path, routes)
            if pending:
                added, ids, first, last = self.code.add_code_files(
                    [row for row, _ in pending], tombstoned=tombstoned, now=now
                )
                report.documents_added += added
                if last >= first and self._unindexed and self._unindexed[-1][1] + 1 == first:
                    # one statement for consecutive batches: FTS5 indexes one big range
                    # faster than many small ones (0.3 s over the stdlib's 42 batches)
                    self._unindexed[-1] = (self._unindexed[-1][0], last)
                elif last >= first:
                    self._unindexed.append((first, last))
                for (row, index), call_ids in zip(pending, ids, strict=True):
                    self._before[row.path] = None
                    self._fresh[row.path] = (index, call_ids)
                    if row_routes.get(row.path):
                        self.brain.store.local.replace_route_facts(row.path, row_routes[row.path])
        return changed

    # -- resolve ---------------------------------------------------------------------------

    def _resolve(self, report: IndexReport, notify: IndexProgress, bulk: bool) -> None:
        """Re-resolve the calls a change can affect; rewrite the edges whose target moved.

        A call's resolution depends on the definitions and imports visible to it, never on
        other calls, and every rule looks a callee up by its bare name (or an import's local
        name). So the calls of the files this run parsed are resolved, and elsewhere only the
        calls whose name a changed file defined or bound (before or after the change), or
        that pointed at a symbol that changed, plus inherited method names of subclasses of a
        changed class; the lookups read only the files they reach. A cold index resolves
        every call in memory; a run interrupted before resolving makes the next one resolve
        everything again.
        """
        notify("resolve", 0, 1)
        store = self.brain.store.local
        scope = None if (self._full or bulk) else self._affected()
        # read before the thread goes on: it holds the store's connection until it is done
        catalog = self.code.graph_files() if scope is None else []
        if self._unindexed:
            self._fulltext_ranges(last=True)
        indexer_thread, self._fulltext = self._fulltext, None
        try:
            if indexer_thread is not None:
                indexer_thread.finish(bulk=bulk)
            if scope is None:
                edge_ids, refs, stored = self._resolve_all(catalog)
            else:
                edge_ids, refs, stored = self._resolve_some(*scope)
        finally:
            if indexer_thread is not None:
                indexer_thread.join()
        if indexer_thread is not None and indexer_thread.error is not None:
            raise indexer_thread.error
        updates: list[tuple[str | None, str, int]] = []
        for (target, how), edge_id in zip(refs, edge_ids, strict=True):
            if stored.get(edge_id, (None, "unresolved")) != (target, how):
                updates.append((target, how, edge_id))
        self._fresh = {}
        with store.transaction():
            self.code.set_call_targets(updates)
            if bulk and indexer_thread is None:
                self.code.ensure_indexes()
            store.meta_set(_PENDING_KEY, "0")
        report.retargeted_calls = len(updates)
        report.reresolved_calls = len(edge_ids)
        notify("resolve", 1, 1)

    def _fulltext_ranges(self, *, last: bool) -> None:
        """Hand the symbol chunks written so far without full-text rows to the full-text
        thread: in steps of FULLTEXT_STEP_CHUNKS while parsing (one statement per step: FTS5
        takes one big range faster than many small ones), all of them with ``last``."""
        pending = sum(b - a + 1 for a, b in self._unindexed)
        if not last and pending < FULLTEXT_STEP_CHUNKS:
            return
        if self._fulltext is None:
            self._fulltext = _Fulltext(self)
            self._fulltext.start()
        ranges, self._unindexed = self._unindexed, []
        self._fulltext.add(ranges)

    def _resolve_all(
        self, catalog: list[tuple[Any, ...]]
    ) -> tuple[list[int], list[tuple[str | None, str]], dict[int, tuple[str | None, str | None]]]:
        """Every call of the workspace (files of this run from memory, others from the store;
        ``catalog``: CodeStore.graph_files())."""
        files, edge_ids, stored = load_file_indexes(self.code, catalog, skip=set(self._fresh))
        for index, ids in self._fresh.values():
            files.append(index)
            edge_ids.extend(ids)
        graph = CodeGraph(
            files, go_modules=self._go_modules(f.path for f in files), resolve_all=False
        )
        return edge_ids, graph.bindings(site for f in files for site in f.calls), stored

    def _affected(self) -> tuple[set[str], set[str]] | None:
        """Names and targets of the calls outside this run's files that a change can rebind,
        or None when only resolving everything again is safe (a namespace or wildcard import
        changed, a Python module name became (un)ambiguous, or too much changed)."""
        names: set[str] = set()
        classes: set[str] = set()
        targets: set[str] = set()
        bases_of: set[str] = set()  # base names of classes that changed (before or after)
        added_or_removed: list[str] = []
        default_changed = False
        for path, before in self._before.items():
            fresh = self._fresh.get(path)
            b_meta, b_syms, b_imps = before if before is not None else (None, [], [])
            a_meta = (fresh[0].namespace, fresh[0].default_export) if fresh else None
            if b_meta is not None and a_meta is not None and b_meta != a_meta:
                if b_meta[0] != a_meta[0]:
                    return None
                default_changed = True
            if (b_meta is None) != (a_meta is None):
                added_or_removed.append(path)
                default_changed |= bool((b_meta or a_meta or (None, None))[1])
            a_syms = {
                (s.qualified_name, s.name, s.kind, s.parent, BASES_SEP.join(s.bases))
                for s in (fresh[0].symbols if fresh else ())
            }
            b_set = {tuple(r) for r in b_syms}
            for _, name, kind, _, bases in b_set ^ a_syms:
                names.add(name)
                if kind in _CLASS_LIKE:
                    classes.add(name)
                    bases_of.update(b.rsplit(".", 1)[-1] for b in bases.split(BASES_SEP) if b)
            targets.update(r[0] for r in b_set - a_syms)
            a_imps = {(i.module, i.name, i.alias) for i in (fresh[0].imports if fresh else ())}
            for module, member, alias in {tuple(r) for r in b_imps} ^ a_imps:
                edge = ImportEdge(path, module, member, alias, 0)
                if member == "*" and not alias:
                    return None
                if edge.local_name:
                    names.add(edge.local_name)
        if added_or_removed and _module_names_collide(self.code, added_or_removed):
            return None
        members = set(names)
        if default_changed:
            members.add("default")
        if members:
            names |= self.code.import_aliases(sorted(members))
        if classes:
            names |= self._hierarchy_members(classes, bases_of)
        if len(names) > _MAX_NAMES:
            return None
        return names, targets

    def _hierarchy_members(self, classes: set[str], bases: set[str]) -> set[str]:
        """Member names a changed class can lend or stop lending to calls elsewhere: those of
        its ancestors (``obj.m()`` finds ``m`` through it) and of its descendants (their
        ``self.m()`` may now reach, or miss, an inherited method). Classes are followed by
        name, a superset of what the resolver can bind."""
        rows = self.code.derived_classes()
        owners: set[str] = set()
        wanted = set(classes)  # descendants, by base name
        grew = True
        while grew:
            grew = False
            for qname, name, kind, base_list in rows:
                if kind in _CLASS_LIKE and qname not in owners:
                    if any(b.rsplit(".", 1)[-1] in wanted for b in base_list.split(BASES_SEP)):
                        owners.add(qname)
                        wanted.add(name)
                        grew = True
        by_name: dict[str, list[tuple[str, str]]] = {}
        for qname, name, _, base_list in rows:
            by_name.setdefault(name, []).append((qname, base_list))
        todo, seen = list(bases), set(classes)
        while todo:  # ancestors, by name
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for qname, base_list in by_name.get(name, ()):
                owners.add(qname)
                todo.extend(b.rsplit(".", 1)[-1] for b in base_list.split(BASES_SEP) if b)
        owners.update(self.code.class_qualified_names(sorted(seen)))
        return self.code.member_names(sorted(owners)) if owners else set()

    def _resolve_some(
        self, names: set[str], targets: set[str]
    ) -> tuple[list[int], list[tuple[str | None, str]], dict[int, tuple[str | None, str | None]]]:
        """The calls of this run's files, and the stored calls ``names``/``targets`` select,
        resolved against a graph that reads other files from the store when it needs them."""
        catalog: list[FileIndex] = []
        paths: dict[int, str] = {}
        fresh_ids: list[int] = []
        for file_id, path, language, namespace, default_export in self.code.graph_files():
            paths[file_id] = path
            if path in self._fresh:
                fresh_ids.append(file_id)
            else:
                catalog.append(FileIndex(path, language, namespace=namespace,
                                         default_export=default_export))  # fmt: skip
        ids_by_path = {p: i for i, p in paths.items()}

        def load(wanted: list[str]) -> list[FileIndex]:
            ids = [ids_by_path[p] for p in wanted if p in ids_by_path]
            return rebuild_file_indexes(self.code, ids, paths, catalog_of)

        catalog_of = {f.path: f for f in catalog}
        fresh = [index for index, _ in self._fresh.values()]
        graph = CodeGraph(
            fresh,
            catalog=catalog,
            loader=load,
            resolve_all=False,
            go_modules=self._go_modules(
                [f.path for f in fresh] + [f.path for f in catalog if f.language == "go"]
            ),
        )
        sites: list[CallSite] = []
        edge_ids: list[int] = []
        for index, ids in self._fresh.values():
            sites.extend(index.calls)
            edge_ids.extend(ids)
        stored: dict[int, tuple[str | None, str | None]] = {}
        if names or targets:
            for row in self.code.calls_to_reresolve(sorted(names), sorted(targets), fresh_ids):
                edge_id, fid, source, name, receiver, rkind, expr, line, target, how = row
                sites.append(CallSite(paths[fid], source, expr or name, name, receiver, rkind,
                                      line))  # fmt: skip
                edge_ids.append(edge_id)
                stored[edge_id] = (target, how)
        return edge_ids, graph.bindings(sites), stored

    def _route_files(self) -> list[str]:
        """Go files declaring routes (their go.mod tells how their imports resolve)."""
        return sorted({f.file for f in self.brain.store.local.route_facts() if f.language == "go"})

    def _go_modules(self, paths: Iterable[str]) -> dict[str, str]:
        """``go.mod`` module paths by directory, for directories above Go files."""
        dirs: set[str] = set()
        for p in paths:
            if p.endswith(".go"):
                d = posixpath.dirname(p)
                while True:
                    dirs.add(d)
                    if not d:
                        break
                    d = posixpath.dirname(d)
        out: dict[str, str] = {}
        for d in dirs:
            gomod = self.root / d / "go.mod"
            try:
                text = read_regular(gomod, _MAX_GOMOD_BYTES).decode("utf-8", errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                if line.startswith("module "):
                    out[d] = line.split(None, 1)[1].strip().strip('"')
                    break
        return out


def file_index_from_rows(
    path: str,
    language: str,
    namespace: str | None,
    default_export: str | None,
    symbols: Sequence[tuple[Any, ...]],
    imports: Sequence[tuple[Any, ...]],
    calls: Sequence[tuple[Any, ...]],
    assigns: Sequence[tuple[Any, ...]] = (),
) -> FileIndex:
    """A worker's row tuples back into the parse records the resolver reads."""
    return FileIndex(
        path=path,
        language=language,
        namespace=namespace,
        default_export=default_export,
        symbols=[
            Symbol(
                q,
                n,
                k,
                path,
                language,
                sig,
                doc,
                a,
                b,
                sha,
                parent,
                tuple(bases.split(BASES_SEP)) if bases else (),
            )
            for q, n, k, parent, sig, doc, a, b, sha, bases, *_ in symbols
        ],  # fmt: skip
        imports=[ImportEdge(path, m, n, al, line) for m, n, al, line in imports],
        calls=[CallSite(path, c, ce, n, r, rk, line) for c, ce, n, r, rk, line in calls],
        assignments=[Assignment(path, sc, t, v, line) for sc, t, v, line in assigns],
    )


def load_file_indexes(
    code: CodeStore,
    catalog: Iterable[tuple[Any, ...]] | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[FileIndex], list[int], dict[int, tuple[str | None, str | None]]]:
    """Rebuild the parse results of every stored file (except ``skip``), for the resolver.

    Returns the files, the id of the edge behind each call site in the order the resolver
    visits them (file by file, call by call), and each such edge's stored (target, how).
    """
    files: dict[int, FileIndex] = {}
    for file_id, path, language, namespace, default_export in (
        code.graph_files() if catalog is None else catalog
    ):
        if path not in skip:
            files[file_id] = FileIndex(path, language, namespace=namespace,
                                       default_export=default_export)  # fmt: skip
    if not files:
        return [], [], {}
    add_symbols(files, code.graph_symbols())
    call_ids: dict[int, list[int]] = {fid: [] for fid in files}
    stored: dict[int, tuple[str | None, str | None]] = {}
    for row in code.graph_edges():
        f = files.get(row[1])
        if f is None:
            continue
        if add_edge(f, row):
            call_ids[row[1]].append(row[0])
            stored[row[0]] = (row[11], row[12])
    edge_ids = [e for fid in files for e in call_ids[fid]]
    return list(files.values()), edge_ids, stored
