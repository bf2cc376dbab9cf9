"""What the fault suites share: real front ends as subprocesses, unique notes, store checks.

Every process here is a real `nano-brain` (CLI, `mcp`, `serve`, `lsp`) started with the test's
own isolated XDG dirs (set by the autouse fixture in tests/conftest.py), so the test process
opens the very store they write. Each note carries a token no other note has: a note is found
by it, and a lost or duplicated note is countable.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.search import validate_request

from ..mcp.conftest import nano_brain_command

#: Words the generated notes are made of (a sentence-embedding model gets real text).
_WORDS = (
    "cache invoice refund ledger retry queue schema migration index token parser socket "
    "thread timeout budget vector search store commit rollback journal snapshot checksum "
    "deploy release feature config logger handler session worker signal process cursor"
).split()


def subprocess_env() -> dict[str, str]:
    """This test's environment (its isolated XDG dirs, the shared model cache) for a child."""
    return {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}


def nano_brain(*args: str) -> list[str]:
    return [*nano_brain_command(), *args]


@dataclass(frozen=True)
class Note:
    """A note a writer sent: its token finds it, and the stored document holds its content
    whole (the sidecar puts a title line before a decision's text)."""

    token: str
    content: str
    id: str | None = None

    def acked(self, doc_id: str) -> Note:
        return Note(self.token, self.content, doc_id)


def make_note(rng: random.Random, token: str, *, paragraphs: int = 1) -> Note:
    """A note holding ``token`` once; ``paragraphs`` of about 1 KB each (many chunks when
    large, so its embedding takes a while)."""
    parts = [f"Note {token}: " + " ".join(rng.choice(_WORDS) for _ in range(12)) + "."]
    for _ in range(paragraphs - 1):
        parts.append(" ".join(rng.choice(_WORDS) for _ in range(160)) + ".")
    return Note(token, "\n\n".join(parts))


@dataclass
class Ledger:
    """What writers were told: acknowledged notes, and writes cut off by a kill or a crash."""

    acked: list[Note] = field(default_factory=list)
    in_flight: list[Note] = field(default_factory=list)


@dataclass
class StoreReport:
    documents: int
    chunks: int
    vectors: int
    pending: int
    in_flight_found: int


def lexical_brain(workspace: Path) -> Brain:
    """A Brain on the workspace's store that loads no model (checks only)."""
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    return Brain(workspace, config=config)


def find_by_token(brain: Brain, token: str) -> list[str]:
    """Ids of the documents holding ``token`` that a lexical search for it returns (the search
    may add near matches, such as another note's token sharing its trigrams)."""
    request = validate_request(
        query=token, mode="lexical", limit=20, include_content=True, track=False
    )
    return [hit.id for hit in brain.search(request).results if token in (hit.content or "")]


def check_store(workspace: Path, ledger: Ledger) -> StoreReport:
    """Everything a crash must not break, asserted on the store as the next process finds it:
    SQLite's and both full-text indexes' integrity checks, no orphan rows, every vector
    belonging to an embedded chunk, every acknowledged note there exactly once with its
    content and lexically findable, every cut-off write there at most once and whole."""
    with lexical_brain(workspace) as brain:
        assert brain.store.integrity_errors() == []
        orphans = brain.store.integrity_orphans()
        assert not any(orphans.values()), orphans
        status = brain.status()
        assert status["chunks"] - status["pending_embeddings"] == status["vectors"], status
        for note in ledger.acked:
            assert note.id is not None
            found = find_by_token(brain, note.token)
            assert found == [note.id], (note.token, note.id, found)
            assert note.content in (brain.get(note.id).content or "")
        found = 0
        for note in ledger.in_flight:
            ids = find_by_token(brain, note.token)
            assert len(ids) <= 1, (note.token, ids)
            if ids:
                assert note.content in (brain.get(ids[0]).content or "")
                found += 1
        return StoreReport(
            status["documents"],
            status["chunks"],
            status["vectors"],
            status["pending_embeddings"],
            found,
        )


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL a process started with ``start_new_session`` and all it started."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=60)


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run one CLI command to its end."""
    return subprocess.run(
        nano_brain(*args), capture_output=True, text=True, env=subprocess_env(), timeout=timeout
    )


def cli_json(*args: str, timeout: float = 300) -> Any:
    done = cli(*args, "--json", timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@contextmanager
def popen(*args: str) -> Iterator[subprocess.Popen[str]]:
    """A CLI command in its own session (killed with its children if still running)."""
    proc = subprocess.Popen(
        nano_brain(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            kill_group(proc)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def announce(capsys: pytest.CaptureFixture[str], line: str) -> None:
    """Print a suite's numbers past pytest's capture: CI's log keeps them for the record."""
    with capsys.disabled():
        print(f"\n{line}")


def wait_until(predicate: Any, timeout: float, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def generate_tree(root: Path, rng: random.Random, *, files: int) -> dict[str, list[str]]:
    """A Python package of ``files`` modules calling each other; returns each file's symbol
    names (functions, a class, its method), all unique in the tree."""
    expected: dict[str, list[str]] = {}
    for i in range(files):
        rel = f"pkg{i % 4}/mod{i}.py"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        other = rng.randrange(files)
        funcs = [f"step{i}x{k}" for k in range(3)]
        lines = [f'"""Module {i}."""', f"from pkg{other % 4}.mod{other} import step{other}x0", ""]
        for k, name in enumerate(funcs):
            lines += [
                f"def {name}(value):",
                f'    """Step {k} of module {i}: {rng.choice(("add", "scale", "clip"))}."""',
                f"    return step{other}x0(value) + {k}",
                "",
            ]
        lines += [
            f"class Stage{i}:",
            f"    def run{i}(self, value):",
            f"        return {funcs[1]}(value)",
            "",
        ]
        path.write_text("\n".join(lines), encoding="utf-8")
        expected[rel] = [*funcs, f"Stage{i}", f"run{i}"]
    return expected
