"""The index run's parse workers: each reads, hashes and parses one file and hands back plain
row tuples (cheap to pickle), in a process pool or, for small change sets, in-process.

A job is (path, absolute path, language or None for text, previous sha256 or None, chunk max
chars, chunk overlap, most bytes read). Results are tagged tuples of plain values: ``skip``,
``same`` (the hash did not change), ``text`` or ``code``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import secrets
from collections.abc import Callable
from multiprocessing.context import BaseContext
from typing import Any

from .. import procpool
from ..chunking import chunk_text
from .errors import CodeIndexError
from .parse import parse_file
from .stored import BASES_SEP
from .walk import NotRegularFile, read_regular

#: How much lower the parse workers' priority is than the indexing process's (see worker_start)
WORKER_NICE = 10
#: random bytes of a document's public id (12 hex digits, as every document's)
_UID_BYTES = 6
#: a str as a JSON string literal, exactly as json.dumps writes it
_json_str: Callable[[str], str] = json.encoder.encode_basestring_ascii


def work(job: tuple[str, str, str | None, str | None, int, int, int]) -> tuple[Any, ...]:
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


def worker_start() -> None:
    """A parse worker's setup: no cyclic collector (see _tuning.tuned_for_indexing), and a lower
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


def pool_context() -> BaseContext:
    """The start method for the parse pool: its workers import this module."""
    return procpool.pool_context(__name__)
