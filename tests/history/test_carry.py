"""Symbols carried back through diffs instead of parsing every past version: on a real
repository built here, the links are the ones parsing both sides of every change gives,
with fewer versions parsed; and carrying itself, hunk by hunk, against the parser."""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nano_brain import Brain
from nano_brain.history import History, indexer
from nano_brain.history._carry import carry_back, may_define
from nano_brain.history._git import Git
from nano_brain.history._symbols import changed_symbols, spans_of
from nano_brain.store.commits import CommitStore

from .conftest import Repo
from .test_symbols import _hunks

BrainOf = Callable[..., Brain]

SHOP = textwrap.dedent("""\
    import math

    RATE = 2


    def alpha(x):
        return x + 1


    def beta(x):
        y = x * RATE
        return y


    class Cart:
        def total(self, items):
            return sum(items)

        def count(self, items):
            return len(items)


    def gamma(x):
        return math.floor(x)
    """)


def _history(repo: Repo) -> None:
    """Commits of each kind of change carrying must get right (or leave to the parser)."""
    repo.write("shop.py", SHOP)
    repo.commit("first")
    text = SHOP.replace("y = x * RATE", "y = x * RATE\n    y += 1")
    repo.write("shop.py", text)
    repo.commit("beta: a body line added")  # carried: nothing but a body changed
    text = text.replace("def alpha(x):", "def alpha(x, step=1):").replace("x + 1", "x + step")
    repo.write("shop.py", text)
    repo.commit("alpha: a new signature")
    text = text.replace("def gamma(x):", "def floor_of(x):")
    repo.write("shop.py", text)
    repo.commit("gamma renamed floor_of")
    text = text.replace("        return len(items)\n",
                        "        return len(items)\n\n    def empty(self):\n"
                        "        return []\n")  # fmt: skip
    repo.write("shop.py", text)
    repo.commit("Cart: a method appended")  # carried: the class's last line is new
    block = "def beta(x):\n    y = x * RATE\n    y += 1\n    return y\n\n\n"
    text = text.replace(block, "") + "\n\n" + block.rstrip() + "\n"
    repo.write("shop.py", text)
    repo.commit("beta moved to the end")
    text = text.replace("def alpha(x, step=1):\n    return x + step\n\n\n", "")
    repo.write("shop.py", text)
    repo.commit("alpha deleted")
    text = text.replace("RATE = 2\n", "RATE = 3\n")
    repo.write("shop.py", text)
    repo.commit("a constant changed")
    repo.move("shop.py", "store/shop.py")
    repo.write("store/shop.py", text.replace("return []", "return list()"))
    repo.commit("shop moved to store/, empty changed")
    repo.write("store/shop.py", text.replace("return []", "return list()")
               .replace("    def total", "    @staticmethod\n    def total"))  # fmt: skip
    repo.commit("total: a decorator")
    repo.write("util.py", "def helper():\n    return 1\n")
    repo.commit("util added")
    repo.write("util.py", "def helper():\n    return 2\n")
    repo.commit("helper changed")
    (repo.path / "util.py").unlink()
    repo.commit("util deleted")


def _reference(repo: Repo) -> set[tuple[str, str, str]]:
    """(subject, how, name) of every link, found by parsing both sides of every change."""
    git = Git(repo.path)
    assert git.info() is not None
    out: set[tuple[str, str, str]] = set()

    def blob(sha: str | None) -> bytes | None:
        return repo.git("cat-file", "blob", sha).encode() + b"\n" if sha else None

    for commit in git.log("HEAD", exclude=[], max_count=100, since=None):
        subject = commit.message.splitlines()[0]
        for c in commit.files:
            before = spans_of(c.old_path, blob(c.old_blob) or b"") if c.old_blob else []
            after = spans_of(c.new_path, blob(c.new_blob) or b"") if c.new_blob else []
            found, _ = changed_symbols(
                c.hunks, before, after, lambda c=c: (blob(c.old_blob), blob(c.new_blob))
            )
            for name, how in found:
                path = c.old_path if how == "removed" else c.new_path
                out.add((subject, how, f"{path}::{name}"))
    return out


@pytest.mark.parametrize("workers", [1, 2])
def test_carried_links_are_the_parsed_ones_with_fewer_parses(
    repo: Repo, brain_of: BrainOf, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """In this process alone, and with versions parsed ahead in a pool (any history)."""
    monkeypatch.setattr(indexer, "POOL_THRESHOLD", 0)
    _history(repo)
    brain = brain_of(repo.path)
    report = History(brain).index(workers=workers)
    assert report.workers == workers
    expected = _reference(repo)
    history = History(brain)
    stored = {
        (c.subject, c.change, c.name)
        for name in {n for _, _, n in expected}
        for c in history.commits_of(name, limit=100)
    }
    assert stored == expected
    # the golden values of the changes carrying must get right, from the edits above
    assert ("beta: a body line added", "modified", "shop.py::beta") in stored
    assert ("Cart: a method appended", "added", "shop.py::Cart.empty") in stored
    assert ("Cart: a method appended", "modified", "shop.py::Cart") in stored
    assert ("alpha: a new signature", "modified", "shop.py::alpha") in stored
    assert ("gamma renamed floor_of", "renamed", "shop.py::floor_of") in stored
    assert ("alpha deleted", "removed", "shop.py::alpha") in stored
    assert ("a constant changed", "modified", "shop.py::RATE") in stored
    assert ("util deleted", "removed", "util.py::helper") in stored
    assert ("total: a decorator", "modified", "store/shop.py::Cart.total") in stored
    beta = [
        (s, how)
        for s, how, _ in (
            (c.subject, c.change, c.name) for c in history.commits_of("store/shop.py::beta")
        )
    ]
    assert beta == [("beta moved to the end", "modified"), ("beta: a body line added", "modified"),
                    ("first", "added")]  # fmt: skip
    # every past version of a changed file would be parsed once before; now fewer are
    changed_blobs = 2 * 13 - 3  # 13 commits of one file, 3 without a before or an after
    assert report.carried_blobs >= 3
    assert report.parsed_blobs + report.carried_blobs <= changed_blobs
    assert report.parsed_blobs < changed_blobs - 3


def test_a_body_change_is_carried_exactly() -> None:
    new = SHOP.replace("y = x * RATE", "y = x * RATE\n    y += 1\n    y -= 1")
    after = spans_of("m.py", new.encode())
    carried = carry_back(after, _hunks(SHOP, new), b"", "python")
    assert carried == spans_of("m.py", SHOP.encode())


def test_what_carrying_leaves_to_the_parser() -> None:
    after = [("f", "function", 1, 3), ("g", "function", 5, 6)]
    # the first line of a symbol written by the commit (a signature, a rename)
    assert carry_back(after, [(5, 1, 5, 1)], b"# h\n", "python") is None
    assert carry_back(after, [(1, 1, 1, 1)], b"    return 0\n", "python") is None
    assert carry_back(after, [(4, 0, 5, 1)], b"", "python") is None  # g's first line added
    # removed lines that may hold a definition: a def, a decorator, a module-level name
    assert carry_back(after, [(8, 2, 7, 0)], b"def gone():\n    pass\n", "python") is None
    assert carry_back(after, [(4, 1, 4, 0)], b"    @property\n", "python") is None
    assert carry_back(after, [(8, 1, 7, 0)], b"LIMIT = 3\n", "python") is None
    assert carry_back(after, [(8, 1, 7, 0)], None, "python") is None  # too much to keep
    # a body line removed, one inserted: shifted; a wholly inserted symbol is dropped
    assert carry_back(after, [(2, 1, 1, 0)], b"    y = 1\n", "python") == [
        ("f", "function", 1, 4), ("g", "function", 6, 7)]  # fmt: skip
    assert carry_back(after, [(4, 0, 5, 2)], b"", "python") == [("f", "function", 1, 3)]
    # a last line added: the symbol ended where the insertion was made
    assert carry_back(after, [(5, 0, 6, 1)], b"", "python") == [
        ("f", "function", 1, 3), ("g", "function", 5, 5)]  # fmt: skip
    # numbered namesakes: one inserted changes the others' numbers
    twins = [("f", "function", 1, 2), ("f#2", "function", 4, 5)]
    assert carry_back(twins, [(0, 0, 1, 3)], b"", "python") is None


def test_other_languages_are_tested_broadly() -> None:
    assert may_define("javascript", b"  render() {\n")
    assert may_define("java", b"  int size(int x) {\n")
    assert may_define("go", b"func (s *S) Run() error {\n")
    assert not may_define("javascript", b"  x += 1;\n")
    assert not may_define("python", b"    x += 1\n    return x\n")


def _render_with(funcs: list[tuple[str, int, int, int, bool]]) -> str:
    """Functions (name, id, version, arguments, decorated), each line naming the id so that
    a diff aligns each function with itself."""
    out = []
    for name, fid, version, arity, decorated in funcs:
        args = ", ".join(f"x{k}" for k in range(arity))
        out += (["@cached"] if decorated else []) + [
            f"def {name}({args}):", f"    a{fid} = {fid}", f"    b{fid} = a{fid} * {version}",
            f"    return b{fid}", ""]  # fmt: skip
    return "\n".join(out) + "\n"


EDITS = ("keep", "keep", "modify", "remove", "rename", "signature", "decorate")


@settings(max_examples=80, deadline=None)
@given(
    count=st.integers(1, 8),
    actions=st.lists(st.sampled_from(EDITS), min_size=8, max_size=8),
    decorated=st.lists(st.booleans(), min_size=8, max_size=8),
    added=st.lists(st.integers(0, 8), max_size=3),
)
def test_carried_spans_are_the_parsed_ones(
    count: int, actions: list[str], decorated: list[bool], added: list[int]
) -> None:
    """Random files and edits: whenever carrying answers, it answers what parsing does."""
    before = [(f"f{i}", i, 1, 1, decorated[i]) for i in range(count)]
    after: list[tuple[str, int, int, int, bool]] = []
    for (name, fid, version, arity, deco), action in zip(before, actions, strict=False):
        if action == "keep":
            after.append((name, fid, version, arity, deco))
        elif action == "modify":
            after.append((name, fid, version + 1, arity, deco))
        elif action == "rename":
            after.append((f"renamed{fid}", fid, version, arity, deco))
        elif action == "signature":
            after.append((name, fid, version, arity + 1, deco))
        elif action == "decorate":
            after.append((name, fid, version, arity, not deco))
    for k, where in enumerate(added):
        after.insert(min(where, len(after)), (f"new{100 + k}", 100 + k, 1, 1, False))
    old, new = _render_with(before), _render_with(after)
    hunks = _hunks(old, new)
    lines = old.splitlines()
    removed = "".join(line + "\n" for a, b, _, _ in hunks for line in lines[a - 1 : a - 1 + b])
    carried = carry_back(spans_of("m.py", new.encode()), hunks, removed.encode(), "python")
    if carried is not None:
        assert carried == spans_of("m.py", old.encode())
    if all(a in ("keep", "modify", "signature") for a in actions[:count]) and not added:
        assert carried is not None  # bodies and signatures alone: nothing left to the parser


def test_hunks_of_the_helper_match_git_style() -> None:
    # the helper gives -U0 style hunks: a pure insertion names the line it follows
    assert _hunks("a\nb\n", "a\nx\nb\n") == [(1, 0, 2, 1)]
    assert list(difflib.unified_diff(["a"], ["a"])) == []


def test_sequence_numbers_stay_chronological_when_the_window_grows(
    repo: Repo, brain_of: BrainOf
) -> None:
    """Read newest first, numbered oldest smallest: the older commits a grown window adds
    (or an interrupted first run resumes) are numbered below the stored ones."""
    hashes = []
    for i in range(5):
        repo.write("m.py", f"def f(x):\n    return x + {i}\n")
        hashes.append(repo.commit(f"step {i}"))
    brain = brain_of(repo.path, max_commits=2)
    History(brain).index()
    brain.close()
    grown = brain_of(repo.path, max_commits=5)
    report = History(grown).index()
    assert (report.added, report.removed) == (3, 0)
    seqs = CommitStore(grown.store).hashes()
    assert sorted(seqs, key=seqs.__getitem__) == hashes
