"""Decisions and lessons stated in a session, each turned into a note of its own.

What counts (the person's or the agent's words; injected context, tool output, slash
commands and sub-agents' work do not):

1. **a labelled line**: ``Decision: …``, ``Decided: …``, ``Lesson: …``, ``Lesson learned: …``,
   ``Learned: …`` (any case, bold or not, as a list item or not); ``ADR-12: …`` as a heading;
2. **a sentence saying so**: "we decided / I decided / we've decided", "we chose / opted for /
   went with / settled on / agreed to"; a question ("should we go with X?") is none;
3. **a section under a decisions heading**: a Markdown heading or a bold line alone that is
   exactly a name for decisions or lessons ("Decisions", "Key Decisions Made", "Technical
   Decisions", "Design decisions", "Lessons learned", "Key learnings"; not "Decision tree" or
   "Decision matrix"): each item of the list under it is one; under an ADR's ``## Decision``
   heading, the paragraph is one.

Fenced code and tables are skipped. Text is redacted before anything is cut or compared, and
each item is identified by its normalised text, so the same decision said twice (a compaction
summary repeating it) is one note, and a session that grew brings only its new ones.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..doctypes import DECISION_SOURCE_PREFIX
from ..errors import NanoBrainError, TombstonedError
from ..redact import redact_text
from ..text import clip, marker_safe_end
from ..timeutil import iso
from .model import Message, Session

if TYPE_CHECKING:
    from ..brain import Brain

log = logging.getLogger("nano_brain.harvest")

Kind = Literal["decision", "lesson"]
#: Source paths of the notes: ``decision://<session source>#<hash of the text>``.
SOURCE_PREFIX = DECISION_SOURCE_PREFIX
MAX_TEXT = 600
MAX_PER_SESSION = 50
_MAX_ANCHORS = 5

_LABEL = re.compile(
    r"^\s*(?:[-*+>]\s+|\d{1,3}[.)]\s+)?(?:\*\*|__)?\s*"
    r"(?P<label>decisions?|decided|lessons?(?:\s+learned)?|learned|learning)"
    r"\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(?P<text>\S.*)$",
    re.IGNORECASE,
)
_ADR = re.compile(r"^\s*#{1,6}\s*ADR[-\s]?\d+\s*[:.\-–—]\s*(?P<text>\S.*)$", re.IGNORECASE)
_SENTENCE = re.compile(
    r"\b(?:we|i)(?:\s+have|\s+had|'ve|'d)?\s+(?:(?:finally|then|also|ultimately)\s+)?"
    r"(?:decided|chose|chosen|opted|settled\s+on|went\s+with|agreed\s+(?:to|on|that))\b",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+(?P<h>.+?)|(?:\*\*|__)(?P<b>[^*_]+?)(?:\*\*|__)\s*:?)\s*$")
_SECTION = re.compile(
    r"^(?:(?:key|main|major|technical|design|architectural|architecture|important|final|"
    r"notable|other)\s+)*"
    r"(?P<what>decisions?|lessons?(?:\s+learned)?|learnings|takeaways|decision\s+log|"
    r"decisions?\s+(?:made|taken|so\s+far|log|record))$",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,3}[.)])\s+(?P<text>\S.*)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(])")
_CODE = re.compile(r"`([^`\n]{2,120})`")
_CALLISH = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\(\)")
_IDENT = re.compile(r"^(?:[\w./-]+::)?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True, slots=True)
class Extracted:
    """One decision or lesson: its text (redacted, one line) and where it was said."""

    kind: Kind
    text: str
    role: str
    message: int
    """index of the message in the session"""
    time: float | None = None

    @property
    def key(self) -> str:
        """The identity of the item within its session: a hash of its normalised text."""
        return hashlib.sha256(normalise(self.text).encode()).hexdigest()[:16]


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _kind(word: str) -> Kind:
    return "decision" if word.lower().startswith("decis") or word.lower() == "decided" else "lesson"


def _clean(text: str) -> str:
    text = text.replace("**", "").replace("__", "")
    text = " ".join(text.split()).strip(" -–—:")
    return clip(text, MAX_TEXT)


def _speaks(message: Message) -> bool:
    if message.sidechain or not message.text.strip():
        return False
    if message.role in ("user", "assistant"):
        return not message.kind
    return message.role == "system" and message.kind == "summary"


def extract(session: Session) -> list[Extracted]:
    """The session's decisions and lessons, in the order they were said, each once."""
    found: list[Extracted] = []
    seen: set[str] = set()
    for index, message in enumerate(session.messages):
        if not _speaks(message):
            continue
        for kind, text in extract_text(message.text):
            item = Extracted(kind, text, message.role, index, message.time)
            if item.key in seen or not normalise(text):
                continue
            seen.add(item.key)
            found.append(item)
            if len(found) >= MAX_PER_SESSION:
                return found
    return found


def extract_text(text: str) -> list[tuple[Kind, str]]:
    """The decisions and lessons in one message's text (rules in the module docstring)."""
    reader = _Reader()
    fenced = False
    for line in redact_text(text).splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or stripped.startswith("|"):
            continue
        heading = _HEADING.match(line)
        if heading is not None and not _LABEL.match(line):
            reader.heading(line, heading)
            continue
        if reader.section is not None and reader.in_section(line, stripped):
            continue
        reader.loose(line, stripped)
    reader.flush_item()
    reader.flush_paragraph()
    return [(kind, text) for kind, text in reader.out if text]


class _Reader:
    """`extract_text`'s place in a message: the section it is in and what it is collecting."""

    def __init__(self) -> None:
        self.out: list[tuple[Kind, str]] = []
        self.section: Kind | None = None
        self.adr = False  # under an ADR's "Decision" heading: its paragraph is the decision
        self.paragraph: list[str] = []
        self.item: list[str] = []
        self.item_indent = -1

    def flush_item(self) -> None:
        if self.item and self.section is not None:
            self.out.append((self.section, _clean(" ".join(self.item))))
        self.item = []

    def flush_paragraph(self) -> None:
        if self.paragraph:
            self.out.append(("decision", _clean(" ".join(self.paragraph))))
        self.paragraph = []

    def heading(self, line: str, heading: re.Match[str]) -> None:
        """A heading ends what was collected; it may say a decision itself, and it may
        start a section of decisions or lessons."""
        self.flush_item()
        self.flush_paragraph()
        title = (heading.group("h") or heading.group("b") or "").strip()
        adr_title = _ADR.match(line)
        labelled_title = _LABEL.match(title)
        if adr_title is not None:
            self.out.append(("decision", _clean(adr_title.group("text"))))
        elif labelled_title is not None:  # "## Decision: use Postgres"
            kind = _kind(labelled_title.group("label"))
            self.out.append((kind, _clean(labelled_title.group("text"))))
        name = re.sub(r"^[^\w]+|[^\w]+$", "", title)
        match = _SECTION.match(name)
        if match is not None:
            self.section, self.adr = _kind(match.group("what")), False
            if name.lower() == "decision" and heading.group("h"):
                self.adr = True  # ADR layout: "## Decision" then prose
        else:
            self.section, self.adr = None, False
        self.item_indent = -1

    def in_section(self, line: str, stripped: str) -> bool:
        """A line under a section heading: True when it belonged to the section; prose
        after its list ends the section, and is then read as any other line."""
        bullet = _ITEM.match(line)
        if bullet is not None:
            indent = len(bullet.group("indent").expandtabs())
            if self.item_indent < 0 or indent <= self.item_indent:
                self.flush_item()
                self.item_indent = indent
                self.item = [bullet.group("text")]
            else:
                self.item.append(bullet.group("text"))
            return True
        if not stripped:
            if self.adr:
                self.flush_paragraph()
            return True
        if self.item and line[:1].isspace():  # an item's continuation line
            self.item.append(stripped)
            return True
        if self.adr:
            self.paragraph.append(stripped)
            return True
        self.flush_item()
        self.section = None
        return False

    def loose(self, line: str, stripped: str) -> None:
        """A line outside any section: a labelled line, or sentences that say a decision."""
        labelled = _LABEL.match(line)
        if labelled is not None:
            self.out.append((_kind(labelled.group("label")), _clean(labelled.group("text"))))
            return
        if _SENTENCE.search(line):
            for sentence in _SENTENCE_END.split(stripped.lstrip("-*+> ").strip()):
                if _SENTENCE.search(sentence) and not sentence.rstrip().endswith("?"):
                    self.out.append(("decision", _clean(sentence)))


def symbol_names(text: str) -> list[str]:
    """Code names a decision mentions: in backticks, or written as a call (``f()``)."""
    names: list[str] = []
    for raw in [*_CODE.findall(text), *_CALLISH.findall(text)]:
        name = raw.strip().removesuffix("()")
        if _IDENT.match(name) and name not in names:
            names.append(name)
    return names[:20]


# -- writing them ------------------------------------------------------------------------------


@dataclass(slots=True)
class DecisionReport:
    added: int = 0
    unchanged: int = 0
    forgotten: int = 0
    anchored: int = 0
    failed: int = 0


def harvest_decisions(
    brain: Brain, session: Session, source: str, session_doc: Any
) -> DecisionReport:
    """Write the session's decisions and lessons as notes (see the module docstring).

    Each note's source path names the session source and the item, so writing it again is
    a no-op and a note the user forgot (tombstoned) is never written again. Notes are tagged
    ``decision`` or ``lesson`` and written as the harvest (``unreviewed`` under review mode),
    linked to the session summary (``session_doc``) and anchored to the symbols they name
    when the code index knows exactly one by that name.
    """
    report = DecisionReport()
    items = extract(session)
    if not items:
        return report
    code = _code_index(brain)
    for item in items:
        label = "Decision" if item.kind == "decision" else "Lesson"
        title = f"{label}: {item.text}"
        when = iso(item.time) if item.time else None
        said = f"said by the {'person' if item.role == 'user' else 'agent'}"
        content = (
            f"{label}: {item.text}\n\n"
            f"From the {session.agent} session “{session_doc.title}” (#{session_doc.id}), "
            f"{said}{f' at {when}' if when else ''}."
        )
        try:
            result = brain.write_derived(
                content,
                title=title[: marker_safe_end(title, 200)],
                tags=[item.kind, "harvested", f"agent:{session.agent}"],
                kind="note",
                metadata={
                    "decision": {
                        "kind": item.kind,
                        "session": session_doc.id,
                        "session_source": source,
                        "session_id": session.session_id,
                        "role": item.role,
                        "message": item.message,
                    }
                },
                source_path=f"{SOURCE_PREFIX}{source}#{item.key}",
                created_at=item.time,
            )
        except TombstonedError:
            report.forgotten += 1
            continue
        except NanoBrainError as exc:
            report.failed += 1
            log.warning("cannot store a %s of %s: %s", item.kind, source, exc)
            continue
        if result.created:
            report.added += 1
            if code is not None:
                report.anchored += _anchor(code, result.document.id, item.text)
        else:
            report.unchanged += 1
    return report


def _code_index(brain: Brain) -> Any:
    from ..codeindex import CodeIndex

    try:
        code = CodeIndex(brain)
        return code if code.counts()["symbols"] else None
    except NanoBrainError:
        return None


def _anchor(code: Any, note: str, text: str) -> int:
    anchored = 0
    for name in symbol_names(text):
        try:
            code.anchor(note, code.resolve_symbol(name).qualified_name)
        except NanoBrainError:
            continue  # unknown or ambiguous: no anchor rather than a wrong one
        anchored += 1
        if anchored >= _MAX_ANCHORS:
            break
    return anchored
