"""A pass told which files changed (the editor's saves and file events) looks at just those,
and falls back to walking the whole tree when a named change could reach further."""

from __future__ import annotations

from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex import indexer as indexer_module
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config
from nano_brain.errors import InvalidInputError

from .conftest import write_tree

TREE = {
    "app.py": "from lib import helper\n\ndef main():\n    return helper()\n",
    "lib.py": "def helper():\n    return 1\n",
    "other.py": "def other():\n    return 2\n",
    "docs/guide.md": "# Guide\n\nHow the app starts.\n",
}


def _brain(root: Path, tmp: Path) -> Brain:
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=tmp / "brain.db")


def _names(code: CodeIndex) -> set[str]:
    return {r[0] for r in code.brain.store._rows("SELECT qualified_name FROM code_symbols")}


def test_a_named_pass_reads_only_the_named_files(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, TREE)
    with _brain(root, tmp_path) as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        (root / "lib.py").write_text("def helper():\n    return 1\n\ndef extra():\n    pass\n")
        (root / "other.py").write_text("def renamed():\n    return 2\n")
        report = code.index(paths=["lib.py"])
        assert (report.paths, report.changed, report.unchanged) == (1, 1, 0)
        names = _names(code)
        assert "lib.py::extra" in names  # the named file is indexed
        assert "other.py::other" in names and "other.py::renamed" not in names  # not looked at
        # the call into the named file is still resolved
        assert [c.caller for c in code.callers("lib.py::helper")] == ["app.py::main"]
        full = code.index()
        assert full.paths is None and full.changed == 1  # the walk finds the other change
        assert "other.py::renamed" in _names(code)


def test_named_files_that_went_away_or_are_no_longer_indexed_are_removed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    write_tree(root, TREE)
    with _brain(root, tmp_path) as brain:
        code = CodeIndex(brain, workers=1, exclude=["docs/"])
        code.index()
        (root / "other.py").unlink()
        (root / "lib.py").rename(root / "moved.py")
        report = code.index(paths=["other.py", "lib.py", "moved.py", "never_there.py"])
        assert (report.paths, report.deleted, report.new) == (4, 2, 1)
        names = _names(code)
        assert "other.py::other" not in names and "lib.py::helper" not in names
        assert "moved.py::helper" in names
        # a named file the walk would skip (over the size limit) leaves the index
        (root / "app.py").write_text("x = 1\n" * 400_000)
        assert code.index(paths=["app.py"]).deleted == 1
        assert not any(n.startswith("app.py::") for n in _names(code))


@pytest.mark.parametrize("named", [[".gitignore"], ["sub/.gitignore"], ["pkg"]])
def test_a_named_gitignore_or_folder_makes_a_full_pass(tmp_path: Path, named: list[str]) -> None:
    root = tmp_path / "ws"
    write_tree(root, {**TREE, "pkg/mod.py": "def mod():\n    pass\n", "sub/x.py": "y = 1\n"})
    with _brain(root, tmp_path) as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        (root / ".gitignore").write_text("other.py\n")
        (root / "sub" / ".gitignore").write_text("x.py\n")
        (root / "pkg" / "mod.py").unlink()
        report = code.index(paths=named)
        assert report.paths is None
        assert report.deleted == 3  # other.py ignored, sub/x.py ignored, pkg/mod.py gone
        assert "other.py::other" not in _names(code)


def test_too_many_named_files_make_a_full_pass(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, TREE)
    with _brain(root, tmp_path) as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        (root / "other.py").write_text("def renamed():\n    return 2\n")
        many = [f"gen_{i}.py" for i in range(indexer_module.MAX_PATHS + 1)]
        report = code.index(paths=many)
        assert report.paths is None and report.changed == 1


@pytest.mark.parametrize("bad", ["../outside.py", "/etc/passwd", "a/../../b.py", "..", "../ws"])
def test_a_named_path_outside_the_workspace_is_refused_and_changes_nothing(
    tmp_path: Path, bad: str
) -> None:
    root = tmp_path / "ws"
    write_tree(root, TREE)
    (tmp_path / "outside.py").write_text("def outside():\n    pass\n")
    with _brain(root, tmp_path) as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        before = _names(code)
        (root / "lib.py").write_text("def helper2():\n    return 1\n")
        with pytest.raises(InvalidInputError):
            code.index(paths=["lib.py", bad])
        assert _names(code) == before
        assert code.index(paths=["lib.py"]).changed == 1  # the run lock was let go
