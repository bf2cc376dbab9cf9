"""Auto-categorisation on write (phase-1 spec): deterministic keyword rules, `auto:` tags."""

from __future__ import annotations

import re

AUTO_PREFIX = "auto:"

# Keywords per category from the phase-1 spec. A keyword also matches its common inflections
# ("fix" finds "fixed"), but not longer words that merely start with it ("like" vs "likely").
_RULES: dict[str, tuple[str, ...]] = {
    "architecture-decision": (
        "decide",
        "decision",
        "chose",
        "choose",
        "chosen",
        "architecture",
        "design",
        "tradeoff",
        "trade-off",
        "approach",
    ),
    "debugging-insight": ("error", "fix", "bug", "stack trace", "debug", "workaround"),
    "tool-config": ("config", "configuration", "setup", "set up", "install", "environment", ".env"),
    "pattern": ("pattern", "convention", "always", "never", "rule"),
    "preference": ("prefer", "like", "dislike", "favorite", "favourite", "default"),
    "context": ("context", "background", "note", "remember"),
    "workflow": ("workflow", "process", "step", "pipeline", "deploy"),
}
_SUFFIXES = ("", "s", "es", "ed", "d", "ing", "ion", "ions", "er", "ers")
_WORD = re.compile(r"\.?[a-z][a-z-]*")


def _forms(word: str) -> set[str]:
    stem = word[:-1] if word.endswith("e") else word
    return {word + s for s in _SUFFIXES} | {stem + s for s in ("ing", "ion", "ions")}


# word form -> categories; phrases (with a space) are matched on normalised text instead
_SINGLE: dict[str, set[str]] = {}
_PHRASES: dict[str, list[re.Pattern[str]]] = {}
for _category, _words in _RULES.items():
    for _w in _words:
        if " " in _w:
            _PHRASES.setdefault(_category, []).append(
                re.compile(r"\b" + r"\s+".join(map(re.escape, _w.split())) + r"\w*\b")
            )
        else:
            for _form in _forms(_w):
                _SINGLE.setdefault(_form, set()).add(_category)


# Kinds that get no `auto:` tags. A session summary holds a whole conversation, which hits
# every category's keywords: seven tags that say nothing, on every result line, and
# `auto:architecture-decision` made every session count as a decision (kept from eviction,
# shown as one in the editor). Sessions are told apart by their own tags instead:
# `agent:<name>` and `ticket:<ID>`.
UNCATEGORIZED_KINDS = frozenset({"session"})


def categorize(content: str, kind: str = "note") -> list[str]:
    """The `auto:` tags whose keywords occur in `content`, in a fixed category order."""
    if kind in UNCATEGORIZED_KINDS:
        return []
    lower = content.lower()
    found: set[str] = set()
    for word in set(_WORD.findall(lower)):
        found |= _SINGLE.get(word, set())
        if "-" in word:  # "trade-off" is a keyword; "well-designed" contains one
            for part in word.split("-"):
                found |= _SINGLE.get(part, set())
    for category, patterns in _PHRASES.items():
        if category not in found and any(p.search(lower) for p in patterns):
            found.add(category)
    return [f"{AUTO_PREFIX}{c}" for c in _RULES if c in found]
