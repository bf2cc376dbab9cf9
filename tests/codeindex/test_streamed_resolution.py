"""A full resolution reads calls from the store a batch of files at a time and keeps a bounded
set of definitions between batches: it binds every call as one graph of the whole workspace,
held in memory, does; and a run that stops between its batches is finished by the next."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import nano_brain
from nano_brain import Brain
from nano_brain.codeindex import CodeGraph, FileIndex, _rebind, indexer, parse_file
from nano_brain.codeindex.service import CodeIndex
from nano_brain.codeindex.stored import StoredDefinitions
from nano_brain.config import load_config
from nano_brain.store import CodeStore

from .conftest import write_tree
from .test_bulk_and_incremental import _big_tree, _from_scratch, _rows
from .test_index_store import FIXTURE

Call = tuple[str, str | None, str, str | None, int, str | None, str]


def _brain(root: Path, db: Path) -> Brain:
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=db)


def _stored(brain: Brain) -> Counter[Call]:
    return Counter(
        brain.store._rows(
            "SELECT f.path, e.source, e.name, e.receiver, e.line, e.target, e.how "
            "FROM code_edges e JOIN code_files f ON f.id = e.file_id WHERE e.kind = 'calls'"
        )
    )


def _in_memory(root: Path, brain: Brain) -> Counter[Call]:
    """Every indexed source file parsed again and resolved as one graph held in memory."""
    paths = [row[1] for row in CodeStore(brain.store).graph_files()]
    graph = CodeGraph(parse_file(p, (root / p).read_bytes()) for p in paths)
    return Counter(
        (r.site.path, r.site.caller, r.site.name, r.site.receiver, r.site.line, r.target, r.how)
        for r in graph.references
    )


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Batches of a few calls and few definitions kept (never more than the limit, or the
    files of one load); yields how many times each file's definitions were read."""
    monkeypatch.setattr(_rebind, "RESOLVE_BATCH_CALLS", 40)
    monkeypatch.setattr(_rebind, "DEFINITIONS_KEPT", 60)
    reads: Counter[str] = Counter()
    original = StoredDefinitions.__call__

    def spy(self: StoredDefinitions, wanted: list[str]) -> list[FileIndex]:
        reads.update(p for p in wanted if p not in self._kept)
        loaded = original(self, wanted)
        newest = sum(1 + len(f.symbols) + len(f.imports) + len(f.assignments) for f in loaded)
        assert self._records <= max(60, newest)
        return loaded

    monkeypatch.setattr(StoredDefinitions, "__call__", spy)
    return reads


@pytest.fixture
def resolve_progress(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    steps: list[tuple[int, int]] = []
    original = indexer.Indexer._resolve_all

    def spy(self: indexer.Indexer, notify: indexer.IndexProgress) -> tuple[int, int]:
        return original(self, lambda phase, done, total: steps.append((done, total)))

    monkeypatch.setattr(indexer.Indexer, "_resolve_all", spy)
    yield steps


def test_a_streamed_resolution_of_real_code_equals_one_graph_in_memory(
    tmp_path: Path, small_batches: Counter[str], resolve_progress: list[tuple[int, int]]
) -> None:
    # this package's own source: real code no test here was written for
    root = Path(nano_brain.__file__).parent
    with _brain(root, tmp_path / "own.db") as brain:
        report = CodeIndex(brain, workers=2).index()
        assert report.calls > 1000
        expected = _in_memory(root, brain)
        assert _stored(brain) == expected
        assert sum(1 for call in expected.elements() if call[5] is not None) > report.calls // 4
    # many batches, and definitions read again once the kept ones were let go
    assert len(resolve_progress) > 20
    assert resolve_progress[-1] == (report.calls, report.calls)
    assert max(small_batches.values()) > 1


def test_a_streamed_resolution_of_every_language_equals_one_graph_in_memory(
    tmp_path: Path, small_batches: Counter[str]
) -> None:
    root = tmp_path / "ws"
    _big_tree(root, indexer.POOL_THRESHOLD + 8)  # a bulk load
    write_tree(root, FIXTURE)
    with _brain(root, tmp_path / "s.db") as brain:
        report = CodeIndex(brain, workers=1).index()
        assert {"python", "typescript", "go", "rust", "java"} <= {
            row[2] for row in CodeStore(brain.store).graph_files()
        }
        assert report.reresolved_calls == report.calls
        assert _stored(brain) == _in_memory(root, brain)


def test_a_resolution_stopped_between_batches_is_finished_by_the_next_run(
    tmp_path: Path, small_batches: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    _big_tree(root, indexer.POOL_THRESHOLD + 4)
    expected = _from_scratch(root, tmp_path)
    written: list[int] = []
    original = CodeStore.set_call_targets

    def failing(self: CodeStore, updates: list[tuple[str | None, str, int]]) -> None:
        written.append(len(updates))
        if len(written) == 3:
            raise OSError("disk full")
        original(self, updates)

    monkeypatch.setattr(CodeStore, "set_call_targets", failing)
    with _brain(root, tmp_path / "s.db") as brain:
        code = CodeIndex(brain, workers=1)
        with pytest.raises(OSError, match="disk full"):
            code.index()
        # two batches are in; the flag says the rest is not
        assert brain.store.meta_get("code_resolve_pending") == "1"
        assert _rows(brain) != expected
        monkeypatch.setattr(CodeStore, "set_call_targets", original)
        report = code.index()
        assert report.new == 0 and report.resolved
        assert brain.store.meta_get("code_resolve_pending") == "0"
        assert _rows(brain) == expected


def test_an_incremental_run_that_changes_too_much_resolves_everything_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    _big_tree(root, 12)
    streamed: list[bool] = []
    original = indexer.Indexer._resolve_all

    def spy(self: indexer.Indexer, notify: indexer.IndexProgress) -> tuple[int, int]:
        streamed.append(True)
        assert self._fresh == {}  # nothing parsed is held while it runs
        return original(self, notify)

    monkeypatch.setattr(indexer.Indexer, "_resolve_all", spy)
    with _brain(root, tmp_path / "s.db") as brain:
        code = CodeIndex(brain, workers=1)
        code.index()  # a small first index: from what it parsed
        assert streamed == []
        (root / "pkg" / "m3.py").write_text("def helper():\n    run()\n")
        code.index()
        assert streamed == []  # one file: the calls it can rebind, from what it parsed
        monkeypatch.setattr(indexer, "FRESH_RECORDS", 10)
        for i in range(12):
            path = root / "pkg" / f"m{i}.py"
            path.write_text(path.read_text() + "\ndef extra():\n    helper()\n")
        report = code.index()
        assert report.changed == 12
        assert streamed == [True]
        assert _rows(brain) == _from_scratch(root, tmp_path)
