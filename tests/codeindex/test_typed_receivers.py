"""Receivers typed by construction: ``x = Cls(); x.m()`` and ``self.a = Cls(); self.a.m()``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex import CodeGraph, CodeIndex

from .conftest import write_tree

BUF = """
class Buffer:
    def close(self):
        pass

class Other:
    def close(self):
        pass
"""

APP = """
from buf import Buffer, Other
import buf

shared = Buffer()
mixed = Buffer()
mixed = Other()

class Reader:
    def __init__(self):
        self.source = Buffer()
        self.count = 0

    def finish(self):
        self.source.close()

def local():
    b = buf.Buffer()
    b.close()

def module_level():
    shared.close()

def shadowed(shared):
    shared.close()

def conflicting():
    mixed.close()

def from_value(x):
    y = x
    y.close()
"""


def targets(graph: CodeGraph) -> dict[tuple[str, int], str | None]:
    return {(r.caller_key.split("::")[1], r.site.line): r.target for r in graph.references
            if r.site.name == "close"}  # fmt: skip


def test_constructed_receivers_resolve_and_guesses_do_not(
    graph_of: Callable[..., CodeGraph],
) -> None:
    got = targets(graph_of({"buf.py": BUF, "app.py": APP}))
    assert got == {
        ("Reader.finish", 15): "buf.py::Buffer.close",
        ("local", 19): "buf.py::Buffer.close",
        ("module_level", 22): "buf.py::Buffer.close",
        ("shadowed", 25): None,  # a parameter hides the module variable
        ("conflicting", 28): None,  # two classes assigned: no guess
        ("from_value", 32): None,  # not constructed here
    }


def test_typed_receivers_survive_an_incremental_reindex(
    workspace: Path, lexical_brain: Brain
) -> None:
    write_tree(workspace, {"buf.py": BUF, "app.py": APP, "z.py": "def z():\n    pass\n"})
    code = CodeIndex(lexical_brain)
    code.index()
    before = sorted(c.caller for c in code.callers("buf.py::Buffer.close"))
    assert before == ["app.py::Reader.finish", "app.py::local", "app.py::module_level"]
    (workspace / "buf.py").write_text(BUF + "\nclass Third:\n    def close(self):\n        pass\n")
    report = code.index()
    assert report.parsed == 1  # app.py is not re-parsed: its assignments come from the store
    assert sorted(c.caller for c in code.callers("buf.py::Buffer.close")) == before


def test_targets_written_with_blanks_or_non_ascii_names_type_their_receivers(
    graph_of: Callable[..., CodeGraph],
) -> None:
    # the receivers of these calls are compared without blanks, and the names are not ASCII:
    # neither may be lost to the byte comparison that skips most assignments
    app = (
        "from buf import Buffer\n"
        "\n"
        "class Reader:\n"
        "    def __init__(self):\n"
        "        self . source = Buffer()\n"
        "\n"
        "    def finish(self):\n"
        "        self.source.close()\n"
        "\n"
        "def local():\n"
        "    größe = Buffer()\n"
        "    größe.close()\n"
    )
    got = targets(graph_of({"buf.py": BUF, "app.py": app}))
    assert got == {
        ("Reader.finish", 8): "buf.py::Buffer.close",
        ("local", 12): "buf.py::Buffer.close",
    }
