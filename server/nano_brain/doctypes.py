"""What a document is: its kinds and statuses, and what makes it a decision.

Plain constants, no pydantic: the agent hooks' quick reader (`store.sqlite.quick`) reads them
in a process that must answer within tens of milliseconds. `filters` re-exports them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Kind = Literal["note", "session", "code", "commit"]
KINDS: tuple[Kind, ...] = ("note", "session", "code", "commit")
DEFAULT_KINDS: tuple[Kind, ...] = ("note", "session", "code")
"""What a read returns when it names no kind: commits are many (thousands for a repository's
history) and are read when asked for, or through the history leg of a search."""
Status = Literal["active", "superseded", "retracted", "unreviewed"]
STATUSES: tuple[Status, ...] = ("active", "superseded", "retracted", "unreviewed")
DEFAULT_STATUSES: tuple[Status, ...] = ("active", "unreviewed")
"""What a read returns when it names no status: never superseded or retracted documents."""
DECISION_COLLECTION = "decisions"
DECISION_SOURCE_PREFIX = "decision://"
"""Decisions and lessons extracted from a session: ``decision://<session key>#<hash>``."""
DECISION_TAGS: tuple[str, ...] = ("decision", "auto:architecture-decision")
"""A person's tag, and the category the automatic tagger gives architecture decisions."""


def is_decision(collection: str, tags: Iterable[str]) -> bool:
    """The one rule for what a decision is (the store's SQL for it uses the same constants):
    a document in the decisions collection or tagged as one."""
    return collection == DECISION_COLLECTION or any(t in DECISION_TAGS for t in tags)


def origin(kind: str, collection: str, tags: Iterable[str], author: str, source_path: str) -> str:
    """Where a document came from, in the words `models.ORIGIN_HELP` lists: a decision by a
    person, a note by an agent, a commit message, a harvested session..."""
    if kind == "commit":
        return "commit message"
    if kind == "code":
        return "code"
    if kind == "session":
        return "harvested session"
    if source_path.startswith(DECISION_SOURCE_PREFIX) or author == "harvest":
        return "extracted from a session"
    what = "decision" if is_decision(collection, tags) else "note"
    return f"{what} by {'an agent' if author == 'mcp' else 'a person'}"
