"""Per-language rules (queries and hooks) for the shared parsing driver."""

from __future__ import annotations

import functools

from ..errors import UnsupportedLanguageError
from .base import LanguageRules


@functools.cache
def rules_for(language: str) -> LanguageRules:
    """The (cached, query-compiling) rules of ``language``."""
    from .go import GoRules
    from .java import JavaRules
    from .javascript import JavaScriptRules, TsxRules, TypeScriptRules
    from .python import PythonRules
    from .ruby import RubyRules
    from .rust import RustRules

    table: dict[str, type[LanguageRules]] = {
        "python": PythonRules,
        "javascript": JavaScriptRules,
        "typescript": TypeScriptRules,
        "tsx": TsxRules,
        "go": GoRules,
        "rust": RustRules,
        "java": JavaRules,
        "ruby": RubyRules,
    }
    try:
        return table[language]()
    except KeyError:
        raise UnsupportedLanguageError(f"no code-index rules for language {language!r}") from None
