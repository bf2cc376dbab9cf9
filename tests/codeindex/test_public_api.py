from __future__ import annotations

import nano_brain.codeindex as codeindex
from nano_brain.codeindex import CodeIndexError, GrammarMissingError, UnsupportedLanguageError
from nano_brain.errors import InvalidInputError, NanoBrainError


def test_public_names_are_exactly_the_curated_list() -> None:
    public = {n for n in vars(codeindex) if not n.startswith("_")}
    modules = {
        "errors",
        "indexer",
        "languages",
        "model",
        "parse",
        "resolve",
        "service",
        "stored",
        "walk",
    }
    assert public - modules - {"annotations"} == set(codeindex.__all__)
    for name in codeindex.__all__:
        assert getattr(codeindex, name) is not None


def test_errors_are_rooted_in_the_project_tree() -> None:
    assert issubclass(CodeIndexError, NanoBrainError)
    assert issubclass(GrammarMissingError, CodeIndexError)
    assert issubclass(UnsupportedLanguageError, InvalidInputError)
