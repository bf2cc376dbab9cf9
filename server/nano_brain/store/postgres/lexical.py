"""The lexical leg on PostgreSQL: full-text search ranked by BM25, as FTS5 ranks it.

The search pipeline asks for terms joined by AND or by OR, as words or as trigrams
(identifier fragments, CJK). Words are looked up in `chunk_terms`, the posting lists derived
from each chunk's ``tsv``; substrings are found in the chunks' lower-cased text. Each match
is scored with FTS5's bm25 formula (k1 1.2, b 0.75, idf floored at 1e-6, title and body hits
weighted, lengths in tokens) from the postings, the lexemes' document frequencies
(`chunk_terms_df`) and the workspace's chunk statistics (`chunk_stats`). The scores are
negative, lower is better, as bm25() returns them, so fusion and pseudo-relevance feedback
treat both dialects alike. PostgreSQL's ts_rank/ts_rank_cd have no idf: a common word would
count as much as a rare one, and the results of the two dialects would differ.

A word query does not score every posting of a common lexeme: each lexeme's postings are
read best first (by `impact`, their BM25 term-frequency part) up to a few times the hits
wanted, the chunks found are scored exactly (their other postings looked up), and only the
best few are joined to their documents and filtered, as the SQLite store ranks inside FTS5
first. When that leaves too few hits, every posting is read. (Row-level security keeps the
planner off GIN indexes, whose operators are not leakproof: the posting lists are a B-tree.)
The search pipeline's "every word, then any word" is one statement (`lexical_terms`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...filters import Filters
from ..rows import BM25_WEIGHTS, Hit, LexicalKind, Operator

if TYPE_CHECKING:
    from ._host import PgHost as PostgresStore

# FTS5's bm25 constants: score = idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / avglen))
_K1, _B = 1.2, 0.75
# (constants as float8: a bare 1.2 is numeric in PostgreSQL, and numeric arithmetic over
# every posting was most of the leg's time)
_BM25 = (
    f"-sum({{w}} * {{f}} * {_K1 + 1}::float8 / ({{f}} + {_K1}::float8 * ({1 - _B}::float8 "
    f"+ {_B}::float8 * {{length}} / {{avgdl}})))"
)
# Postings read per lexeme before rescoring: an AND query reads its rarest lexeme's (every
# match has it), an OR query each lexeme's; at least this many, or a multiple of the
# candidates ranked before the join (see Lexical._words).
_AND_READ = 4000
_OR_READ = 400
#: An OR query whose lexemes have at most this many postings in all reads them all.
_OR_EXACT = 8000
_EVERYTHING = 2**62
# how long a count of the documents some filters pass chooses the plan, and how many kept
_PASS_COUNT_AGE = 60.0
_PASS_COUNTS_KEPT = 64


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


#: A workspace of at most this many chunks reads its candidates' other postings by key.
_LOOKUP_WORKSPACE = 10_000
#: User filters that at most this many documents (and this share of them) pass make the
#: lexical leg read only those documents' postings (`Lexical._driven`), as the SQLite store.
DRIVE_LIMIT = 5000
DRIVE_SHARE = 0.1


def _more(lookup: bool, columns: str) -> str:
    """The candidates' postings of the words whose best postings did not hold them."""
    if lookup:
        # one primary-key lookup per candidate and word: a small workspace in a database
        # holding a large one was estimated at a posting or two, and the join below then
        # read every posting of the workspace for each candidate (2.5 s a query)
        return (
            f"more AS (SELECT q.lexeme, {columns} FROM c CROSS JOIN q CROSS JOIN LATERAL "
            f"(SELECT {columns} FROM chunk_terms t WHERE t.workspace_id = ? "
            "AND t.lexeme = q.lexeme AND t.chunk_id = c.chunk_id OFFSET 0) t "
        )
    return (
        f"more AS (SELECT q.lexeme, {columns} FROM c CROSS JOIN q JOIN chunk_terms t "
        "ON t.workspace_id = ? AND t.lexeme = q.lexeme AND t.chunk_id = c.chunk_id "
    )


def _scores(op: str, weights: tuple[float, float]) -> str:
    """The CTE ``s``: each chunk of the postings ``p`` with its BM25 score and whether it
    holds every lexeme (AND keeps only those)."""
    hits = (
        f"({float(weights[0])!r}::float8 * p.tf_title + {float(weights[1])!r}::float8 * p.tf_body)"
    )
    bm25 = _BM25.format(w="q.w", f=hits, length="p.ntok", avgdl="q.avgdl")
    having = "HAVING count(*) = (SELECT count(*) FROM lx) " if op == "AND" else ""
    return (
        f"s AS (SELECT p.chunk_id, p.doc_id, {bm25} AS score, "
        "count(*) = (SELECT count(*) FROM lx) AS every FROM p "
        f"JOIN q ON q.lexeme = p.lexeme GROUP BY p.chunk_id, p.doc_id {having})"
    )


def _best_first(op: str, alias: str) -> str:
    """The order of scored chunks: ALL puts those holding every lexeme first."""
    first = f"{alias}.every DESC, " if op == "ALL" else ""
    return f"{first}{alias}.score, {alias}.chunk_id"


class Lexical:
    """Mixed into PostgresStore."""

    def lexical(
        self: PostgresStore,
        terms: Sequence[str],
        op: Operator,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
        *,
        kind: LexicalKind = "words",
    ) -> list[Hit]:
        """Chunks holding the terms (every one: AND, any: OR), words or trigrams, best BM25
        first, filters applied (see the module)."""
        if op not in ("AND", "OR"):
            raise ValueError(op)
        words = [t for t in terms if t.strip()]
        if not words:
            return []
        if filters.kinds and not self._any_document(filters):
            return []  # e.g. the history leg's commits, which a team store never holds
        if kind == "trigrams":
            return self._trigram(words, op, filters, limit, weights)
        return self._words(words, op, filters, limit, weights)[0]

    def term_counts(self: PostgresStore, words: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each word (its lexeme's document frequency), and how many
        chunks the workspace has."""
        counts = dict.fromkeys(words, 0)
        rows = self._rows(
            "SELECT w.word, max(f.df) FROM unnest(?::text[]) AS w(word) "
            "CROSS JOIN LATERAL unnest(to_tsvector('nb_english', w.word)) AS l "
            "JOIN chunk_terms_df f ON f.workspace_id = ? AND f.lexeme = l.lexeme "
            "GROUP BY w.word UNION ALL SELECT NULL, coalesce((SELECT s.chunks FROM chunk_stats s "
            "WHERE s.workspace_id = ?), 0)",
            (list(counts), self.workspace_id, self.workspace_id),
        )
        counts.update({r[0]: int(r[1]) for r in rows if r[0] is not None})
        return counts, int(next(r[1] for r in rows if r[0] is None))

    def lexical_terms(
        self: PostgresStore,
        terms: Sequence[str],
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
    ) -> tuple[list[Hit], int]:
        """Chunks holding every term first, then (when those are fewer than `limit`) chunks
        holding any, each group best BM25 first; and how many lead holding every term.

        One statement for both groups: its candidates are the rarest lexeme's best postings
        as an AND reads them and the others' as an OR does (94% of LoCoMo's questions at
        100k chunks went on to the OR)."""
        words = [t for t in terms if t.strip()]
        if not words:
            return [], 0
        if filters.kinds and not self._any_document(filters):
            return [], 0
        return self._words(words, "ALL" if len(words) > 1 else "AND", filters, limit, weights)

    def _words(
        self: PostgresStore,
        terms: list[str],
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], int]:
        """Words: candidates from the query lexemes' best postings, scored exactly, the best
        few joined and filtered; every posting only when that leaves too few (see `_read`).
        `op` ALL ranks the chunks holding every lexeme first."""
        words = " ".join(" ".join(t.replace('"', " ").split()) for t in terms)
        if filters.has_user_filters() and self._few_pass(filters):
            return self._driven(words, op, filters, limit, weights)
        inner = limit * (16 if filters.has_user_filters() else 4)
        if op == "AND":  # every match is among the rarest lexeme's postings
            take, exact_below = (max(_AND_READ, 4 * inner), 0), -1
        elif op == "ALL":
            take, exact_below = (max(_AND_READ, 4 * inner), max(_OR_READ, 2 * inner)), _OR_EXACT
        else:
            take, exact_below = (max(_OR_READ, 2 * inner),) * 2, _OR_EXACT
        hits, every, matched, complete = self._read(
            words, op, take, exact_below, filters, inner, limit, weights
        )
        if len(hits) >= limit or (complete and matched <= inner):
            return hits, every
        if not hits and not self._any_document(filters):
            return [], 0
        # too few passed the filters: score every posting and filter every match
        found = self._read(words, op, (0, 0), _EVERYTHING, filters, None, limit, weights)
        return found[0], found[1]

    def _read(
        self: PostgresStore,
        words: str,
        op: str,
        take: tuple[int, int],
        exact_below: int,
        filters: Filters,
        inner: int | None,
        limit: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], int, int, bool]:
        """One statement: the query's lexemes with their document frequencies; the best
        postings of each (by impact: `take[0]` of the rarest, `take[1]` of the others, all of
        them when the lexemes have at most `exact_below` in all) make the candidates; the
        candidates' postings of the other lexemes are looked up, so that every candidate is
        scored exactly; the best `inner` (all: None) are joined and filtered. AND keeps the
        candidates holding every lexeme, OR all, ALL all with those holding every one first.

        Returns the hits, how many lead holding every lexeme, how many candidates matched,
        and whether the candidates were all the matches (AND: the rarest lexeme's postings
        were all read; OR, ALL: every lexeme's)."""
        where, params = self._predicate(filters)
        ws = self.workspace_id
        columns = "t.chunk_id, t.doc_id, t.tf_title, t.tf_body, t.ntok"
        # a prepared statement: planning this one took about a millisecond per call, and its
        # plan hardly depends on the values (the lexemes' numbers drive it as it runs)
        rows = self._rows(
            "WITH lx AS (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('nb_english', ?)) u), "
            "f AS (SELECT lx.lexeme, f.df, row_number() OVER (ORDER BY f.df, lx.lexeme) AS r, "
            "sum(f.df) OVER () AS total FROM lx JOIN chunk_terms_df f "
            "ON f.workspace_id = ? AND f.lexeme = lx.lexeme AND f.df > 0), "
            "q AS MATERIALIZED (SELECT f.lexeme, f.df, f.r, "
            "CASE WHEN f.total <= ? THEN f.df WHEN f.r = 1 THEN ? ELSE ? END AS take, "
            "greatest(ln((st.n - f.df + 0.5) / (f.df + 0.5)), 1e-6) AS w, st.avgdl FROM f "
            "CROSS JOIN (SELECT greatest(s.chunks, 1)::float8 AS n, "
            "greatest(s.tokens::float8 / greatest(s.chunks, 1), 1) AS avgdl "
            "FROM chunk_stats s WHERE s.workspace_id = ?) st), "
            f"top AS MATERIALIZED (SELECT q.lexeme, {columns} FROM q CROSS JOIN LATERAL "
            f"(SELECT {columns} FROM chunk_terms t WHERE t.workspace_id = ? "
            "AND t.lexeme = q.lexeme ORDER BY t.impact DESC LIMIT q.take) t), "
            "c AS (SELECT DISTINCT chunk_id FROM top), "
            f"{_more(self._workspace_chunks() <= _LOOKUP_WORKSPACE, columns)}"
            "WHERE q.df > q.take AND NOT EXISTS (SELECT 1 FROM top o "
            "WHERE o.lexeme = q.lexeme AND o.chunk_id = c.chunk_id)), "
            "p AS (SELECT * FROM top UNION ALL SELECT * FROM more), "
            f"{_scores(op, weights)}, "
            "k AS (SELECT s.chunk_id, s.doc_id, s.score, s.every FROM s "
            f"ORDER BY {_best_first(op, 's')} LIMIT ?) "
            # the hits, then one row saying how many candidates matched and whether they were
            # all the matches (known even when the filters reject every hit)
            "(SELECT k.chunk_id, k.doc_id, k.score, k.every, NULL::bigint, NULL::boolean "
            f"FROM k JOIN documents d ON d.id = k.doc_id WHERE d.workspace_id = ? AND {where} "
            f"ORDER BY {_best_first(op, 'k')} LIMIT ?) "
            "UNION ALL SELECT NULL, NULL, NULL, NULL, (SELECT count(*) FROM s), "
            "(SELECT coalesce(bool_and(q.df <= q.take OR (? AND q.r > 1)), true) FROM q)",
            (
                words,
                ws,
                exact_below,
                *take,
                ws,
                ws,
                ws,
                inner,
                ws,
                *params,
                limit,
                op == "AND",
            ),
        )
        *found, (_, _, _, _, matched, complete) = rows
        hits_found = [Hit(int(r[0]), int(r[1]), float(r[2])) for r in found]
        every = sum(1 for r in found if r[3])
        return hits_found, every, int(matched), bool(complete)

    def _few_pass(self: PostgresStore, filters: Filters) -> bool:
        """Whether at most `DRIVE_LIMIT` documents (and `DRIVE_SHARE` of them) pass the
        filters: counted once a minute per filters, as this only chooses a plan."""
        cap = min(DRIVE_LIMIT, int(self._workspace_chunks() * DRIVE_SHARE))
        now = time.monotonic()
        with self._counts_lock:
            known = self._pass_counts.get(filters)
        if known is None or now - known[1] > _PASS_COUNT_AGE:
            known = (self.count_documents(filters, cap + 1), now)
            with self._counts_lock:
                if len(self._pass_counts) >= _PASS_COUNTS_KEPT:
                    self._pass_counts.clear()
                self._pass_counts[filters] = known
        return known[0] <= cap

    def _driven(
        self: PostgresStore,
        words: str,
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> tuple[list[Hit], int]:
        """The lexical leg over the few documents the filters pass: their chunks' postings
        of the query's lexemes, looked up by key, every match scored. A tag filter that
        1,300 of 100k documents pass: 10.6 ms a search, against 27.5 ms for reading the
        lexemes' best postings, finding too few of those documents among them and then
        reading every posting (the same hits, 60 of 60 LoCoMo questions)."""
        where, params = self._predicate(filters)
        ws = self.workspace_id
        rows = self._planned_rows(
            "WITH lx AS (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('nb_english', ?)) u), "
            "q AS MATERIALIZED (SELECT f.lexeme, "
            "greatest(ln((st.n - f.df + 0.5) / (f.df + 0.5)), 1e-6) AS w, st.avgdl "
            "FROM lx JOIN chunk_terms_df f ON f.workspace_id = ? AND f.lexeme = lx.lexeme "
            "AND f.df > 0 CROSS JOIN (SELECT greatest(s.chunks, 1)::float8 AS n, "
            "greatest(s.tokens::float8 / greatest(s.chunks, 1), 1) AS avgdl "
            "FROM chunk_stats s WHERE s.workspace_id = ?) st), "
            # the chunks of the documents passing, sorted: the posting lookups go in order
            "c AS MATERIALIZED (SELECT array_agg(c.id ORDER BY c.id) AS ids FROM documents d "
            f"JOIN chunks c ON c.doc_id = d.id WHERE d.workspace_id = ? AND {where}), "
            "p AS (SELECT q.lexeme, t.chunk_id, t.doc_id, t.tf_title, t.tf_body, t.ntok "
            "FROM q JOIN chunk_terms t ON t.workspace_id = ? AND t.lexeme = q.lexeme "
            "AND t.chunk_id = ANY((SELECT c.ids FROM c)::bigint[])), "
            f"{_scores(op, weights)} "
            "SELECT s.chunk_id, s.doc_id, s.score, s.every FROM s "
            f"ORDER BY {_best_first(op, 's')} LIMIT ?",
            (words, ws, ws, ws, *params, ws, limit),
        )
        found = [Hit(int(r[0]), int(r[1]), float(r[2])) for r in rows]
        return found, sum(1 for r in rows if r[3])

    def _any_document(self: PostgresStore, filters: Filters) -> bool:
        """Whether any document passes the filters (commits on a team store: none)."""
        where, params = self._predicate(filters)
        return bool(
            self._planned_rows(
                f"SELECT 1 FROM documents d WHERE d.workspace_id = ? AND {where} LIMIT 1",
                (self.workspace_id, *params),
            )
        )

    def _trigram(
        self: PostgresStore,
        terms: list[str],
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]:
        """Substrings (FTS5's trigram tokenizer: case-insensitive, three characters or more).

        Row-level security keeps the planner off a pg_trgm index (LIKE is not leakproof; so
        there is none, schema migration 5), so the chunks are scanned: once, for every chunk
        holding any of the terms, which
        gives each term's document frequency and the matches to filter and score."""
        grams = list(dict.fromkeys(t.lower() for t in terms if len(t) >= 3))
        if not grams:
            return []
        where, params = self._predicate(filters)
        ws = self.workspace_id
        text = "lower(c.title || ' ' || c.body)"
        anywhere = " OR ".join(f"{text} LIKE ?" for _ in grams)
        patterns = ["%" + _like(g) + "%" for g in grams]
        holds = "strpos(x.lt || ' ' || x.lb, {}) > 0"
        found = f" {op} ".join(holds.format("?") for _ in grams)
        occurrences = "(length({0}) - length(replace({0}, t.term, ''))) / length(t.term)"
        bm25 = _BM25.format(
            w="df.w", f="tf.f", length="(length(m.lt) + length(m.lb) + 1)", avgdl="st.avgdl"
        )
        rows = self._planned_rows(
            "WITH t AS (SELECT DISTINCT term FROM unnest(?::text[]) term), "
            "st AS (SELECT greatest(s.chunks, 1)::float8 AS n, "
            "greatest(s.chars::float8 / greatest(s.chunks, 1), 1) AS avgdl "
            "FROM chunk_stats s WHERE s.workspace_id = ?), "
            "x AS MATERIALIZED (SELECT c.id, c.doc_id, lower(c.title) AS lt, "
            f"lower(c.body) AS lb FROM chunks c WHERE c.workspace_id = ? AND ({anywhere})), "
            "df AS (SELECT t.term, greatest(ln((st.n - f.n + 0.5) / (f.n + 0.5)), 1e-6) AS w "
            "FROM t CROSS JOIN st CROSS JOIN LATERAL (SELECT count(*) AS n FROM x "
            f"WHERE {holds.format('t.term')}) f), "
            "m AS MATERIALIZED (SELECT x.id, x.doc_id, x.lt, x.lb FROM x "
            f"JOIN documents d ON d.id = x.doc_id WHERE ({found}) AND d.workspace_id = ? "
            f"AND {where}) "
            f"SELECT m.id, m.doc_id, {bm25} AS score FROM m CROSS JOIN st "
            f"CROSS JOIN LATERAL (SELECT t.term, ?::float8 * {occurrences.format('m.lt')} "
            f"+ ?::float8 * {occurrences.format('m.lb')} AS f FROM t) tf "
            "JOIN df ON df.term = tf.term WHERE tf.f > 0 "
            "GROUP BY m.id, m.doc_id ORDER BY score, m.id LIMIT ?",
            (grams, ws, ws, *patterns, *grams, ws, *params, weights[0], weights[1], limit),
        )
        return [Hit(int(r[0]), int(r[1]), float(r[2])) for r in rows]
