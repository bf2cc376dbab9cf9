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

import hashlib
import logging
import multiprocessing
import os
import posixpath
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..chunking import chunk_text
from ..store.code import CodeStore, FileRecord
from .errors import CodeIndexError
from .languages import code_extensions
from .model import Assignment, CallSite, FileIndex, ImportEdge, Symbol
from .parse import parse_file
from .resolve import CodeGraph
from .walk import DEFAULT_MAX_BYTES, SkippedFile, WalkedFile, iter_workspace

if TYPE_CHECKING:
    from ..brain import Brain

log = logging.getLogger(__name__)

#: Prose files indexed as whole documents with the engine's chunker.
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".txt", ".rst"})
#: Below this many files to parse, a process pool costs more than it saves.
POOL_THRESHOLD = 48
#: Files per write transaction: small enough that other writers never wait long.
BATCH_FILES = 250
_PENDING_KEY = "code_resolve_pending"
_CLASS_LIKE = frozenset({"class", "interface", "struct", "enum", "trait", "module", "type"})
_BASES_SEP = "\x1f"

#: progress(phase, done, total); phases: ``scan``, ``parse``, ``resolve``.
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
# chunk max chars, chunk overlap). Results are tagged tuples of plain values.


def _work(job: tuple[str, str, str | None, str | None, int, int]) -> tuple[Any, ...]:
    path, abs_path, language, old_sha, max_chars, overlap = job
    try:
        with open(abs_path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return ("skip", path, "unreadable", str(exc))
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
            _BASES_SEP.join(s.bases),
            s.search_text,
            hashlib.sha256(s.search_text.encode("utf-8", "replace")).hexdigest(),
            s.search_title,
        )
        for s in index.symbols
    ]
    imports = [(i.module, i.name, i.alias, i.line) for i in index.imports]
    calls = [(c.caller, c.callee, c.name, c.receiver, c.receiver_kind, c.line) for c in index.calls]
    assigns = [(a.scope, a.target, a.value, a.line) for a in index.assignments]
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
    )


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
        return multiprocessing.get_context(
            "fork" if threading.active_count() == 1 else "forkserver"
        )
    return multiprocessing.get_context("spawn")


# -- main side --------------------------------------------------------------------------------


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
    ) -> None:
        self.brain = brain
        self.code = CodeStore(brain.store)
        self.root = Path(brain.root)
        self.workers = max(1, workers if workers is not None else min(2, os.cpu_count() or 1))
        self.exclude = list(exclude)
        self.max_bytes = max_bytes
        self.batch_files = max(1, batch_files)

    def run(self, progress: IndexProgress | None = None) -> IndexReport:
        """One incremental pass; returns what it did (never raises for one bad file)."""
        started = time.perf_counter()
        report = IndexReport()
        # parse results of this run, kept for the resolver: {path: (FileIndex, call edge ids)}
        self._fresh: dict[str, tuple[FileIndex, list[int]]] = {}
        # bare names (and class names) defined, before or after, in the files this run changed:
        # only calls of those names can resolve differently (see _resolve)
        self._names: set[str] = set()
        self._classes: set[str] = set()
        self._full = self.brain.store.meta_get(_PENDING_KEY) == "1"
        notify = progress or (lambda phase, done, total: None)
        known = self.code.files()
        self.code.tune_for_bulk()
        jobs, seen = self._scan(known, report, notify)
        t_scan = time.perf_counter()
        report.phase_seconds["scan"] = round(t_scan - started, 4)
        deleted = sorted(p for p in known if p not in seen)
        report.deleted = len(deleted)
        changed = self._parse_and_write(jobs, known, deleted, report, notify)
        t_write = time.perf_counter()
        report.phase_seconds["parse_write"] = round(t_write - t_scan, 4)
        if changed or self.brain.store.meta_get(_PENDING_KEY) == "1":
            self._resolve(report, notify)
            report.resolved = True
        report.phase_seconds["resolve"] = round(time.perf_counter() - t_write, 4)
        counts = self.code.counts()
        report.files = counts["files"]
        report.source_files = counts["source_files"]
        report.text_files = counts["text_files"]
        report.symbols = counts["symbols"]
        report.edges = counts["edges"]
        report.calls = counts["calls"]
        report.resolved_calls = counts["resolved_calls"]
        report.pending_embeddings = self.brain.store.pending_count()
        report.seconds = round(time.perf_counter() - started, 4)
        if changed:
            with self.brain.store.transaction():
                self.brain.store.audit(
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
        self, known: dict[str, FileRecord], report: IndexReport, notify: IndexProgress
    ) -> tuple[list[tuple[WalkedFile, FileRecord | None]], set[str]]:
        """Files to read (new, or with a new stat) and every path still present."""
        suffixes = set(code_extensions()) | TEXT_SUFFIXES
        jobs: list[tuple[WalkedFile, FileRecord | None]] = []
        seen: set[str] = set()
        stats = {p: (r.size, r.mtime_ns) for p, r in known.items()}
        for item in iter_workspace(
            self.root,
            exclude=self.exclude,
            max_bytes=self.max_bytes,
            suffixes=suffixes,
            known=stats,
        ):
            if isinstance(item, SkippedFile):
                report.skip(item.path, item.reason)
                continue
            if item.language is None and Path(item.path).suffix.lower() not in TEXT_SUFFIXES:
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
        self, jobs: list[tuple[str, str, str | None, str | None, int, int]], report: IndexReport
    ) -> Iterator[tuple[Any, ...]]:
        if len(jobs) < POOL_THRESHOLD or self.workers == 1:
            report.workers = 1
            yield from map(_work, jobs)
            return
        report.workers = self.workers
        with ProcessPoolExecutor(self.workers, mp_context=_pool_context()) as pool:
            yield from pool.map(_work, jobs, chunksize=8)

    def _parse_and_write(
        self,
        walked: list[tuple[WalkedFile, FileRecord | None]],
        known: dict[str, FileRecord],
        deleted: list[str],
        report: IndexReport,
        notify: IndexProgress,
    ) -> bool:
        """Parse what changed and write it in batches; True when any row changed."""
        store = self.brain.store
        cfg = self.brain.config.chunking
        by_path = {w.path: w for w, _ in walked}
        jobs = [
            (
                w.path,
                str(w.abs_path),
                w.language,
                old.sha256 if old else None,
                cfg.max_chars,
                cfg.overlap_chars,
            )
            for w, old in walked
        ]
        if not jobs and not deleted:
            return False
        tombstoned = self.code.tombstoned()
        changed = False
        if deleted:
            with store.transaction():
                store.meta_set(_PENDING_KEY, "1")
                for path in deleted:
                    self._forget_names(path)
                    self.code.delete_file(path)
            changed = True
        total = len(jobs)
        done = 0
        batch: list[tuple[Any, ...]] = []
        for result in self._results(jobs, report):
            batch.append(result)
            done += 1
            if len(batch) >= self.batch_files:
                changed |= self._write_batch(batch, by_path, known, tombstoned, report)
                batch = []
            notify("parse", done, total)
        if batch:
            changed |= self._write_batch(batch, by_path, known, tombstoned, report)
        return changed

    def _write_batch(
        self,
        batch: list[tuple[Any, ...]],
        by_path: dict[str, WalkedFile],
        known: dict[str, FileRecord],
        tombstoned: set[str],
        report: IndexReport,
    ) -> bool:
        now = time.time()
        changed = False
        with self.brain.store.transaction():
            for result in batch:
                tag, path = result[0], result[1]
                walked = by_path[path]
                if tag == "skip":
                    report.skip(path, result[2])
                    if result[2] == "parse_error":
                        report.errors.append(f"{path}: {result[3]}")
                        log.warning("cannot parse %s: %s", path, result[3])
                    if path in known:  # it was indexed before; its old rows are now wrong
                        self._forget_names(path)
                        self.code.delete_file(path)
                        changed = True
                    continue
                if tag == "same":
                    self.code.touch_file(path, walked.size, walked.mtime_ns)
                    report.touched += 1
                    continue
                if not changed:
                    self.brain.store.meta_set(_PENDING_KEY, "1")
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
                 assigns) = result  # fmt: skip
                if path in known:
                    self._forget_names(path)
                self._note_names((s[1], s[2]) for s in syms)
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
                self._fresh[path] = (
                    file_index_from_rows(path, language, namespace, default_export, syms, imps,
                                         calls, assigns),
                    call_ids,
                )  # fmt: skip
        return changed

    # -- resolve ---------------------------------------------------------------------------

    def _forget_names(self, path: str) -> None:
        self._note_names(self.code.symbol_names_of(path))

    def _note_names(self, pairs: Iterable[tuple[str, str]]) -> None:
        for name, kind in pairs:
            self._names.add(name)
            if kind in _CLASS_LIKE:
                self._classes.add(name)

    def _resolve(self, report: IndexReport, notify: IndexProgress) -> None:
        """Re-resolve the calls a change can affect; rewrite the edges whose target moved.

        A call's resolution depends on the definitions and imports visible to it, never on
        other calls, and every rule looks a callee up by its bare name. So after a change only
        calls whose name was defined (before or after) in a changed file can bind differently,
        plus inherited method names of subclasses of a changed class. Those are re-resolved
        against the whole workspace's definitions; a run interrupted before resolving (or a
        cold index) resolves every call.
        """
        notify("resolve", 0, 1)
        names: set[str] | None = None if self._full else set(self._names)
        if names is not None and not names and not self._fresh:
            with self.brain.store.transaction():  # only text files changed: nothing to bind
                self.brain.store.meta_set(_PENDING_KEY, "0")
            notify("resolve", 1, 1)
            return
        files, edge_ids, stored = load_file_indexes(
            self.code, skip=set(self._fresh), call_names=names, classes=self._classes
        )
        for index, ids in self._fresh.values():
            files.append(index)
            edge_ids.extend(ids)
            stored.update((i, (None, "unresolved")) for i in ids)
        self._fresh = {}
        graph = CodeGraph(files, go_modules=self._go_modules(f.path for f in files))
        updates: list[tuple[str | None, str, int]] = []
        for ref, edge_id in zip(graph.references, edge_ids, strict=True):
            how = ref.how
            if stored[edge_id] != (ref.target, how):
                updates.append((ref.target, how, edge_id))
        with self.brain.store.transaction():
            self.code.set_call_targets(updates)
            self.brain.store.meta_set(_PENDING_KEY, "0")
        report.retargeted_calls = len(updates)
        report.reresolved_calls = len(edge_ids)
        notify("resolve", 1, 1)

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
                text = gomod.read_text(encoding="utf-8", errors="replace")
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
                tuple(bases.split(_BASES_SEP)) if bases else (),
            )
            for q, n, k, parent, sig, doc, a, b, sha, bases, *_ in symbols
        ],  # fmt: skip
        imports=[ImportEdge(path, m, n, al, line) for m, n, al, line in imports],
        calls=[CallSite(path, c, ce, n, r, rk, line) for c, ce, n, r, rk, line in calls],
        assignments=[Assignment(path, sc, t, v, line) for sc, t, v, line in assigns],
    )


def load_file_indexes(
    code: CodeStore,
    skip: set[str] | frozenset[str] = frozenset(),
    *,
    call_names: set[str] | None = None,
    classes: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[FileIndex], list[int], dict[int, tuple[str | None, str | None]]]:
    """Rebuild the parse results of the stored files (except ``skip``), for the resolver.

    With ``call_names``, only calls of those bare names are loaded (plus the member names of
    classes deriving, directly or not, from ``classes``). Returns the files, the id of the
    edge behind each loaded call site in the order the resolver visits them (file by file,
    call by call), and each such edge's stored (target, how).
    """
    file_rows = code.graph_files()
    if all(row[1] in skip for row in file_rows):
        return [], [], {}
    files: dict[int, FileIndex] = {}
    for file_id, path, language, namespace, default_export in file_rows:
        if path in skip:
            continue
        files[file_id] = FileIndex(
            path=path, language=language, namespace=namespace, default_export=default_export
        )
    symbol_rows = code.graph_symbols()
    if call_names is not None:
        call_names = call_names | _subclass_member_names(symbol_rows, classes)
    for fid, qname, name, kind, parent, sig, doc, start, end, sha, bases in symbol_rows:
        f = files.get(fid)
        if f is None:
            continue
        f.symbols.append(
            Symbol(
                qname, name, kind, f.path, f.language, sig, doc, start, end, sha, parent,
                tuple(bases.split(_BASES_SEP)) if bases else (),
            )
        )  # fmt: skip
    call_ids: dict[int, list[int]] = {fid: [] for fid in files}
    stored: dict[int, tuple[str | None, str | None]] = {}
    for row in code.graph_edges(sorted(call_names) if call_names is not None else None):
        edge_id, fid, kind, source, name, receiver, rkind, expr, module, alias, line = row[:11]
        f = files.get(fid)
        if f is None:
            continue
        if kind == "imports":
            f.imports.append(ImportEdge(f.path, module, expr, alias, line))
        elif kind == "assigns":
            f.assignments.append(Assignment(f.path, source, name, expr, line))
        else:
            f.calls.append(CallSite(f.path, source, expr or name, name, receiver, rkind, line))
            call_ids[fid].append(edge_id)
            stored[edge_id] = (row[11], row[12])
    ordered = list(files.values())
    edge_ids = [e for fid in files for e in call_ids[fid]]
    return ordered, edge_ids, stored


def _subclass_member_names(
    symbol_rows: Sequence[tuple[Any, ...]], classes: set[str] | frozenset[str]
) -> set[str]:
    """Member names of classes that derive (transitively, by base name) from ``classes``:
    their ``self.m()`` calls may now bind to, or lose, an inherited method."""
    if not classes:
        return set()
    wanted = set(classes)
    derived: set[str] = set()
    grew = True
    while grew:
        grew = False
        for row in symbol_rows:
            qname, name, kind, bases = row[1], row[2], row[3], row[10]
            if kind in _CLASS_LIKE and qname not in derived and bases:
                if any(b.rsplit(".", 1)[-1] in wanted for b in bases.split(_BASES_SEP)):
                    derived.add(qname)
                    wanted.add(name)
                    grew = True
    return {row[2] for row in symbol_rows if row[4] in derived}
