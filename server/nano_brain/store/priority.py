"""The order in which pending chunks get their vectors: a chunk's `priority`, lowest first.

What a person needs first comes first: the notes and sessions they write, then the code of
the files open in their editor, then of the files changed lately, then the rest of the code,
test code after it, and the repository's commit messages last (thousands of them, which
only the history's semantic leg reads). A chunk is written with its tier (notes and
sessions by the column's default); `prioritize_pending` moves the pending chunks of named
files up. Within a tier, chunks go in the order they were written.

Not every chunk is worth a vector: a chunk's ``embedded`` is `PENDING` (waiting), `EMBEDDED`
or `LEXICAL_ONLY` (found by words and by symbol, never embedded). Test code is lexical only
unless ``embedding.test_code`` (two thirds of a large repository's symbols, a search for
what code does rarely wants the test that calls it, and a test is found by the name of what
it tests); so is a commit's record (hash, author, date, files changed), whose message alone
gets a vector.
"""

from __future__ import annotations

import re
from typing import Final

NOTE: Final = 0
"""Notes and sessions (the column's default)."""
OPEN: Final = 1
"""Code of the files open in an editor."""
RECENT: Final = 2
"""Code of files changed lately (the newest commits, the working tree, an edit re-indexed)."""
CODE: Final = 3
"""Other code, and the workspace's prose files."""
TEST: Final = 4
"""Test code."""
COMMIT: Final = 5
"""Commit messages."""

PENDING: Final = 0
"""``chunks.embedded``: no vector yet."""
EMBEDDED: Final = 1
"""``chunks.embedded``: its vector is stored."""
LEXICAL_ONLY: Final = 2
"""``chunks.embedded``: never embedded (see above): search finds it by its words."""
#: The store's meta key recording whether test code chunks may get vectors ("1") or not.
TEST_VECTORS_KEY = "test_code_vectors"

# a test folder anywhere in the path, or a test file by its name's usual shapes
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec|specs)/"
    r"|(?:^|/)test_[^/]*\.py$"
    r"|_test\.[^/]+$"
    r"|[._]spec\.[^/]+$"
    r"|\.test\.[^/]+$"
)


def is_test_path(path: str) -> bool:
    """Whether a workspace-relative POSIX path is test code by the usual layouts."""
    return _TEST_PATH.search(path) is not None


def code_priority(path: str) -> int:
    """The tier of a code file's chunks when it is indexed."""
    return TEST if is_test_path(path) else CODE
