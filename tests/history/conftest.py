"""Real git repositories built in each test, and a Brain on a store beside them.

git runs with no user or system configuration (a developer's aliases, hooks or
`diff.noprefix` must not change what the history index reads) and fixed dates.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import load_config

START = 1_700_000_000


@pytest.fixture(autouse=True)
def _plain_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path_factory.mktemp("gitconfig") / "config"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


class Repo:
    """A git repository in a folder, written and committed to by the test."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = START
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, date: int | None = None) -> str:
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Ada Lovelace",
            "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada Lovelace",
            "GIT_COMMITTER_EMAIL": "ada@example.com",
        }
        if date is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date} +0000"
        out = subprocess.run(
            ["git", *args], cwd=self.path, env=env, capture_output=True, text=True, check=True
        )
        return out.stdout.strip()

    def write(self, rel: str, text: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))

    def move(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str, *, author: str | None = None) -> str:
        self.clock += 3600
        self.git("add", "-A")
        args = ["commit", "-q", "--allow-empty", "-m", message]
        if author:
            args.append(f"--author={author}")
        self.git(*args, date=self.clock)
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


def open_brain(root: Path, db: Path, **history: object) -> Brain:
    """A Brain with no embedding model (history is read by words and links)."""
    overrides: dict[str, object] = {"embedding": {"provider": "none"}}
    if history:
        overrides["history"] = history
    return Brain(root, config=load_config(root, overrides=overrides), db_path=db)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    (tmp_path / "store").mkdir()
    return tmp_path / "store" / "brain.db"


@pytest.fixture
def brain_of(db: Path) -> Iterator[object]:
    opened: list[Brain] = []

    def make(root: Path, **history: object) -> Brain:
        b = open_brain(root, db, **history)
        opened.append(b)
        return b

    yield make
    for b in opened:
        b.close()
