"""Notes anchored to code from any front end: write-and-anchor, anchor, unanchor.

An anchor attaches a note to a symbol (its qualified name and the hash of its text then), so
the editor shows the note on hover and CodeLens and flags it when the code changes. The
editor anchors what it saves to the symbol under the selection; agents (MCP ``memory_write``
with ``anchors``, ``memory_anchor``) and the CLI (``write --anchor``, ``anchor``) name the
symbols, in any form ``symbols`` resolves. Every symbol is resolved before anything is
written: an unknown or ambiguous one (the error lists the candidates) writes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from .codeindex import AnchorInfo, CodeIndex
from .errors import InvalidInputError, NotFoundError
from .models import WriteResult

if TYPE_CHECKING:
    from .brain import Brain

#: Symbols one write may anchor to.
MAX_ANCHORS = 20


class Anchored(BaseModel):
    """One anchor as the front ends report it."""

    note_id: str
    symbol: str = Field(description="the symbol's qualified name (path::Qualified.name)")
    path: str
    state: str = Field(description="ok, changed (the code changed since) or missing")


class AnchoredWriteResult(WriteResult):
    anchored_to: list[Anchored] = Field(
        default_factory=list, description="the symbols the note is anchored to"
    )


def anchored(info: AnchorInfo) -> Anchored:
    return Anchored(note_id=info.note_id, symbol=info.qualified_name, path=info.path,
                    state=info.state)  # fmt: skip


def write_anchored(
    brain: Brain, content: str, *, anchors: Sequence[str] = (), **write: Any
) -> AnchoredWriteResult:
    """``Brain.write`` and anchor the note to each symbol, in one transaction."""
    refs = list(dict.fromkeys(a.strip() for a in anchors if isinstance(a, str)))
    if len(refs) > MAX_ANCHORS:
        raise InvalidInputError(f"at most {MAX_ANCHORS} anchors per note")
    index = CodeIndex(brain)
    symbols = [index.resolve_symbol(ref).qualified_name for ref in refs]
    with brain.store.transaction():
        result = brain.write(content, **write)
        infos = [index.anchor(result.document.id, name) for name in symbols]
    return AnchoredWriteResult(**result.model_dump(), anchored_to=[anchored(i) for i in infos])


def anchor(brain: Brain, note: str, symbol: str) -> Anchored:
    """Anchor an existing note to a symbol (again: the symbol's current text is accepted)."""
    return anchored(CodeIndex(brain).anchor(note, symbol))


def unanchor(brain: Brain, note: str, symbol: str) -> bool:
    """Remove a note's anchor from a symbol (named as `symbols` resolves it, or by the
    qualified name it was anchored under, which may no longer exist); False if it had none."""
    index = CodeIndex(brain)
    doc = brain.get(note)
    names = {a.qualified_name for a in index.anchors(note=doc.id)}
    target = symbol.strip()
    if target not in names:
        try:
            target = index.resolve_symbol(symbol).qualified_name
        except NotFoundError:  # a vanished symbol is still unanchored by its old name
            matches = [n for n in names if n.endswith("::" + target) or n.endswith("." + target)]
            if len(matches) != 1:
                raise
            target = matches[0]
    with brain.store.transaction():
        removed = index.unanchor(doc.id, target)
        if removed:
            brain.store.audit(at=time.time(), actor=brain.actor, action="unanchor", uid=doc.id,
                              title=doc.title, details={"symbol": target})  # fmt: skip
    return removed
