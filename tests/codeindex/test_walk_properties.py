"""Property: for any tree, ignore files and excludes, checking files one at a time (the
editor's named-file passes) gives the verdict the whole walk gives, and the walk's files are
exactly those the per-file check keeps."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nano_brain.codeindex.walk import WalkedFile, iter_paths, iter_workspace

NAMES = ["a", "b", "src", "node_modules", "build", "pkg.egg-info", "docs"]
FILES = ["x.py", "y.log", "keep.py", "z.md", "w.min.js", "v.png", "u.ts"]
PATTERNS = ["*.log", "b/", "!keep.py", "/a", "**/src/x.py", "*.py", "docs", "!b/", "z.*", "/*.ts"]

paths = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), max_size=3), st.sampled_from(FILES)),
    min_size=1,
    max_size=25,
)
ignores = st.dictionaries(
    st.lists(st.sampled_from(NAMES), max_size=2).map("/".join),
    st.lists(st.sampled_from(PATTERNS), max_size=3),
    max_size=3,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=paths, gitignores=ignores, exclude=st.lists(st.sampled_from(PATTERNS), max_size=2),
       info=st.lists(st.sampled_from(PATTERNS), max_size=2))  # fmt: skip
def test_a_file_alone_gets_the_walks_verdict(
    files: list[tuple[list[str], str]],
    gitignores: dict[str, list[str]],
    exclude: list[str],
    info: list[str],
) -> None:
    root = Path(tempfile.mkdtemp(prefix="nb-walkprop-"))
    try:
        rels = set()
        for dirs, name in files:
            rel = "/".join([*dirs, name])
            if any(rel.startswith(r + "/") for r in rels) or any(
                r.startswith(rel + "/") for r in rels
            ):
                continue  # a file where a folder of the same name is
            target = root / rel
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                continue
            target.write_text("x = 1\n")
            rels.add(rel)
        for folder, patterns in gitignores.items():
            where = root / folder
            if where.is_dir():
                (where / ".gitignore").write_text("\n".join(patterns) + "\n")
        if info:
            (root / ".git" / "info").mkdir(parents=True)
            (root / ".git" / "info" / "exclude").write_text("\n".join(info) + "\n")
        whole = {item.path: item for item in iter_workspace(root, exclude=exclude)}
        every = sorted(
            os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
            for d, _, names in os.walk(root)
            for f in names
            if f != ".gitignore" and ".git" not in Path(d).relative_to(root).parts
        )
        for rel in every:
            alone = list(iter_paths(root, [rel], exclude=exclude))
            assert alone == ([whole[rel]] if rel in whole else []), rel
        kept = {
            i.path for i in iter_paths(root, every, exclude=exclude) if isinstance(i, WalkedFile)
        }
        assert kept == {p for p, i in whole.items() if isinstance(i, WalkedFile)}
    finally:
        shutil.rmtree(root)
