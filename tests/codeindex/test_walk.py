"""Workspace walking (ignores, skips with reasons) and incremental change detection."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nano_brain.codeindex import FileState, scan_changes, walk_workspace
from nano_brain.codeindex.walk import iter_paths, iter_workspace
from nano_brain.errors import InvalidInputError

from .conftest import write_tree


def paths(root: Path, **options: object) -> tuple[list[str], dict[str, str]]:
    result = walk_workspace(root, **options)
    return sorted(f.path for f in result.files), {s.path: s.reason for s in result.skipped}


def test_nested_gitignore_with_negation_and_directory_patterns(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".gitignore": "*.log\nsecret/\n/top_only.py\n",
            "keep.py": "x = 1\n",
            "debug.log": "log\n",
            "top_only.py": "x = 1\n",
            "secret/a.py": "x = 1\n",
            "pkg/.gitignore": "generated_*.py\n!important.log\n",
            "pkg/mod.py": "x = 1\n",
            "pkg/generated_api.py": "x = 1\n",
            "pkg/important.log": "keep me\n",
            "pkg/top_only.py": "x = 1\n",  # anchored pattern only applies at the root
            "pkg/deeper/generated_x.py": "x = 1\n",  # nested patterns apply below too
            "other/generated_y.py": "x = 1\n",  # ...but not beside
        },
    )
    files, skipped = paths(tmp_path)
    assert files == [
        "keep.py",
        "other/generated_y.py",
        "pkg/important.log",
        "pkg/mod.py",
        "pkg/top_only.py",
    ]
    assert skipped == {
        "debug.log": "gitignored",
        "top_only.py": "gitignored",
        "secret/": "gitignored",
        "pkg/generated_api.py": "gitignored",
        "pkg/deeper/generated_x.py": "gitignored",
    }
    files_no_ignore, _ = paths(tmp_path, use_gitignore=False)
    assert "secret/a.py" in files_no_ignore and "debug.log" in files_no_ignore


def test_vendored_excluded_binary_generated_and_large_files(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "src/app.py": "print('hi')\n",
            "src/notes.md": "# notes\n",
            "node_modules/lib/index.js": "x\n",
            "src/__pycache__/app.cpython-311.pyc": b"\x00\x01",
            ".venv/lib/x.py": "x\n",
            "target/debug/x.rs": "fn main() {}\n",
            "pkg.egg-info/PKG-INFO": "x\n",
            "docs/drafts/a.md": "x\n",
            "src/blob.dat2": b"abc\x00def",
            "src/logo.png": b"\x89PNG",
            "web/app.min.js": "x\n",
            "big.py": "x = 1\n" * 50,
        },
    )
    files, skipped = paths(tmp_path, exclude=["docs/drafts/"], max_bytes=200)
    assert files == ["src/app.py", "src/notes.md"]
    assert skipped == {
        ".venv/": "vendored",
        "big.py": "too_large",
        "docs/drafts/": "excluded",
        "node_modules/": "vendored",
        "pkg.egg-info/": "vendored",
        "src/__pycache__/": "vendored",
        "src/blob.dat2": "binary",  # NUL byte sniffed
        "src/logo.png": "binary",  # by suffix, unread
        "target/": "vendored",
        "web/app.min.js": "generated",
    }
    result = walk_workspace(tmp_path, suffixes={".py"})
    assert [f.path for f in result.files] == ["big.py", "src/app.py"]
    assert result.files[1].language == "python"
    assert result.files[1].size == len("print('hi')\n")
    assert result.skipped_by_reason()["vendored"] == 5


def test_version_control_metadata_is_never_entered_nor_reported(tmp_path: Path) -> None:
    """`.git/` is no code anyone left out: the walk does not enter it and the summary does not
    count it as a skip (it read `1 vendored` for every repository)."""
    write_tree(
        tmp_path,
        {
            "app.py": "x = 1\n",
            ".git/config": "[core]\n",
            ".git/hooks/pre-commit.py": "x = 1\n",
            "sub/.hg/store.py": "x = 1\n",
            "vendor/lib.py": "x = 1\n",
        },
    )
    files, skipped = paths(tmp_path)
    assert files == ["app.py"]
    assert skipped == {"vendor/": "vendored"}
    assert list(iter_paths(tmp_path, [".git/hooks/pre-commit.py", "sub/.hg/store.py"])) == []


def test_symlinks_leaving_the_root_are_skipped(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write_tree(outside, {"secret.py": "x = 1\n", "lib/mod.py": "x = 1\n"})
    write_tree(root, {"real.py": "x = 1\n", "pkg/inner.py": "y = 2\n"})
    os.symlink(outside / "secret.py", root / "link_out.py")
    os.symlink(outside / "lib", root / "lib_out")
    os.symlink(root / "real.py", root / "link_in.py")
    os.symlink(root / "pkg", root / "pkg_again")
    files, skipped = paths(root)
    assert files == ["link_in.py", "pkg/inner.py", "real.py"]
    assert skipped == {
        "link_out.py": "symlink_outside",
        "lib_out/": "symlink_outside",
        "pkg_again/": "symlink_dir",  # inside, but would index the same files twice
    }


def test_walk_rejects_a_missing_root(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        walk_workspace(tmp_path / "missing")


def _states(root: Path) -> dict[str, FileState]:
    return scan_changes(root, {}).states


def test_incremental_edit_rename_delete_new_and_touch(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": "def a():\n    pass\n",
            "b.py": "def b():\n    pass\n",
            "c.py": "def c():\n    pass\n",
            "d.py": "def d():\n    pass\n",
            "e.py": "def e():\n    pass\n",
        },
    )
    first = scan_changes(tmp_path, {})
    assert sorted(f.path for f in first.new) == ["a.py", "b.py", "c.py", "d.py", "e.py"]
    assert first.new[0].content == (tmp_path / first.new[0].path).read_bytes()
    previous = first.states

    (tmp_path / "a.py").write_text("def a():\n    return 42\n")  # edit
    (tmp_path / "b.py").rename(tmp_path / "b2.py")  # rename
    (tmp_path / "c.py").unlink()  # delete
    (tmp_path / "f.py").write_text("def f():\n    pass\n")  # new
    st = (tmp_path / "d.py").stat()
    os.utime(tmp_path / "d.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # touch

    changes = scan_changes(tmp_path, previous)
    assert [f.path for f in changes.changed] == ["a.py"]
    assert sorted(f.path for f in changes.new) == ["b2.py", "f.py"]
    assert changes.deleted == ["b.py", "c.py"]
    assert changes.renamed == [("b.py", "b2.py")]
    assert changes.touched == ["d.py"]
    assert changes.unchanged == ["e.py"]
    assert set(changes.states) == {"a.py", "b2.py", "d.py", "e.py", "f.py"}
    assert changes.states["a.py"].sha256 != previous["a.py"].sha256
    assert changes.states["d.py"].sha256 == previous["d.py"].sha256

    again = scan_changes(tmp_path, changes.states)
    assert sorted(again.unchanged) == ["a.py", "b2.py", "d.py", "e.py", "f.py"]
    assert not (again.changed or again.new or again.deleted or again.touched)


def test_unchanged_files_cost_a_stat_not_a_read(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("x = 1\n")
    previous = scan_changes(tmp_path, {}).states
    st = target.stat()
    target.write_text("y = 2\n")  # same size...
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # ...and the old mtime
    changes = scan_changes(tmp_path, previous)
    # content was not read (or the hash would differ): size + mtime decided
    assert changes.unchanged == ["m.py"] and not changes.changed
    # a file that turns binary is no longer indexable: it is reported deleted and skipped
    target.write_bytes(b"\x00\x01\x02 binary now")
    changes = scan_changes(tmp_path, previous)
    assert changes.deleted == ["m.py"]
    assert [(s.path, s.reason) for s in changes.skipped] == [("m.py", "binary")]


def test_previous_states_may_be_plain_tuples(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    states = _states(tmp_path)
    plain = {p: tuple(s) for p, s in states.items()}
    assert scan_changes(tmp_path, plain).unchanged == ["m.py"]  # type: ignore[arg-type]


def test_walking_named_paths_agrees_with_walking_the_tree(tmp_path: Path) -> None:
    """Each file alone gets the verdict the whole walk gives it (or none, under a folder the
    walk does not enter), whatever rule applies: nested ignores, excludes, vendored folders,
    binaries, sizes and symlinks."""
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write_tree(outside, {"secret.py": "x = 1\n", "lib/mod.py": "x = 1\n"})
    write_tree(
        root,
        {
            ".gitignore": "*.log\nsecret/\n/top_only.py\n",
            ".git/info/exclude": "local.py\n",
            "keep.py": "x = 1\n",
            "local.py": "x = 1\n",
            "debug.log": "log\n",
            "top_only.py": "x = 1\n",
            "secret/a.py": "x = 1\n",
            "pkg/.gitignore": "generated_*.py\n!important.log\n",
            "pkg/mod.py": "x = 1\n",
            "pkg/generated_api.py": "x = 1\n",
            "pkg/important.log": "keep me\n",
            "pkg/deeper/generated_x.py": "x = 1\n",
            "pkg/deeper/fine.py": "x = 1\n",
            "node_modules/lib/index.js": "x\n",
            "docs/drafts/a.md": "x\n",
            "src/blob.dat2": b"abc\x00def",
            "src/logo.png": b"\x89PNG",
            "web/app.min.js": "x\n",
            "big.py": "x = 1\n" * 50,
        },
    )
    os.symlink(outside / "secret.py", root / "link_out.py")
    os.symlink(outside / "lib", root / "lib_out")
    os.symlink(root / "keep.py", root / "link_in.py")
    options: dict[str, object] = {"exclude": ["docs/drafts/"], "max_bytes": 200}
    whole = {item.path: item for item in iter_workspace(root, **options)}  # type: ignore[arg-type]
    every = sorted(
        (Path(d) / f).relative_to(root).as_posix()
        for d, _, names in os.walk(root, followlinks=True)
        for f in names
        if ".git/" not in (Path(d) / f).relative_to(root).as_posix() + "/"
    )
    assert "lib_out/mod.py" in every and "pkg/deeper/generated_x.py" in every
    for rel in every:
        alone = list(iter_paths(root, [rel], **options))  # type: ignore[arg-type]
        expected = [whole[rel]] if rel in whole else []
        assert alone == expected, rel
    together = list(iter_paths(root, every, **options))  # type: ignore[arg-type]
    assert together == [whole[rel] for rel in every if rel in whole]
    assert {item.path for item in together} == {p for p in whole if not p.endswith("/")}
    # a missing path, or a folder, gives nothing; a path leaving the root is refused
    assert list(iter_paths(root, ["gone.py", "pkg", "pkg/deeper"])) == []
    for bad in ("../outside/secret.py", "/etc/passwd", "pkg/../keep.py", ""):
        with pytest.raises(InvalidInputError):
            list(iter_paths(root, [bad]))


def test_a_hostile_gitignore_neither_hangs_nor_stops_the_walk(tmp_path: Path) -> None:
    # `*` fifty times then `b`: Python's backtracking engine tries every way to split a long
    # name among the stars (it did not finish in minutes); `!` alone and a trailing backslash
    # are lines git refuses, which made pathspec raise and the whole walk fail.
    long_name = "a" * 40 + ".py"
    write_tree(
        tmp_path,
        {
            ".gitignore": "*" * 50 + "b\n" + "*a" * 25 + "b\n!\nx\\\n[[:alpha:]]q\n*.log\n",
            long_name: "x = 1\n",
            "debug.log": "log\n",
            "aq.py": "x = 1\n",
        },
    )
    files, skipped = paths(tmp_path)
    assert files == sorted([long_name, "aq.py"])  # the bad lines left out, the rest applied
    assert skipped["debug.log"] == "gitignored"
