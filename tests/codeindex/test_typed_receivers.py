"""Receivers typed by what makes them: ``x = Cls(); x.m()``, ``self.a = Cls(); self.a.m()``, a
fresh instance ``Cls().m()`` and a declared return type ``Cls.create().m()``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex import CodeGraph, CodeIndex
from nano_brain.codeindex._python_types import call_chain, return_annotation

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


POLICY = """
from typing import Self

from ext import ExternalBase


class RefundPolicy:
    def refund_amount(self, order):
        pass

    @classmethod
    def create(cls) -> "RefundPolicy":
        return cls()

    @classmethod
    def build(cls) -> Self:
        return cls()

    @classmethod
    def guess(cls):
        return cls()

    @classmethod
    def create_or_none(cls) -> "RefundPolicy | None":
        return None

    def copy(self) -> "RefundPolicy":
        return RefundPolicy()


class Strict(RefundPolicy):
    def refund_amount(self, order):
        pass


class Twin:
    def refund_amount(self, order):
        pass


class Plugin(ExternalBase):
    pass


def make_policy() -> RefundPolicy:
    return RefundPolicy()
"""

FRESH = """
import policy
from policy import Plugin, RefundPolicy, Strict, Twin, make_policy


def fresh(order):
    return RefundPolicy().refund_amount(order)

def spread_out(order):
    return (
        RefundPolicy(strict=note(")"), days=[1, 2])
        .refund_amount(order)
    )

def through_module(order):
    return policy.RefundPolicy().refund_amount(order)

def subclass(order):
    return Strict().refund_amount(order)

def declared(order):
    return RefundPolicy.create().refund_amount(order)

def self_type_of_the_class_named(order):
    return Strict.build().refund_amount(order)

def factory(order):
    return make_policy().refund_amount(order)

def from_factory(order):
    made = make_policy()
    return made.refund_amount(order)

def undeclared(order):
    return RefundPolicy.guess().refund_amount(order)

def not_a_plain_class(order):
    return RefundPolicy.create_or_none().refund_amount(order)

def chained(order):
    return Strict().copy().refund_amount(order)

def chained_through_self(order):
    return Strict.build().build().refund_amount(order)

def chained_past_an_undeclared_type(order):
    return RefundPolicy.create().guess().refund_amount(order)

def through_an_attribute(order):
    return RefundPolicy().rules.refund_amount(order)

def unknown_class(order):
    return Missing().refund_amount(order)

def base_outside_the_workspace(order):
    return Plugin().refund_amount(order)

def on_an_instance(order, given):
    return given.build().refund_amount(order)

def shadowed(order):
    def RefundPolicy():
        return Twin()
    return RefundPolicy().refund_amount(order)


class Shop:
    def policy(self) -> Twin:
        return Twin()

    def run(self, order):
        return self.policy().refund_amount(order)
"""


def test_methods_of_fresh_instances_resolve_when_their_class_is_known(
    graph_of: Callable[..., CodeGraph],
) -> None:
    graph = graph_of({"policy.py": POLICY, "app.py": FRESH})
    got = {
        r.caller_key.split("::")[1]: (r.target, r.how)
        for r in graph.references
        if r.site.name == "refund_amount"
    }
    base, strict, twin = (
        f"policy.py::{c}.refund_amount" for c in ("RefundPolicy", "Strict", "Twin")
    )
    assert got == {
        "fresh": (base, "constructed"),
        "spread_out": (base, "constructed"),
        "through_module": (base, "constructed"),
        "subclass": (strict, "constructed"),
        "declared": (base, "constructed"),
        "self_type_of_the_class_named": (strict, "constructed"),
        "factory": (base, "constructed"),
        "from_factory": (base, "typed"),
        "undeclared": (None, "unresolved"),  # no declared return type
        "not_a_plain_class": (None, "unresolved"),
        "chained": (base, "constructed"),  # copy() declares RefundPolicy, not Self
        "chained_through_self": (strict, "constructed"),
        "chained_past_an_undeclared_type": (None, "unresolved"),
        "through_an_attribute": (None, "unresolved"),
        "unknown_class": (None, "unresolved"),
        "base_outside_the_workspace": (None, "unresolved"),  # the base may define it
        "on_an_instance": (None, "unresolved"),
        "shadowed": (None, "unresolved"),  # the local function declares no type
        "Shop.run": (twin, "constructed"),
    }
    assert [r.caller_key for r in graph.callers(base)] == [
        f"app.py::{name}"
        for name in (
            "fresh",
            "spread_out",
            "through_module",
            "declared",
            "factory",
            "from_factory",
            "chained",
        )
    ]


@pytest.mark.parametrize(
    ("receiver", "chain"),
    [
        ("Cls()", ["Cls"]),
        ("mod.sub.Cls(1,f(x))", ["mod.sub.Cls"]),
        ("Cls(')',\"(\",[1,(2)],{'a':b()})", ["Cls"]),
        ("Cls('\\')').copy()", ["Cls", "copy"]),
        ("Cls().copy(x).build()", ["Cls", "copy", "build"]),
        ("Cls(1", None),  # cut short by the receiver's size cap
        ("Cls(1]", None),
        ("Cls()()", None),
        ("Cls().attr", None),
        ("x[0]()", None),
        ('"".join()', None),
        ("Cls().a.b()", None),
        ("(Cls)()", None),
    ],
)
def test_call_chains_are_read_off_receivers(receiver: str, chain: list[str] | None) -> None:
    assert call_chain(receiver) == chain


@pytest.mark.parametrize(
    ("signature", "returns"),
    [
        ("def create(cls) -> Cls", "Cls"),
        ("def create(cls, *, n: int = 1) -> 'm.Cls'", "m.Cls"),
        ("async def create(cls) -> Cls", None),  # returns a coroutine
        ('def build(self) -> "Self"', "Self"),
        ("def f(sep='->')", None),
        ("def f() -> Cls | None", None),
        ("def f() -> list[Cls]", None),
        ("def f()", None),
        ("def f(x", None),
    ],
)
def test_declared_return_types_are_plain_names_only(signature: str, returns: str | None) -> None:
    assert return_annotation(signature) == returns


def test_a_fresh_instance_call_follows_its_class_across_an_incremental_reindex(
    workspace: Path, lexical_brain: Brain
) -> None:
    policy = "class Policy:\n    def amount(self):\n        pass\n"
    app = "from policy import Policy\n\ndef refund():\n    return Policy().amount()\n"
    write_tree(workspace, {"policy.py": policy, "app.py": app})
    code = CodeIndex(lexical_brain)
    code.index()
    assert [c.caller for c in code.callers("policy.py::Policy.amount")] == ["app.py::refund"]
    moved = "class Base:\n    def amount(self):\n        pass\n\nclass Policy(Base):\n    pass\n"
    (workspace / "policy.py").write_text(moved)
    assert code.index().parsed == 1
    assert [c.caller for c in code.callers("policy.py::Base.amount")] == ["app.py::refund"]
