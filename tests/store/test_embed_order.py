"""The embedding queue's order (store/priority.py): notes and sessions, then the code of open
files, of files changed lately, the rest of the code, test code, and commit messages last;
a batch is the first rows of an index walk, not a sort of every pending chunk; the queue is
in the store, so a second process continues where the first stopped; migration 15 gives an
older store's chunks their tiers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
import sqlite_vec

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.store import priority
from nano_brain.store.commits import CommitRows, CommitStore
from nano_brain.store.sqlite._driver import sqlite_module
from nano_brain.store.sqlite.migrations import SCHEMA_VERSION

from ..conftest import TinyEmbedder

REPO = Path(__file__).resolve().parents[2]
#: A marker in each text, and the tier its chunk belongs in.
RANKS = {
    "NOTEMARK": priority.NOTE,
    "OPENFILE": priority.OPEN,
    "RECENTFILE": priority.RECENT,
    "PLAINFILE": priority.CODE,
    "GUIDEMARK": priority.CODE,
    "TESTFILE": priority.TEST,
    "COMMITMARK": priority.COMMIT,
}
FILES = {
    "lib/opened.py": "OPENFILE",
    "lib/recent.py": "RECENTFILE",
    "lib/plain.py": "PLAINFILE",
    "tests/test_plain.py": "TESTFILE",
    "src/widget_test.py": "TESTFILE",
}


def _source(marker: str, n: int = 3) -> str:
    return "".join(
        f"def {marker.lower()}_{i}(value):\n    return '{marker} {i}' + value\n\n" for i in range(n)
    )


class _Recording(TinyEmbedder):
    """Remembers the marker of each text it embeds, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []
        self._seen_lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        with self._seen_lock:
            self.seen.extend(_marker(t) for t in texts)
        return super().embed_documents(texts)


def _marker(text: str) -> str:
    found = [m for m in RANKS if m in text]
    assert len(found) == 1, text
    return found[0]


def _write_files(root: Path) -> None:
    for path, marker in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(_source(marker))
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "guide.md").write_text("# Guide\n\nGUIDEMARK how the widgets fit.\n")


def _commit_row(hash_: str, seq: int, files: list[str]) -> CommitRows:
    return CommitRows(
        hash=hash_, seq=seq, uid=hash_[:12], title="COMMITMARK a commit",
        content="COMMITMARK a commit\n\nbody", content_hash=hash_, metadata={"hash": hash_},
        authored_at=float(seq), committed_at=float(seq),
        chunks=[(0, "COMMITMARK body", "", 1, 3)], files=files,
    )  # fmt: skip


def _brain(
    root: Path, provider: TinyEmbedder, db: Path | None = None, *, test_code: bool = True
) -> Brain:
    """A Brain on `root`; test code embedded too unless `test_code` is off (the default
    config's choice, see test_vector_choice.py), so that every tier is seen here."""
    embedding = {"embed_on_write": False, "batch_size": 2, "test_code": test_code}
    config = load_config(root, overrides={"embedding": embedding})
    return Brain(root, config=config, provider=provider, db_path=db)


def _fill(brain: Brain) -> None:
    """Index the code, write a note and a session, add two commits (the newest changed
    lib/recent.py and a test): all left pending."""
    CodeIndex(brain).index()
    brain.write("NOTEMARK the cache is flushed on deploy")
    brain.write("NOTEMARK a session's summary", kind="session")
    commits = [
        _commit_row("c" * 40, 1, ["lib/plain.py", "lib/opened.py"]),
        _commit_row("d" * 40, 2, ["lib/recent.py", "tests/test_plain.py"]),
    ]
    with brain.store.transaction():
        CommitStore(brain.store).add_commits(commits, now=3.0)


@pytest.fixture
def repo(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The workspace's files; "changed lately" is the newest commit only."""
    _write_files(workspace)
    monkeypatch.setattr("nano_brain.embedder._RECENT_COMMITS", 1)
    yield workspace


def _tiers(brain: Brain) -> dict[str, set[int]]:
    rows = brain.store._rows("SELECT title, body, priority FROM chunks")
    out: dict[str, set[int]] = {}
    for title, body, tier in rows:
        out.setdefault(_marker(f"{title}\n{body}"), set()).add(tier)
    return out


def test_the_queue_runs_notes_open_recent_code_tests_then_commits(repo: Path) -> None:
    model = _Recording()
    with _brain(repo, model) as brain:
        _fill(brain)
        assert brain.prioritize_embedding(["lib/opened.py"]) == 3
        assert brain.prioritize_embedding(["lib/opened.py"]) == 0  # already there
        total = brain.store.pending_count()
        assert brain.embed_pending() == total
        assert brain.store.pending_count() == 0
    assert len(model.seen) == total and set(model.seen) == set(RANKS)
    ranks = [RANKS[m] for m in model.seen]
    assert ranks == sorted(ranks), model.seen


def test_writers_give_each_chunk_its_tier(workspace: Path) -> None:
    _write_files(workspace)
    with _brain(workspace, TinyEmbedder()) as brain:
        _fill(brain)
        tiers = _tiers(brain)
        assert tiers == {
            "NOTEMARK": {priority.NOTE},
            "OPENFILE": {priority.CODE},
            "RECENTFILE": {priority.CODE},
            "PLAINFILE": {priority.CODE},
            "GUIDEMARK": {priority.CODE},
            "TESTFILE": {priority.TEST},
            "COMMITMARK": {priority.COMMIT},
        }
        # a file indexed again has changed lately: its new chunks come before the rest
        (workspace / "lib" / "plain.py").write_text(_source("PLAINFILE", 4))
        (workspace / "lib" / "added.py").write_text(_source("PLAINFILE", 1).replace("_0", "_9"))
        CodeIndex(brain).index()
        rows = brain.store._rows(
            "SELECT d.title, c.priority FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE d.kind = 'code'"
        )
        by_name = {title.split("\n")[0]: tier for title, tier in rows}
        assert by_name["lib/plain.py::plainfile_3"] == priority.RECENT  # new in a changed file
        assert by_name["lib/plain.py::plainfile_0"] == priority.CODE  # unchanged: kept as is
        assert by_name["lib/added.py::plainfile_9"] == priority.CODE  # a new file: no history


def test_files_of_the_newest_commits_move_up_but_not_tests(repo: Path) -> None:
    with _brain(repo, TinyEmbedder()) as brain:
        _fill(brain)
        assert brain.embedder.prioritize_recent() == 3
        assert brain.embedder.prioritize_recent() == 0
        tiers = _tiers(brain)
        assert tiers["RECENTFILE"] == {priority.RECENT}
        assert tiers["PLAINFILE"] == tiers["OPENFILE"] == {priority.CODE}  # an older commit
        assert tiers["TESTFILE"] == {priority.TEST}


def test_open_files_move_up_only_their_pending_code(workspace: Path) -> None:
    _write_files(workspace)
    with _brain(workspace, TinyEmbedder()) as brain:
        _fill(brain)
        assert brain.prioritize_embedding(["no/such/file.py", "docs/guide.md"]) == 1
        assert brain.prioritize_embedding([]) == 0
        brain.embed_pending()
        before = _tiers(brain)
        assert brain.prioritize_embedding(["lib/plain.py"]) == 0  # embedded: nothing to move
        assert _tiers(brain) == before


def test_a_batch_walks_the_pending_index_without_sorting(workspace: Path) -> None:
    _write_files(workspace)
    with _brain(workspace, TinyEmbedder()) as brain:
        _fill(brain)
        statements: list[str] = []
        brain.store._db.set_trace_callback(statements.append)
        try:
            for space in ("text", "code"):
                assert brain.store.pending_chunks(2, space)
        finally:
            brain.store._db.set_trace_callback(None)
        selects = [s for s in statements if "FROM chunks c" in s]
        assert len(selects) == 2
        for sql in selects:
            plan = " | ".join(str(r[-1]) for r in brain.store._rows(f"EXPLAIN QUERY PLAN {sql}"))
            assert "chunks_pending" in plan and "TEMP B-TREE" not in plan, plan


_SECOND_PROCESS = """
import json, sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/server"]
import nano_brain.embedder
from tests.store.test_embed_order import _Recording, _brain
nano_brain.embedder._RECENT_COMMITS = 1  # as the fixture `repo` has it
model = _Recording()
with _brain(Path(sys.argv[2]), model) as brain:
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
    done = brain.embed_pending(limit=limit)
print(json.dumps({"done": done, "seen": model.seen}))
"""


def _embed_in_a_process(root: Path, *limit: int) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'server'}"}
    done = subprocess.run(
        [sys.executable, "-c", _SECOND_PROCESS, str(REPO), str(root), *map(str, limit)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return int(out["done"]), list(out["seen"])


def test_a_second_process_continues_where_the_first_stopped(repo: Path) -> None:
    with _brain(repo, TinyEmbedder()) as brain:
        _fill(brain)
        brain.prioritize_embedding(["lib/opened.py"])
        total = brain.store.pending_count()
    first, seen_first = _embed_in_a_process(repo, 7)
    assert first == len(seen_first) == 7
    rest, seen_rest = _embed_in_a_process(repo)
    # nothing embedded twice, nothing missed, and the order goes on across the two
    assert first + rest == total == len(seen_first) + len(seen_rest)
    ranks = [RANKS[m] for m in seen_first + seen_rest]
    assert ranks == sorted(ranks)
    with _brain(repo, TinyEmbedder()) as brain:
        assert brain.store.pending_count() == 0
        assert brain.store.vector_counts() == {"text": 4, "code": total - 4}


def _rewind_to_14(db: Path) -> None:
    conn = sqlite_module().connect(str(db), isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)  # the k-NN tables' triggers are read when a column goes
    conn.execute("DROP INDEX chunks_pending")
    conn.execute("ALTER TABLE chunks DROP COLUMN priority")
    conn.execute("CREATE INDEX chunks_pending ON chunks (id) WHERE embedded = 0")
    conn.execute("PRAGMA user_version = 14")
    conn.close()


def test_a_schema_14_store_gets_its_tiers_and_keeps_its_queue(workspace: Path) -> None:
    _write_files(workspace)
    db = workspace.parent / "v14.db"
    with _brain(workspace, TinyEmbedder(), db) as brain:
        _fill(brain)
        expected = _tiers(brain)  # as written (the files of recent commits move up later)
        brain.embed_pending(limit=2)  # the notes: the rest stays pending
        pending = brain.store.pending_count()
    _rewind_to_14(db)
    for _ in range(2):  # and once more from 14 with the column there: nothing doubles
        model = _Recording()
        with _brain(workspace, model, db) as brain:
            assert brain.store.schema_version() == SCHEMA_VERSION >= 15
            assert _tiers(brain) == expected
            assert brain.store.pending_count() == pending
            index = brain.store._rows(
                "SELECT sql FROM sqlite_master WHERE name = 'chunks_pending'"
            )[0][0]
            assert "(priority, id)" in index
        conn = sqlite_module().connect(str(db), isolation_level=None)
        conn.execute("PRAGMA user_version = 14")
        conn.close()
    with _brain(workspace, model, db) as brain:
        assert brain.embed_pending() == pending
    # no editor, no git here: what was open or recent elsewhere is code like the rest
    tier_of = {marker: min(tiers) for marker, tiers in expected.items()}
    ranks = [tier_of[m] for m in model.seen]
    assert ranks == sorted(ranks) and "NOTEMARK" not in model.seen
