"""The relevance floor: whether a hybrid result list holds anything worth showing.

Rank fusion always puts something first, however unrelated the query: a score built from ranks
says which candidate is best, never whether any is good. The floor reads absolute evidence
instead, per embedding space (notes and sessions; code), over the query's candidates:

    evidence = best meaning match + WORDS_WEIGHT * best word coverage

- *meaning*: the highest cosine similarity of a candidate of the space (its vector leg's raw
  score), on the scale of the model that made the vectors;
- *words*: the share of the query's weight (the inverse document frequency of each of its
  words, as the lexical leg weighs them) that one of the best candidates holds.

A space whose evidence is below its floor shows nothing: an off-topic question comes back
empty. A space without a vector leg (no model, vectors not made yet) is judged by its words
alone, and so are the best candidates whose vectors are still pending (a note just written,
code just indexed): the vector leg cannot have found them, and lexical search works before the
vectors are done, so a word match among them clears the floor on its words. Floors are
measured per model (`CALIBRATED`); a model nobody measured gets no floor,
rather than one made for another model's scale. `level` is "list" for what a person or agent
asked for (`query`, `memory_query`, the page), "related" for what is offered unasked (the
hover's related memory, `why`'s related part), which should stay quiet more often.

Measured on LoCoMo dev (`benchmarks/eval_relevance.py`): each conversation's questions asked in
another conversation's workspace, against its own questions' recall; docs/search.md has the
tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from .querywords import INDEX_WORD, WORDS_ONLY_LIST, WORDS_ONLY_RELATED
from .store.spaces import Space

Level = Literal["list", "related", "off"]

WORDS_WEIGHT = 0.2
"""What a candidate holding every word of the query adds to the best meaning match."""
JUDGED = 10
"""The best this many candidates are read for their words (the list a person sees)."""


@dataclass(frozen=True, slots=True)
class Floors:
    """The evidence a space needs, for what was asked (`list`) and what is offered (`related`)."""

    list: float
    related: float


CALIBRATED: dict[str, Floors] = {
    # LoCoMo dev, the default note model: at 0.50, 88% of off-topic questions come back empty
    # and on-topic R@10 goes 0.706 -> 0.702; at 0.55, 93% are empty (hover, why)
    "local/paraphrase-minilm-l3-v2-int8": Floors(0.50, 0.55),
    # the default code model: every CoSQA dev query's best code match is above 0.50 (95% above
    # 0.56), 0.6% of off-topic questions (LoCoMo's, against CoSQA's 6,267 functions) reach 0.45
    "local/all-minilm-l6-v2-int8": Floors(0.45, 0.50),
}
WORDS_ONLY = Floors(WORDS_ONLY_LIST, WORDS_ONLY_RELATED)
"""Floors on word coverage alone, for a space whose vector leg did not run."""


@dataclass(slots=True)
class SpaceEvidence:
    """What one space's candidates showed, and whether it clears its floor."""

    meaning: float | None
    words: float
    floor: float | None
    model: str | None
    list_floor: float | None = None
    """The floor for a list (what orders notes and code even where no floor applies)."""
    unembedded: float | None = None
    """The best word coverage of the candidates with no vector yet (None: there are none),
    judged on its words alone (`WORDS_ONLY`)."""
    level: Level = "list"

    @property
    def score(self) -> float:
        base = self.meaning if self.meaning is not None else 0.0
        return base + WORDS_WEIGHT * self.words if self.meaning is not None else self.words

    @property
    def passed(self) -> bool:
        if self.floor is None or self.score >= self.floor:
            return True
        return self._words_clear(WORDS_ONLY.related if self.level == "related" else WORDS_ONLY.list)

    @property
    def relevant(self) -> bool:
        """Whether it clears the floor for a list, whatever floor this search applied."""
        if self.list_floor is None or self.score >= self.list_floor:
            return True
        return self._words_clear(WORDS_ONLY.list)

    def _words_clear(self, floor: float) -> bool:
        return self.unembedded is not None and self.unembedded >= floor

    def explain(self) -> dict[str, object]:
        return {
            "meaning": None if self.meaning is None else round(self.meaning, 4),
            "words": round(self.words, 4),
            "evidence": round(self.score, 4),
            "floor": self.floor,
            "model": self.model,
            **(
                {"unembedded_words": round(self.unembedded, 4)}
                if self.unembedded is not None
                else {}
            ),
            "passed": self.passed,
        }


@dataclass(slots=True)
class Verdict:
    """The floor's judgement of one query, per space."""

    level: Level
    spaces: dict[Space, SpaceEvidence] = field(default_factory=dict)
    ordering: str = ""
    """Which kind came first in a list over every kind, and why (see `order`)."""

    def keeps(self, kind: str) -> bool:
        evidence = self.spaces.get(space_of(kind))
        return evidence is None or evidence.passed

    def explain(self) -> dict[str, object]:
        spaces: dict[str, object] = {s: e.explain() for s, e in self.spaces.items()}
        return {
            "level": self.level,
            **spaces,
            **({"order": self.ordering} if self.ordering else {}),
        }

    def summary(self) -> str:
        """One line on why nothing was shown (empty when something cleared its floor)."""
        failed = [(s, e) for s, e in self.spaces.items() if not e.passed]
        if not failed or len(failed) < len(self.spaces):
            return ""
        parts = []
        for space, e in failed:
            name = "notes" if space == "text" else "code"
            meaning = "" if e.meaning is None else f"meaning {e.meaning:.2f}, "
            parts.append(f"{name}: {meaning}words {e.words:.0%} -> {e.score:.2f} < {e.floor}")
        return "nothing cleared the relevance floor (" + "; ".join(parts) + ")"


# What makes a query ask for code rather than for what was decided about it: words that name
# code, or an identifier's shape (snake_case, camelCase, a dotted path, a call, a file name).
_CODE_WORDS = frozenset(
    """code function functions method methods class classes implementation implemented
    implement implements defined definition def signature source callers caller callees
    symbol symbols""".split()
)
_IDENTIFIER = re.compile(
    r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Za-z]\.[A-Za-z]|\w\(|\.(?:py|js|ts|tsx|go|rs|java|rb)\b"
)


def asks_for_code(query: str) -> bool:
    """Whether the query names code (a code word or an identifier's shape)."""
    words = {w.lower() for w in INDEX_WORD.findall(query)}
    return bool(words & _CODE_WORDS) or _IDENTIFIER.search(query) is not None


def order(verdict: Verdict, query: str) -> tuple[Space, str]:
    """Which space's results come first in a list over every kind, and why.

    Notes and decisions first when they are relevant (they clear their floor for a list); code
    first when it is what is asked for (the query names code) or when no note is relevant.
    """
    text, code = verdict.spaces.get("text"), verdict.spaces.get("code")
    if code is None or not code.relevant:
        return "text", "notes first: no code is relevant"
    if text is None or not text.relevant:
        return "code", "code first: no note is relevant"
    if asks_for_code(query):
        return "code", "code first: the query names code"
    return "text", "notes first: they are relevant and the query names no code"


def space_of(kind: str) -> Space:
    return "code" if kind == "code" else "text"


def floors(model: str | None) -> Floors | None:
    """The floors measured for `model`'s vectors; None for a model nobody measured."""
    return WORDS_ONLY if model is None else CALIBRATED.get(model)


def judge(
    level: Level,
    meaning: dict[Space, float | None],
    words: dict[Space, float],
    models: dict[Space, str | None],
    unembedded: dict[Space, float] | None = None,
) -> Verdict:
    """The verdict from each space's best cosine (None: no vector leg ran for it), best word
    coverage, model (None with no vector leg) and best word coverage of the candidates whose
    vectors are pending."""
    pending = unembedded or {}
    verdict = Verdict(level)
    for space in meaning.keys() | words.keys():
        best = meaning.get(space)
        model = models.get(space) if best is not None else None
        measured = floors(model)
        floor = None if measured is None or level == "off" else getattr(measured, level)
        listed = None if measured is None else measured.list
        verdict.spaces[space] = SpaceEvidence(
            best, words.get(space, 0.0), floor, model, listed,
            pending.get(space) if best is not None else None, level,
        )  # fmt: skip
    return verdict
