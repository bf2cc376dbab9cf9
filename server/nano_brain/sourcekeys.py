"""Source keys an indexer owns: only that indexer writes under them (DESIGN §7, Trust).

A document's `source_path` is its key: writing to a key that exists makes a new version of
that document. The keys below name what an indexer derived (a commit, a symbol, a session
summary, a decision said in a session); a front end that wrote to one would replace it (and
the indexer would not put it back), so `Brain.write` refuses them and the indexers write
through `Brain.write_derived`.

A key is compared after NFKC normalisation, without whitespace or invisible format
characters, case-folded: ` GIT:abc` or `Ｇｉｔ:abc` are refused like `git:abc`. `git://`
URLs are no commit key (a commit's is `git:` and a hexadecimal hash) and stay writable.
"""

from __future__ import annotations

import unicodedata

from .config import AGENTS
from .doctypes import DECISION_SOURCE_PREFIX
from .store.code import SYMBOL_SOURCE_PREFIX
from .store.commits import COMMIT_SOURCE_PREFIX

_HARVESTER = "the session harvester"
RESERVED: dict[str, str] = {
    COMMIT_SOURCE_PREFIX: "the git history index (`nano-brain index`)",
    SYMBOL_SOURCE_PREFIX: "the code index (`nano-brain index`)",
    DECISION_SOURCE_PREFIX: f"{_HARVESTER} (decisions and lessons it extracts)",
    **{f"{agent}:": f"{_HARVESTER} ({agent} sessions)" for agent in AGENTS},
}
"""Each reserved prefix (as written) and who owns it, for the error that names them."""
_ALLOWED = ("git://",)
"""Prefixes that look reserved and are not: a `git://` URL is no commit."""


def _normalised(key: str) -> str:
    text = unicodedata.normalize("NFKC", key)
    kept = (c for c in text if not c.isspace() and unicodedata.category(c) != "Cf")
    return "".join(kept).casefold()


def reserved_prefix(source_path: str | None) -> str | None:
    """The reserved prefix `source_path` is (or imitates) the key of, else None."""
    if not source_path:
        return None
    key = _normalised(source_path)
    if key.startswith(_ALLOWED):
        return None
    return next((prefix for prefix in RESERVED if key.startswith(prefix)), None)


def owner_of(prefix: str) -> str:
    return RESERVED[prefix]
