"""The one predicate: which documents a read may see, for every leg, retry and view.

`predicate(filters, dialect)` turns `Filters` into SQL over ``documents d``; both dialects
run it, spelled through a `Dialect`, so a filter means the same on SQLite and PostgreSQL.
Besides the caller's filters it always decides which versions and statuses are visible: the
current versions with a default status, or with ``as_of``, the versions in force then with
the status they had then (from the status history).

Placeholders are ``?`` in both dialects (the PostgreSQL store translates them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..filters import DECISION_COLLECTION, DECISION_TAGS, Filters
from .rows import DocumentRow

#: A document's text. The code index writes a symbol's text once, in the symbol document's one
#: chunk, and leaves the document's content empty (a cold index wrote a fifth fewer bytes):
#: such a document reads its chunk's text.
DOC_CONTENT = (
    "CASE WHEN d.content = '' AND d.kind = 'code' THEN coalesce((SELECT c.body FROM chunks c "
    "WHERE c.doc_id = d.id AND c.seq = 0), '') ELSE d.content END"
)
DOC_COLUMNS = (
    f"d.id, d.uid, d.kind, d.collection, d.title, {DOC_CONTENT}, d.content_hash, d.source_path, "
    "d.metadata, d.created_at, d.updated_at, d.version, d.status, d.status_changed_at, "
    "d.superseded_by, d.valid_from, d.valid_to, d.recorded_at, d.access_count, "
    "d.last_accessed_at, d.pinned, d.author, d.thread, d.thread_seq"
)
#: The version of a document in force at a moment and known by then. Takes the moment thrice.
IN_FORCE_AT = "d.recorded_at <= ? AND d.valid_from <= ? AND (d.valid_to IS NULL OR d.valid_to > ?)"
#: Orders of `list_documents`.
ORDERS = {
    "updated": "d.updated_at DESC, d.id DESC",
    "created": "d.created_at DESC, d.id DESC",
    "accessed": "d.access_count DESC, d.last_accessed_at DESC, d.id DESC",
}


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one SQL dialect spells the parts of the predicate that differ."""

    name: str
    state_at: str
    """A document's [status, superseded_by, status_changed_at] at a moment, as JSON text,
    from its status history: the last change made by then, else the state before its first
    later change, else (it never changed) the row's own. Takes the moment twice."""
    status_of: str
    """Format string: the status out of `state_at`."""
    current_status: str
    """The status column in the current-version predicate."""
    integer: str
    """Format string: a non-negative number truncated to an integer."""
    join_in_order: str
    """A join whose left side the planner must read first (SQLite's CROSS JOIN pins it)."""
    tags_of_row: str | None = None
    """A column of `d`'s tags, sorted, read with the row (a round trip fewer per read on a
    server); None: read them in a second query."""


def _state_at(array: str) -> str:
    return (
        "coalesce("
        f"(SELECT {array}(s.status, s.superseded_by, s.at) FROM status_changes s "
        "WHERE s.doc_uid = d.uid AND s.at <= ? ORDER BY s.at DESC, s.id DESC LIMIT 1), "
        f"(SELECT {array}(s.prev_status, s.prev_superseded_by, NULL) FROM status_changes s "
        "WHERE s.doc_uid = d.uid AND s.at > ? ORDER BY s.at, s.id LIMIT 1), "
        f"{array}(d.status, d.superseded_by, d.status_changed_at))"
    )


SQLITE = Dialect(
    name="sqlite",
    state_at=_state_at("json_array"),
    status_of="json_extract({}, '$[0]')",
    # unary + keeps SQLite's planner off the status index: nearly every row is visible
    current_status="+d.status",
    integer="CAST({} AS INTEGER)",
    join_in_order="CROSS JOIN",
)
POSTGRES = Dialect(
    name="postgresql",
    tags_of_row="(SELECT coalesce(array_agg(t.tag ORDER BY t.tag), '{}') "
    "FROM document_tags t WHERE t.doc_id = d.id)",
    state_at=f"({_state_at('jsonb_build_array')})::text",
    status_of="(({})::jsonb ->> 0)",
    current_status="d.status",
    integer="floor({})::bigint",
    join_in_order="JOIN",
)


def predicate(filters: Filters, dialect: Dialect) -> tuple[str, list[Any]]:
    """SQL over `documents d` for every filter, with its parameters."""
    clauses: list[str] = []
    params: list[Any] = []
    allowed = filters.allowed_statuses()
    marks = ",".join("?" * len(allowed))
    if filters.as_of is None:
        clauses.append(f"d.valid_to IS NULL AND {dialect.current_status} IN ({marks})")
        params.extend(allowed)
    else:
        status = dialect.status_of.format(dialect.state_at)
        clauses.append(f"{IN_FORCE_AT} AND {status} IN ({marks})")
        params.extend([filters.as_of] * 5)
        params.extend(allowed)
    if filters.collections:
        clauses.append(f"d.collection IN ({','.join('?' * len(filters.collections))})")
        params.extend(filters.collections)
    if filters.kinds:
        clauses.append(f"d.kind IN ({','.join('?' * len(filters.kinds))})")
        params.extend(filters.kinds)
    else:  # filters.DEFAULT_KINDS: commits only when asked for
        clauses.append("d.kind != 'commit'")
    for tag in filters.tags:
        # a list from the tag index, not a lookup per document: the planner can then start
        # from the tagged few (count on 100k documents: 83 ms -> 1.2 ms)
        clauses.append("d.id IN (SELECT t.doc_id FROM document_tags t WHERE t.tag = ?)")
        params.append(tag)
    for column, op, value in time_bounds(filters):
        clauses.append(f"d.{column} {op} ?")
        params.append(value)
    return " AND ".join(clauses), params


def time_bounds(filters: Filters) -> list[tuple[str, str, float]]:
    """(column, operator, value) of each time filter set."""
    bounds = (
        ("created_at", ">=", filters.created_after),
        ("created_at", "<", filters.created_before),
        ("updated_at", ">=", filters.updated_after),
        ("updated_at", "<", filters.updated_before),
    )
    return [(c, op, float(v)) for c, op, v in bounds if v is not None]


def decision_sql() -> tuple[str, list[str]]:
    """SQL over `documents d` for `filters.is_decision`, from the same constants."""
    marks = ",".join("?" * len(DECISION_TAGS))
    return (
        "(d.collection = ? OR EXISTS (SELECT 1 FROM document_tags t WHERE t.doc_id = d.id "
        f"AND t.tag IN ({marks})))",
        [DECISION_COLLECTION, *DECISION_TAGS],
    )


def document(r: Sequence[Any], *, historical: bool) -> DocumentRow:
    """A DocumentRow from a row of `DOC_COLUMNS`; `historical` when its status columns hold
    a dialect's `state_at` (the state as of a moment) instead."""
    status, changed_at, successor = r[12], r[13], r[14]
    if historical:
        status, successor, changed_at = json.loads(r[12])
    return DocumentRow(
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8]), r[9], r[10], r[11],
        status, changed_at, successor, r[15], r[16], r[17], r[18], r[19], bool(r[20]), r[21],
        thread=r[22], thread_seq=r[23],
    )  # fmt: skip
