from __future__ import annotations

import hashlib

from nano_brain.codeindex import SEARCH_TEXT_CAP, ImportEdge
from nano_brain.codeindex.parse import identifier_words

from .conftest import by_name, parse

SOURCE = '''\
"""Module docstring is not a symbol."""
import os.path
import numpy as np
from .sibling import helper as h, other
from ..up import *
from pkg.sub import thing

MAX_SIZE = 10
registry = {}
__all__ = ["top"]


@decorate(1)
def top(a: int,
        b: str = "") -> int:
    """Do the top thing.

    Second paragraph.
    """
    h(a)
    return os.path.join(a, b)


class Base:
    def run(self):
        pass


class Child(Base, mod.Mixin, metaclass=Meta):
    """A child."""

    attr = compute()

    def method(self, x):
        """Method doc."""
        super().run()
        self.run()

        def inner():
            return top(x)

        return inner()

    @property
    def value(self):
        return 1

    @value.setter
    def value(self, v):
        pass
'''


def test_symbols_kinds_qualified_names_and_lines() -> None:
    index = parse("pkg/mod.py", SOURCE)
    syms = by_name(index)
    assert {name: s.kind for name, s in syms.items()} == {
        "MAX_SIZE": "constant",
        "registry": "variable",
        "top": "function",
        "Base": "class",
        "Base.run": "method",
        "Child": "class",
        "Child.method": "method",
        "Child.method.inner": "function",
        "Child.value": "method",
        "Child.value#2": "method",
    }
    top = syms["top"]
    assert top.qualified_name == "pkg/mod.py::top"
    assert (top.start_line, top.end_line) == (13, 21)  # the decorator line is included
    assert syms["Child.method"].parent == "pkg/mod.py::Child"
    assert syms["Child.method.inner"].parent == "pkg/mod.py::Child.method"
    assert syms["top"].parent is None
    assert ("pkg/mod.py::Child", "pkg/mod.py::Child.method") in index.contains
    assert all(s.language == "python" and s.path == "pkg/mod.py" for s in index.symbols)


def test_signature_docstring_bases_hash_and_search_text() -> None:
    source = SOURCE.encode()
    index = parse("pkg/mod.py", SOURCE)
    syms = by_name(index)
    top = syms["top"]
    assert top.signature == 'def top(a: int, b: str = "") -> int'
    assert top.docstring == "Do the top thing.\n\nSecond paragraph."
    assert syms["Child.method"].docstring == "Method doc."
    assert syms["Base.run"].docstring is None
    assert syms["Child"].bases == ("Base", "mod.Mixin")
    lines = source.decode().splitlines(keepends=True)
    text = "".join(lines[top.start_line - 1 : top.end_line]).rstrip("\n").encode()
    assert top.sha256 == hashlib.sha256(text).hexdigest()
    # the searchable text is the symbol's source as written, decorators included
    assert top.search_text == text.decode()
    # the title: qualified name, the name's words, the docstring's first paragraph only
    assert top.search_title == "pkg/mod.py::top\ntop\nDo the top thing."
    assert syms["Base.run"].search_title == "pkg/mod.py::Base.run\nrun"


def test_identifier_words_split_snake_camel_acronyms_and_digits() -> None:
    assert identifier_words("parseHTTPResponse_v2") == ["parse", "http", "response", "v", "2"]
    assert identifier_words("get_user_id") == ["get", "user", "id"]
    assert identifier_words("__init__") == ["init"]
    assert identifier_words("URLParser") == ["url", "parser"]


def test_search_text_is_capped_and_hash_tracks_the_symbol_text() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(1000))
    big = parse("big.py", f"def big():\n{body}\n")
    assert len(big.symbols[0].search_text) == SEARCH_TEXT_CAP
    a = parse("m.py", "def f():\n    return 1\n\ndef g():\n    return 2\n")
    b = parse("m.py", "def f():\n    return 1\n\ndef g():\n    return 3\n")
    assert by_name(a)["f"].sha256 == by_name(b)["f"].sha256
    assert by_name(a)["g"].sha256 != by_name(b)["g"].sha256


def test_imports_with_names_aliases_relative_and_lines() -> None:
    index = parse("pkg/mod.py", SOURCE)
    assert index.imports == [
        ImportEdge("pkg/mod.py", "os.path", None, None, 2),
        ImportEdge("pkg/mod.py", "numpy", None, "np", 3),
        ImportEdge("pkg/mod.py", ".sibling", "helper", "h", 4),
        ImportEdge("pkg/mod.py", ".sibling", "other", None, 4),
        ImportEdge("pkg/mod.py", "..up", "*", None, 5),
        ImportEdge("pkg/mod.py", "pkg.sub", "thing", None, 6),
    ]
    assert [i.local_name for i in index.imports] == ["os", "np", "h", "other", None, "thing"]


def test_calls_with_caller_receiver_and_line() -> None:
    index = parse("pkg/mod.py", SOURCE)
    calls = {(c.caller, c.callee): c for c in index.calls}
    join = calls[("pkg/mod.py::top", "os.path.join")]
    assert (join.name, join.receiver, join.receiver_kind, join.line) == (
        "join",
        "os.path",
        "other",
        21,
    )
    assert calls[("pkg/mod.py::top", "h")].receiver_kind == "none"
    assert calls[("pkg/mod.py::Child.method", "self.run")].receiver_kind == "self"
    assert calls[("pkg/mod.py::Child.method", "super().run")].receiver_kind == "super"
    assert ("pkg/mod.py::Child.method.inner", "top") in calls
    assert ("pkg/mod.py::Child", "compute") in calls  # class body runs at class level
    assert (None, "decorate") in calls  # a decorator runs at module level


def test_syntax_errors_still_yield_symbols() -> None:
    index = parse("broken.py", "def ok():\n    return 1\n\ndef broken(:\n    pass\n")
    assert index.has_errors
    assert "ok" in by_name(index)
