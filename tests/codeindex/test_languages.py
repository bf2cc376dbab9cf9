from __future__ import annotations

import pytest

from nano_brain.codeindex import (
    GrammarMissingError,
    UnsupportedLanguageError,
    get_language,
    language_for_path,
    parse_file,
    supported_languages,
)
from nano_brain.codeindex import languages as languages_module
from nano_brain.errors import NanoBrainError


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("x.pyi", "python"),
        ("web/app.js", "javascript"),
        ("web/app.mjs", "javascript"),
        ("web/App.jsx", "javascript"),
        ("src/x.ts", "typescript"),
        ("src/X.tsx", "tsx"),
        ("main.go", "go"),
        ("lib.rs", "rust"),
        ("A.java", "java"),
        ("task.rb", "ruby"),
        ("Rakefile", "ruby"),
        ("README.md", None),
        ("notes.txt", None),
    ],
)
def test_language_for_path(path: str, language: str | None) -> None:
    assert language_for_path(path) == language


def test_every_grammar_loads_from_its_wheel_and_is_cached() -> None:
    for name in supported_languages():
        assert get_language(name) is get_language(name)


def test_ts_and_tsx_are_different_grammars() -> None:
    assert get_language("typescript") is not get_language("tsx")
    # JSX only parses cleanly with the TSX grammar
    source = b"const el = <div className='x'>{name}</div>;\n"
    assert not parse_file("a.tsx", source).has_errors
    assert parse_file("a.ts", source).has_errors


def test_missing_grammar_wheel_raises_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        languages_module._GRAMMARS, "ruby", ("tree_sitter_not_installed", "language", "pkg-x")
    )
    get_language.cache_clear()
    try:
        with pytest.raises(GrammarMissingError, match="pip install pkg-x") as info:
            get_language("ruby")
        assert isinstance(info.value, NanoBrainError)
        assert not languages_module.is_available("ruby")
    finally:
        get_language.cache_clear()


def test_unknown_language_and_non_source_files_are_rejected() -> None:
    with pytest.raises(UnsupportedLanguageError):
        get_language("cobol")
    with pytest.raises(UnsupportedLanguageError):
        parse_file("README.md", b"# hi\n")
