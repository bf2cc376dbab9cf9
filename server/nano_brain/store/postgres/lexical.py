"""The lexical leg on PostgreSQL: full-text search ranked by BM25, as FTS5 ranks it.

The search pipeline writes its lexical queries as FTS5 expressions: quoted terms joined by
AND or by OR, against ``chunks_fts`` (words) or ``chunks_tri`` (trigrams: identifier
fragments, CJK). Here the same query is run over the chunks' generated ``tsv`` (GIN) or their
lower-cased text (pg_trgm GIN), and each match is scored with FTS5's bm25 formula (k1 1.2,
b 0.75, idf floored at 1e-6, title and body hits weighted, lengths in tokens), computed in SQL
from the tsvector's positions and the workspace's chunk statistics (`chunk_stats`). The
scores are negative, lower is better, as bm25() returns them, so fusion and pseudo-relevance
feedback treat both dialects alike. PostgreSQL's ts_rank/ts_rank_cd have no idf: a common
word would count as much as a rare one, and the results of the two dialects would differ.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...filters import Filters
from ..rows import Hit

if TYPE_CHECKING:
    from ._host import PgHost as PostgresStore

#: bm25 column weights: a title hit counts five times a body hit (as the SQLite store's).
BM25_WEIGHTS = (5.0, 1.0)
LEXICAL_TABLES = ("chunks_fts", "chunks_tri")
_TERM = re.compile(r'"((?:[^"]|"")*)"')
# FTS5's bm25 constants: score = idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / avglen))
_K1, _B = 1.2, 0.75
# (constants as float8: a bare 1.2 is numeric in PostgreSQL, and numeric arithmetic over
# every posting was most of the leg's time)
_BM25 = (
    f"-sum(df.w * {{f}} * {_K1 + 1}::float8 / ({{f}} + {_K1}::float8 * ({1 - _B}::float8 "
    f"+ {_B}::float8 * {{length}} / st.avgdl)))"
)
#: BM25's N and average chunk length (in tokens) of the workspace.
_STATS = (
    "st AS (SELECT greatest(s.chunks, 1)::float8 AS n, "
    "greatest(s.tokens::float8 / greatest(s.chunks, 1), 1) AS avgdl "
    "FROM chunk_stats s WHERE s.workspace_id = ?)"
)


def parse_match(match: str) -> tuple[list[str], str]:
    """The terms and the operator (AND or OR) of an FTS5 expression of quoted terms."""
    terms = [t.replace('""', '"') for t in _TERM.findall(match)]
    if not terms:
        terms = match.split()
    return [t for t in terms if t.strip()], "OR" if " OR " in match else "AND"


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class Lexical:
    """Mixed into PostgresStore."""

    def lexical(
        self: PostgresStore,
        table: str,
        match: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float] = BM25_WEIGHTS,
    ) -> list[Hit]:
        """Chunks matching the query, best BM25 first, filters applied (see the module)."""
        if table not in LEXICAL_TABLES:
            raise ValueError(table)
        terms, op = parse_match(match)
        if not terms:
            return []
        if table == "chunks_tri":
            return self._trigram(terms, op, filters, limit, weights)
        return self._words(terms, op, filters, limit, weights)

    def _words(
        self: PostgresStore,
        terms: list[str],
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]:
        """Words: the query's lexemes' posting lists in `chunk_terms` (each read once, which
        also gives each lexeme's document frequency), scored per chunk, then filtered."""
        where, params = self._predicate(filters)
        ws = self.workspace_id
        words = " ".join(" ".join(t.replace('"', " ").split()) for t in terms)
        every = "HAVING count(*) = (SELECT cardinality(a) FROM lx) " if op == "AND" else ""
        hits = (
            f"({float(weights[0])!r}::float8 * p.tf_title + {float(weights[1])!r}::float8 "
            "* p.tf_body)"
        )
        bm25 = _BM25.format(f=hits, length="p.ntok")
        rows = self._rows(
            "WITH lx AS (SELECT coalesce(array_agg(DISTINCT u.lexeme), '{}') AS a "
            "FROM unnest(to_tsvector('nb_english', ?)) u), "
            "p AS MATERIALIZED (SELECT t.lexeme, t.chunk_id, t.doc_id, t.tf_title, t.tf_body, "
            "t.ntok FROM chunk_terms t WHERE t.workspace_id = ? "
            "AND t.lexeme IN (SELECT unnest(a) FROM lx)), "
            f"{_STATS}, "
            "df AS (SELECT p.lexeme, greatest(ln((st.n - count(*) + 0.5) / (count(*) + 0.5)), "
            "1e-6) AS w FROM p CROSS JOIN st GROUP BY p.lexeme, st.n), "
            f"s AS (SELECT p.chunk_id, p.doc_id, {bm25} AS score FROM p "
            "JOIN df ON df.lexeme = p.lexeme CROSS JOIN st GROUP BY p.chunk_id, p.doc_id "
            f"{every}) "
            "SELECT s.chunk_id, s.doc_id, s.score FROM s JOIN documents d ON d.id = s.doc_id "
            f"WHERE d.workspace_id = ? AND {where} ORDER BY s.score, s.chunk_id LIMIT ?",
            (words, ws, ws, ws, *params, limit),
        )
        return [Hit(int(r[0]), int(r[1]), float(r[2])) for r in rows]

    def _trigram(
        self: PostgresStore,
        terms: list[str],
        op: str,
        filters: Filters,
        limit: int,
        weights: tuple[float, float],
    ) -> list[Hit]:
        """Substrings (FTS5's trigram tokenizer: case-insensitive, three characters or more)."""
        grams = list(dict.fromkeys(t.lower() for t in terms if len(t) >= 3))
        if not grams:
            return []
        where, params = self._predicate(filters)
        ws = self.workspace_id
        text = "lower(c.title || ' ' || c.body)"
        found = f" {op} ".join(f"{text} LIKE ?" for _ in grams)
        patterns = ["%" + _like(g) + "%" for g in grams]
        occurrences = "(length({0}) - length(replace({0}, t.term, ''))) / length(t.term)"
        bm25 = _BM25.format(f="tf.f", length="(length(m.lt) + length(m.lb) + 1)")
        rows = self._rows(
            "WITH t AS (SELECT DISTINCT term FROM unnest(?::text[]) term), "
            "st AS (SELECT greatest(s.chunks, 1)::float8 AS n, "
            "greatest(s.chars::float8 / greatest(s.chunks, 1), 1) AS avgdl "
            "FROM chunk_stats s WHERE s.workspace_id = ?), "
            "df AS (SELECT t.term, greatest(ln((st.n - f.n + 0.5) / (f.n + 0.5)), 1e-6) AS w "
            "FROM t CROSS JOIN st CROSS JOIN LATERAL (SELECT count(*) AS n FROM chunks c "
            f"WHERE c.workspace_id = ? AND {text} LIKE '%' || replace(replace(replace(t.term, "
            "'\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%') f), "
            "m AS MATERIALIZED (SELECT c.id, c.doc_id, lower(c.title) AS lt, lower(c.body) AS lb "
            "FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.workspace_id = ? "
            f"AND ({found}) AND d.workspace_id = ? AND {where}) "
            f"SELECT m.id, m.doc_id, {bm25} AS score FROM m CROSS JOIN st "
            f"CROSS JOIN LATERAL (SELECT t.term, ?::float8 * {occurrences.format('m.lt')} "
            f"+ ?::float8 * {occurrences.format('m.lb')} AS f FROM t) tf "
            "JOIN df ON df.term = tf.term WHERE tf.f > 0 "
            "GROUP BY m.id, m.doc_id ORDER BY score, m.id LIMIT ?",
            (grams, ws, ws, ws, *patterns, ws, *params, weights[0], weights[1], limit),
        )
        return [Hit(int(r[0]), int(r[1]), float(r[2])) for r in rows]
