"""An index pass in a child process (nano_brain.indexchild), and the memory a pass releases."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from nano_brain.errors import InvalidInputError, NanoBrainError
from nano_brain.indexing import release_memory
from nano_brain.workspace import Workspace

BILLING = "def compute_invoice_total(items):\n    return sum(items)\n"
UTIL = (
    "from billing import compute_invoice_total\n\n\n"
    "def checkout(cart):\n    return compute_invoice_total(cart)\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "billing.py").write_text(BILLING, encoding="utf-8")
    (root / "util.py").write_text(UTIL, encoding="utf-8")
    return root


def test_a_child_pass_writes_what_an_in_process_pass_writes(project: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    with Workspace.open(twin) as here:
        expected = here.index()
        counts = here.code.counts()
    seen: list[tuple[str, int, int]] = []
    with Workspace.open(project, exclude=["vendor/"]) as workspace:
        assert not workspace.code_indexed()
        child = workspace.index_in_child()
        report = child.run(lambda phase, done, total: seen.append((phase, done, total)))
        assert child.pid is not None and child.pid != os.getpid()
        assert workspace.code_indexed()
        assert workspace.code.counts() == counts
        assert [s.qualified_name for s in workspace.code.symbols("checkout")] == [
            "util.py::checkout"
        ]
    for key in ("files", "new", "symbols", "calls", "resolved_calls"):
        assert getattr(report, key) == getattr(expected, key), key
    assert ("parse", 2, 2) in seen and seen[0][0] == "scan"


def test_an_error_in_the_child_is_raised_in_the_parent(project: Path) -> None:
    with Workspace.open(project) as workspace:
        child = workspace.index_in_child()
        shutil.rmtree(project)  # the child's Brain refuses a workspace that is gone
        with pytest.raises(InvalidInputError, match="is not a directory"):
            child.run()


def test_a_stopped_child_never_starts(project: Path) -> None:
    with Workspace.open(project) as workspace:
        child = workspace.index_in_child()
        child.stop()
        with pytest.raises(NanoBrainError, match="stopped"):
            child.run()
        assert not workspace.code_indexed()


def test_a_full_pass_leaves_the_default_page_cache(project: Path) -> None:
    """The bulk load's larger page cache lasts through the history, not after the pass."""
    with Workspace.open(project) as workspace:
        cache = lambda: workspace.brain.store._rows("PRAGMA cache_size")[0][0]  # noqa: E731
        default = cache()
        workspace.index()
        assert cache() == default
        workspace.code.code.tune_for_bulk()
        assert cache() != default
        release_memory(workspace.code.code, reset_cache=False)  # the history still runs
        assert cache() != default
        release_memory(workspace.code.code, reset_cache=True)
        assert cache() == default
        assert workspace.code.counts()["symbols"] > 0  # nothing of the index is lost
