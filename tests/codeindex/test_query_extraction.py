"""Extraction through the per-language query files equals the reference extraction (which
walks the tree from each definition) on real code, and every query file compiles."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from nano_brain.codeindex._langs import rules_for
from nano_brain.codeindex.languages import supported_languages
from nano_brain.codeindex.parse import parse_file, parse_file_reference

STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: packages and modules of the interpreter's own library, read in place (never copied)
SAMPLE = ["email", "json", "http", "asyncio", "importlib", "logging", "xml/dom", "concurrent"]


def _sample() -> list[Path]:
    files: list[Path] = []
    for name in SAMPLE:
        files.extend(sorted((STDLIB / name).rglob("*.py")))
    files.extend(sorted(STDLIB.glob("*.py"))[::4])
    return [f for f in files if "test" not in f.parts]


@pytest.mark.parametrize("language", supported_languages())
def test_every_language_has_query_files_that_compile(language: str) -> None:
    rules = rules_for(language)
    assert rules.query_files and all(name.endswith(".scm") for name in rules.query_files)
    assert rules.query.pattern_count > 0
    source = rules.query_source
    assert "@def." in source and "@call" in source and "@import" in source


def test_query_extraction_equals_the_reference_on_the_standard_library() -> None:
    files = _sample()
    assert len(files) > 150
    symbols = with_docs = 0
    for path in files:
        rel = str(path.relative_to(STDLIB))
        data = path.read_bytes()
        new, old = parse_file(rel, data, "python"), parse_file_reference(rel, data, "python")
        assert new == old, rel
        symbols += len(new.symbols)
        with_docs += sum(1 for s in new.symbols if s.docstring)
    # the sample is real code: many symbols, many of them documented
    assert symbols > 5000 and with_docs > 1000


@pytest.mark.parametrize(
    "source",
    [
        b"def f(:\n    pass\n",
        b"def f():",
        b"class A(:\n  def g(self): pass\n",
        b"def f():\n    '''doc'''\n    return (\n",
        b"@dec\ndef f():",
        b"class B(A",
        b"def outer():\n    def inner(:\n        pass\n    return inner()\n",
        b'def f():\n    # a comment first\n    """not the docstring? it is"""\n',
        b"def f():\n    'a' 'b'\n",
        b"class C:\n    '''doc''' ; x = 1\n",
        "def ü():\n    '''Ünïcode doc'''\n".encode(),
        b"\xff\xfe garbage \x00 def f(): pass\n",
    ],
)
def test_query_extraction_equals_the_reference_on_broken_code(source: bytes) -> None:
    # code being edited is often incomplete: both extractions must still agree on it
    assert parse_file("a.py", source) == parse_file_reference("a.py", source)
