"""Errors of the code index, rooted in the project's one exception tree."""

from __future__ import annotations

from ..errors import InvalidInputError, NanoBrainError


class CodeIndexError(NanoBrainError):
    """Base of the code index's own errors, so front ends can catch the whole family."""


class GrammarMissingError(CodeIndexError):
    """A language's tree-sitter grammar wheel is not installed (or does not load).

    Grammars ship as PyPI wheels and are never downloaded at run time, so the fix is always a
    `pip install`; the message names the package.
    """


class UnsupportedLanguageError(CodeIndexError, InvalidInputError):
    """The caller asked for a language (or a file type) the code index has no rules for."""
