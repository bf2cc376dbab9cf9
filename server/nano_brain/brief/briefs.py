"""The three briefs an agent gets in its loop: at session start, before an edit, on a prompt.

- **Session start**: the workspace's newest decisions, pinned notes, most used and newest
  notes and recent sessions (the wake-up's sections), within a budget.
- **Before an edit**: the notes and decisions anchored to the symbols whose lines the edit
  replaces (found in the file as it is now), each with its status and whether the symbol's
  code changed since the note was anchored.
- **On a prompt**: the memory most relevant to the prompt, and only what clears the relevance
  floor for memory offered unasked (`relevance`): an unrelated prompt adds nothing. Notes
  holding the prompt's rarer words first; when none does and a server runs, the nearest by
  meaning.

They read through `QuickReader` (the store file, read-only, no embedding runtime), so a hook
process answers in tens of milliseconds. A running sidecar answers the same briefs with its
open store and, for a prompt whose words match nothing, a search by meaning (`search` in
`Briefs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..doctypes import origin
from .edits import EditTarget, relative_path, touched_lines
from .render import BriefItem, render, snippet

if TYPE_CHECKING:
    from ..store import QuickDoc, QuickReader

_MAX_PROMPT_WORDS = 64
_MAX_MATCH_WORDS = 4
_COMMON_SHARE = 0.05
_COMMON_MIN = 20
"""A word in more than this share of the chunks (and more than `_COMMON_MIN` of them) is not
looked up (it still counts, by its
small weight, in the coverage the floor judges)."""
PER_SECTION = 5
"""Items each session-start section shows at most."""

PromptSearch = Callable[[str, int], list[BriefItem]]
"""A search by meaning for a prompt whose words match nothing, applying its own relevance
floor (a running server's, whose embedding model is loaded)."""


class Budgets(NamedTuple):
    """Characters each brief may hold (config `hooks`)."""

    session_start: int = 4000
    before_edit: int = 3000
    prompt: int = 2000


class Briefs:
    """Briefs for one workspace, read from its store (see the module docstring)."""

    def __init__(
        self,
        reader: QuickReader,
        root: Path,
        budgets: Budgets | None = None,
        *,
        search: PromptSearch | None = None,
    ) -> None:
        self.reader = reader
        self.root = root
        self.budgets = budgets or Budgets()
        self._search = search

    @classmethod
    @contextmanager
    def open(
        cls, db_path: Path, workspace_id: str, root: Path, budgets: Budgets | None = None
    ) -> Iterator[Briefs]:
        """Briefs read from the store file at `db_path` (closed on exit); `QuickReaderError`
        when it cannot be read on the quick path. A store of an older schema is migrated
        first (opened the full way, once: the next hooks read it quickly)."""
        from ..store import QuickReader, QuickReaderError

        try:
            reader = QuickReader(db_path, workspace_id)
        except QuickReaderError as exc:
            if not exc.older:
                raise
            from ..workspace import Workspace

            Workspace.open(root, db=db_path, create=False).close()
            reader = QuickReader(db_path, workspace_id)
        with reader:
            yield cls(reader, root, budgets)

    # -- session start -------------------------------------------------------------------------

    def session_start(self) -> str:
        """The wake-up: decisions, pinned and most used notes, newest notes, recent sessions."""
        read = self.reader.documents
        pick = PER_SECTION * 3
        seen: set[str] = set()
        sections = [
            (
                "Decisions",
                read(kinds=("note",), order="created", limit=PER_SECTION, decisions=True),
            ),
            (
                "Pinned",
                [d for d in read(kinds=("note",), order="updated", limit=pick * 4) if d.pinned],
            ),
            ("Most used", read(kinds=("note",), order="accessed", limit=pick)),
            ("Recent notes", read(kinds=("note",), order="updated", limit=pick)),
            ("Recent sessions", read(kinds=("session",), order="updated", limit=PER_SECTION)),
        ]
        shown = [(title, [_item(d) for d in _fresh(docs, seen)]) for title, docs in sections]
        return render(
            f"nano-brain: memory of this workspace ({self.root.name})",
            shown,
            self.budgets.session_start,
        )

    # -- before an edit ------------------------------------------------------------------------

    def before_edit(self, targets: Sequence[EditTarget]) -> tuple[str, list[BriefItem]]:
        """The brief, and its items (a front end may ask before a pinned decision's code is
        changed). Empty when no note is anchored to what the edit touches."""
        items: list[BriefItem] = []
        files: list[str] = []
        for target in targets:
            rel = relative_path(self.root, target.path)
            if rel is None:
                continue
            spans = touched_lines(self.root / rel, target.old_texts)
            if spans is None:
                continue
            symbols = {s.qualified_name: s for s in self.reader.symbols_touching(rel, spans)}
            found = self.reader.anchored(list(symbols))
            if found:
                files.append(rel)
            for anchor in found:
                now = symbols.get(anchor.qualified_name)
                stale = None
                if now is not None and anchor.symbol_sha256 and now.sha256 != anchor.symbol_sha256:
                    stale = "the code changed since this was anchored"
                items.append(_item(anchor.doc, symbol=anchor.qualified_name, stale=stale))
        items = _unique(items)
        heading = (
            f"nano-brain: notes and decisions anchored to the code this edit changes "
            f"({', '.join(dict.fromkeys(files))})"
        )
        return render(heading, [("", items)], self.budgets.before_edit), items

    # -- on a prompt ---------------------------------------------------------------------------

    def prompt(self, text: str, limit: int = 5) -> str:
        """The memory most relevant to the prompt, above the floor for unasked memory."""
        items = self._word_matches(text, limit)
        if not items and self._search is not None:
            items = self._search(text, limit)
        return render(
            "nano-brain: memory related to this prompt", [("", items)], self.budgets.prompt
        )

    def _word_matches(self, text: str, limit: int) -> list[BriefItem]:
        """Notes and sessions holding the prompt's words, each judged on its words alone
        (`relevance.WORDS_ONLY`'s floor for related memory: no vectors on this path)."""
        # imported here: the other briefs do without the stemmer and the floor
        from ..querywords import WORDS_ONLY_RELATED, coverage, idf_weights, judged_terms
        from ..stems import stem

        words = list(dict.fromkeys(judged_terms(text[:4000])))[:_MAX_PROMPT_WORDS]
        if not words:
            return []
        stems = {w: stem(w) for w in words}
        by_stem, total = self.reader.term_counts(list(stems.values()))
        weights = idf_weights(words, {w: by_stem.get(s, 0) for w, s in stems.items()}, total)
        # looked up by its rarer words only: a word in most chunks ("the", "function") would
        # have FTS5 rank nearly every chunk, and weighs next to nothing in the coverage
        common = max(_COMMON_SHARE * total, _COMMON_MIN)
        rare = sorted(
            (s for s in set(stems.values()) if 0 < by_stem.get(s, 0) <= common),
            key=lambda s: (by_stem.get(s, 0), s),
        )[:_MAX_MATCH_WORDS]
        docs = self.reader.word_matches(rare, ("note", "session"), limit * 4)
        kept = [d for d in docs if coverage(weights, f"{d.title}\n{d.text}") >= WORDS_ONLY_RELATED]
        return [_item(d) for d in kept[:limit]]


def _item(doc: QuickDoc, *, symbol: str | None = None, stale: str | None = None) -> BriefItem:
    tags = ("decision",) if doc.decision else ()
    return BriefItem(
        id=doc.uid,
        title=doc.title,
        origin=origin(doc.kind, doc.collection, tags, doc.author, doc.source_path),
        status=doc.status,
        snippet=snippet(doc.text, doc.title),
        updated_at=doc.updated_at,
        pinned=doc.pinned,
        decision=doc.decision,
        symbol=symbol,
        stale=stale,
    )


def _fresh(docs: list[QuickDoc], seen: set[str]) -> list[QuickDoc]:
    out = [d for d in docs if d.uid not in seen][:PER_SECTION]
    seen.update(d.uid for d in out)
    return out


def _unique(items: list[BriefItem]) -> list[BriefItem]:
    """One line per note (a note anchored to two touched symbols shows once, at the first)."""
    first = {i.id: i for i in reversed(items)}
    return [i for i in items if first[i.id] is i]
