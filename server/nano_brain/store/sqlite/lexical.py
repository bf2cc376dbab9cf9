"""The SQLite dialect's lexical leg: FTS5 over the chunks' words (``chunks_fts``, porter
stems; commits in ``commits_fts``) and trigrams (``chunks_tri``), ranked by bm25.

The search pipeline hands it terms and an operator (`MemoryStore.lexical`); the FTS5
expression is built here (`fts_match`), and nowhere else. Filters are the store's one
predicate; a selective indexed filter drives the search (`_lexical_driver`), and an OR of
rare and common words is ranked as two groups (`_split_common`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ...filters import Filters
from ...stems import stem
from ..predicate import time_bounds
from ..rows import BM25_WEIGHTS, Hit, LexicalKind, Operator, every_then_any
from ._fts import VOCABULARY, fts_match
from .migrations import FULLTEXT_TABLES

if TYPE_CHECKING:
    from ._host import StoreHost

    class Store(StoreHost, Protocol):
        """What the lexical leg uses of the store: the host's, and its own state."""

        # lexical drivers chosen per filters, and the store state they were counted in
        _drivers: dict[Filters, tuple[str, list[Any]] | None]
        _driver_stamp: tuple[int, int] | None
        # words' chunk counts, and the store size they were counted at (see term_counts)
        _term_counts: tuple[dict[str, int], int]

        def lexical(
            self,
            terms: Sequence[str],
            op: Operator,
            filters: Filters,
            limit: int,
            weights: tuple[float, float] = ...,
            *,
            kind: LexicalKind = "words",
        ) -> list[Hit]: ...
        def term_counts(self, words: Sequence[str]) -> tuple[dict[str, int], int]: ...
        def _fts_search(
            self,
            table: str,
            match: str,
            filters: Filters,
            limit: int,
            weights: tuple[float, float] = ...,
        ) -> list[Hit]: ...
        def _lexical_in(
            self, table: str, match: str, filters: Filters, limit: int, weights: tuple[float, float]
        ) -> list[Hit]: ...
        def _split_common(self, match: str) -> tuple[str, str] | None: ...
        def _ranked(
            self, table: str, match: str, filters: Filters, limit: int, weights: tuple[float, float]
        ) -> list[Hit]: ...
        def _lexical_driver(self, filters: Filters) -> tuple[str, list[Any]] | None: ...
        def _lexical_driven(
            self,
            table: str,
            match: str,
            score: str,
            driver: tuple[str, list[Any]],
            where: str,
            params: list[Any],
            limit: int,
        ) -> list[Hit]: ...


#: A lexical search whose filters leave at most this many documents (counted on an index),
#: and at most this share of the store, scores only their chunks instead of ranking every
#: match first (see `_lexical_driver`). Building that set costs about 1 us a document;
#: ranking costs about 0.5 us a match (bm25) and, when fewer than one in 16 of the best pass
#: the filters (see `widen`), a second pass joining every match (about 1.5 us each).
#: Measured on 10k and 100k chunks: a tag on 1.3% or the newest 5% of the documents are 3-4x
#: faster driven, a collection of 15% 1.3x (10k) to 3x (100k) slower.
DRIVE_LIMIT = 5000
DRIVE_SHARE = 0.1
_DRIVER_RECOUNT = 1000
_DRIVER_MEMORY = 64
#: The words FTS5 indexed and in how many chunks each is (per connection, in temp: the file
#: holds no such table, and a read-only store can have it too).
#: A word more than this many chunks and this share of them hold is common (`_split_common`):
#: on small stores every OR is plain. On 100k chunks (agent transcripts and LoCoMo turns), a
#: LoCoMo question's OR (best 50) took 7.5 ms scored whole, 5.1 ms split into groups.
_COMMON_WORD = 2000
_COMMON_SHARE = 0.02
_PHRASE = re.compile(r'"(?:[^"]|"")*"')
_OR_LIST = re.compile(r'"(?:[^"]|"")*"(?: OR "(?:[^"]|"")*")+')
_TERM_COUNTS_DRIFT = 0.01
_TERM_COUNTS_KEPT = 100_000


class FullTextSearch:
    """Mixed into SqliteStore: the lexical leg and the words' chunk counts. The store's
    constructor sets the state below."""

    _drivers: dict[Filters, tuple[str, list[Any]] | None]
    _driver_stamp: tuple[int, int] | None
    _term_counts: tuple[dict[str, int], int]

    def lexical(
        self: Store,
        terms: Sequence[str],
        op: Operator,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
        *,
        kind: LexicalKind = "words",
    ) -> list[Hit]:
        """Chunks holding the terms (every one: AND, any: OR), words or trigrams, best bm25
        first, filters applied; as FTS5 finds them (see `_fts_search`)."""
        table = "chunks_tri" if kind == "trigrams" else "chunks_fts"
        return self._fts_search(table, fts_match(terms, op), filters, limit, weights)

    def _fts_search(
        self: Store,
        table: str,
        match: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
    ) -> list[Hit]:
        """Chunks whose text matches an FTS5 expression, best bm25 first, filters applied.

        ``weights`` are bm25's (title, body) column weights.

        When an indexed filter (tags, a time range, collections) leaves few documents, only
        their chunks are scored (`_lexical_driver`). Otherwise the best few times `limit`
        matches are ranked inside FTS5 first and only those are joined and filtered; when
        that leaves too few (a selective filter, old versions or superseded notes crowding
        in), the full join runs instead. Either way the answer is the exact filtered top
        `limit` by bm25 (tests/store/test_lexical_filters.py).
        """
        if table not in FULLTEXT_TABLES:
            raise ValueError(table)
        if table != "chunks_fts":  # commits have no trigram rows (migration 10)
            return self._lexical_in(table, match, filters, limit, weights)
        # words: commit chunks are in an index of their own (migration 10)
        kinds = filters.allowed_kinds()
        tables = [t for t, wanted in (("chunks_fts", any(k != "commit" for k in kinds)),
                                      ("commits_fts", "commit" in kinds)) if wanted]  # fmt: skip
        hits = [h for t in tables for h in self._lexical_in(t, match, filters, limit, weights)]
        if len(tables) > 1:
            hits.sort(key=lambda h: h.score)
        return hits[:limit]

    def lexical_terms(
        self: Store,
        terms: Sequence[str],
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
    ) -> tuple[list[Hit], int]:
        """Chunks holding every term, best bm25 first, then when those are fewer than `limit`
        the best holding any; and how many lead holding every term."""
        every = self.lexical(terms, "AND", filters, limit, weights)
        if len(every) >= limit or len(terms) < 2:
            return every, len(every)
        anyone = self.lexical(terms, "OR", filters, limit, weights)
        return every_then_any(every, anyone, limit)

    def term_counts(self: Store, words: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each word (as the lexical index stems it), and about how
        many chunks there are.

        FTS5 counts a word's chunks by reading its whole posting list, so counts are kept
        while the store grows or shrinks by less than 1% (they weigh feedback words, which
        such a change cannot reorder).
        """
        total = int(self._rows("SELECT coalesce(max(id), 0) FROM chunks")[0][0])
        with self._lock:
            known, counted_at = self._term_counts
            if abs(total - counted_at) > max(_TERM_COUNTS_DRIFT * counted_at, 10):
                known = {}
                self._term_counts = (known, total)
        stems = {w: stem(w) for w in words}
        wanted = sorted(set(stems.values()) - known.keys())
        if wanted:
            found = dict.fromkeys(wanted, 0)
            found.update(
                self._rows(
                    f"SELECT term, doc FROM temp.{VOCABULARY} WHERE term IN "
                    f"({','.join('?' * len(wanted))})",
                    wanted,
                )
            )
            if len(known) > _TERM_COUNTS_KEPT:
                known.clear()
            known.update(found)
        return {w: int(known.get(s, 0)) for w, s in stems.items()}, total

    def _lexical_in(
        self: Store,
        table: str,
        match: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]:
        split = self._split_common(match) if table == "chunks_fts" else None
        if split is None:
            return self._ranked(table, match, filters, limit, weights)
        # bm25 adds up per word, each word weighed over the whole table, so the chunks that
        # hold rare and common words and those that hold rare words only are ranked apart
        # with the scores of the whole OR. Chunks holding common words only do not match
        # (see `_split_common`).
        rare, common = split
        hits = self._ranked(table, f"({rare}) AND ({common})", filters, limit, weights)
        hits += self._ranked(table, f"({rare}) NOT ({common})", filters, limit, weights)
        hits.sort(key=lambda h: (h.score, h.chunk_id))
        return hits[:limit]

    def _split_common(self: Store, match: str) -> tuple[str, str] | None:
        """An OR of words as (its rare words, its common words), when it has both; common:
        more than `_COMMON_WORD` chunks and `_COMMON_SHARE` of them hold the word.

        Such an OR matches the chunks holding a rare word, and its common words only add to
        their scores, as Lucene's common-terms query has it: the chunks holding common words
        only are most of the matches (at 100k chunks, "new", "got" and "used" are in 35k),
        ranking them was most of a filtered search's time when the filter left few chunks
        with the rare words (34 of 40 ms), and they are the weakest matches there are.
        LoCoMo dev R@10 with the threshold at 2% of its 2,760 turns: 0.705 either way."""
        if not _OR_LIST.fullmatch(match):
            return None
        phrases = {p: p[1:-1].replace('""', '"') for p in _PHRASE.findall(match)}
        counts, total = self.term_counts(list(phrases.values()))
        limit = max(_COMMON_WORD, _COMMON_SHARE * total)
        common = [p for p, word in phrases.items() if counts[word] > limit]
        if not common or len(common) == len(phrases):
            return None
        rare = [p for p in phrases if p not in common]
        return " OR ".join(rare), " OR ".join(common)

    def _ranked(
        self: Store,
        table: str,
        match: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]:
        where, params = self._predicate(filters)
        score = f"bm25({table}, {float(weights[0])}, {float(weights[1])})"
        driver = self._lexical_driver(filters) if filters.has_user_filters() else None
        if driver is not None:
            return self._lexical_driven(table, match, score, driver, where, params, limit)
        # rank inside FTS5 first, wider when user filters may reject many of the best matches
        # (8x measured no faster at 100k chunks, slower at 10k: more second passes)
        widen = 16 if filters.has_user_filters() else 4
        inner = f"ORDER BY score LIMIT {int(limit) * widen}"
        while True:
            rows = self._rows(
                f"SELECT c.id, c.doc_id, f.score FROM (SELECT rowid AS id, {score} AS score "
                f"FROM {table} WHERE {table} MATCH ? {inner}) f "
                "CROSS JOIN chunks c ON c.id = f.id CROSS JOIN documents d ON d.id = c.doc_id "
                f"WHERE d.workspace_id = ? AND {where} ORDER BY f.score LIMIT ?",
                (match, self.workspace_id, *params, limit),
            )
            if not inner or len(rows) >= limit:
                break
            matched = self._rows(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? "
                f"LIMIT {int(limit) * widen})",
                (match,),
            )[0][0]
            if matched < limit * widen:
                break  # the inner limit cut nothing off
            inner = ""
        return [Hit(r[0], r[1], r[2]) for r in rows]

    def _lexical_driver(self: Store, filters: Filters) -> tuple[str, list[Any]] | None:
        """A few documents that include every one the filters pass, as SQL selecting their
        ids from an index, or None when no indexed filter leaves at most `DRIVE_LIMIT` (and
        `DRIVE_SHARE` of the store).

        FTS5 computes bm25 for every match it returns, and a selective filter makes the
        ranked-first plan score thousands of matches to keep a few; scoring only the chunks
        of these documents costs what they are, whatever the query matches.

        The choice only decides how fast the exact answer comes, so it is remembered per
        filters (one search asks several times) until another connection commits or this
        one has changed `_DRIVER_RECOUNT` more rows.
        """
        with self._lock:
            stamp = (
                int(self._rows("PRAGMA data_version")[0][0]),
                self._db.total_changes // _DRIVER_RECOUNT,
            )
            if stamp != self._driver_stamp:
                self._drivers.clear()
                self._driver_stamp = stamp
            if filters in self._drivers:
                return self._drivers[filters]
            best: tuple[int, str, list[Any]] | None = None
            # ids grow with every version written: their largest is the size of the store
            # (or more), which is all a share needs
            size = int(self._rows("SELECT coalesce(max(id), 0) FROM documents")[0][0])
            cap = min(DRIVE_LIMIT, int(size * DRIVE_SHARE)) + 1
            for sql, params in _indexed_supersets(filters):
                counted = self._rows(f"SELECT count(*) FROM ({sql} LIMIT ?)", (*params, cap))
                found = int(counted[0][0])
                if found < cap and (best is None or found < best[0]):
                    best = (found, sql, params)
            driver = None if best is None else (best[1], best[2])
            if len(self._drivers) < _DRIVER_MEMORY:
                self._drivers[filters] = driver
            return driver

    def _lexical_driven(
        self: Store,
        table: str,
        match: str,
        score: str,
        driver: tuple[str, list[Any]],
        where: str,
        params: list[Any],
        limit: int,
    ) -> list[Hit]:
        """The best `limit` matches among the chunks of the driver's documents, filters
        applied: FTS5 still walks every match (cheap), but bm25 and the row lookups run only
        for the chunks in that set. bm25's statistics are the whole table's either way, so
        the scores are those of the ranked-first plan."""
        sql, driver_params = driver
        rows = self._rows(
            # unary + keeps the rowid test out of FTS5: as a rowid constraint FTS5 would
            # run the whole query once per listed chunk
            f"SELECT c.id, c.doc_id, {score} AS score FROM {table} "
            f"CROSS JOIN chunks c ON c.id = {table}.rowid "
            "CROSS JOIN documents d ON d.id = c.doc_id "
            f"WHERE {table} MATCH ? AND +{table}.rowid IN "
            f"(SELECT k.id FROM chunks k WHERE k.doc_id IN ({sql})) "
            f"AND d.workspace_id = ? AND {where} ORDER BY score LIMIT ?",
            (match, *driver_params, self.workspace_id, *params, limit),
        )
        return [Hit(r[0], r[1], r[2]) for r in rows]


def _indexed_supersets(filters: Filters) -> Iterator[tuple[str, list[Any]]]:
    """SQL selecting, from one index each, the ids of a set of documents that holds every
    document the filters pass (and maybe more: the full predicate is applied after)."""
    for tag in filters.tags:
        yield "SELECT doc_id FROM document_tags WHERE tag = ?", [tag]
    ranges: dict[str, list[tuple[str, float]]] = {}
    for column, op, value in time_bounds(filters):
        ranges.setdefault(column, []).append((op, value))
    for column, bounds in ranges.items():  # documents_created, documents_updated
        where = " AND ".join(f"{column} {op} ?" for op, _ in bounds)
        yield f"SELECT id FROM documents WHERE {where}", [value for _, value in bounds]
    if filters.collections and filters.as_of is None:
        # documents_hash holds the current versions only, which is all the predicate allows
        # without as_of
        marks = ",".join("?" * len(filters.collections))
        yield (
            f"SELECT id FROM documents WHERE collection IN ({marks}) AND valid_to IS NULL",
            list(filters.collections),
        )
