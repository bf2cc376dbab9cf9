"""What every change to a workspace's memory starts and ends with: the document a reference
names (`#id`, id or source path), and an entry in the audit log under an actor."""

from __future__ import annotations

import enum
import re
import time
from typing import Any

from .errors import InvalidInputError, NotFoundError
from .redact import redact_text
from .store.interface import MemoryStore
from .store.rows import DocumentRow


class _Unset(enum.Enum):
    """A default that means "not given" where None is a value."""

    UNSET = enum.auto()


_UNSET = _Unset.UNSET


class Ledger:
    """One Brain's store, as its writes and status changes find and audit documents."""

    def __init__(self, store: MemoryStore, actor: str) -> None:
        self.store = store
        self.actor = actor
        """Who changes are attributed to in the audit log: cli, mcp, lsp or harvest."""

    def resolve(self, ref: str) -> DocumentRow:
        """The current version of the document `ref` names; NotFoundError if none."""
        ref = (ref or "").strip()
        if not ref:
            raise InvalidInputError("a document id (#id) or source path is required")
        uid = ref[1:] if ref.startswith("#") else ref
        row = self.store.find_current(uid) if re.fullmatch(r"[0-9a-f]{12}", uid) else None
        if row is None and not ref.startswith("#"):
            row = self.store.find_by_source(ref)
            if row is None and (stored := redact_text(ref)) != ref:
                row = self.store.find_by_source(stored)  # kept redacted, found by the original
        return self.require(row, ref)

    @staticmethod
    def require(row: DocumentRow | None, ref: str) -> DocumentRow:
        """`row`, or NotFoundError naming `ref` when there is none."""
        if row is None:
            raise NotFoundError(f"no document {ref} in this workspace")
        return row

    def audit(
        self,
        action: str,
        row: DocumentRow | None = None,
        *,
        at: float | None = None,
        actor: str | None = None,
        prev_status: str | None | _Unset = _UNSET,
        new_status: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        """Append to the audit log as this Brain's actor; `prev_status` defaults to the row's."""
        self.store.audit(
            at=time.time() if at is None else at,
            actor=actor or self.actor,
            action=action,
            uid=row.uid if row else None,
            title=row.title if row else None,
            prev_status=(row.status if row else None) if prev_status is _UNSET else prev_status,
            new_status=new_status,
            details=details,
        )
