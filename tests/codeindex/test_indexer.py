"""An index run pauses the cyclic garbage collector, shortens the thread switch interval, and
always gives both back as it found them."""

from __future__ import annotations

import gc
import random
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex.indexer import POOL_THRESHOLD
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config

from .conftest import write_tree


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was, interval = gc.isenabled(), sys.getswitchinterval()
    yield
    sys.setswitchinterval(interval)
    if was:
        gc.enable()
    else:
        gc.disable()


def _brain(tmp: Path, name: str) -> Brain:
    root = tmp / name
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text(
        "def helper():\n    return 1\n\n\ndef run():\n    helper()\n"
    )
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=tmp / f"{name}.db")


@pytest.mark.usefixtures("collector_restored")
def test_the_collector_is_off_during_a_run_and_back_after_it(tmp_path: Path) -> None:
    gc.enable()
    sys.setswitchinterval(0.005)
    during: list[tuple[bool, float]] = []
    with _brain(tmp_path, "ws") as brain:
        report = CodeIndex(brain, workers=1).index(
            lambda *_: during.append((gc.isenabled(), sys.getswitchinterval()))
        )
        assert report.symbols == 2 and report.resolved_calls == 1
        assert during and all(
            not on and interval == pytest.approx(0.001) for on, interval in during
        )
        assert gc.isenabled() and sys.getswitchinterval() == pytest.approx(0.005)

        # a run that fails midway gives the collector back too
        (brain.root / "pkg" / "b.py").write_text("def other():\n    pass\n")

        def fail(phase: str, done: int, total: int) -> None:
            raise RuntimeError("stop")

        with pytest.raises(RuntimeError, match="stop"):
            CodeIndex(brain, workers=1).index(fail)
        assert gc.isenabled() and sys.getswitchinterval() == pytest.approx(0.005)

        # and a collector that was off stays off
        gc.disable()
        (brain.root / "pkg" / "c.py").write_text("def third():\n    pass\n")
        CodeIndex(brain, workers=1).index()
        assert not gc.isenabled()


@pytest.mark.usefixtures("collector_restored")
def test_overlapping_runs_on_two_stores_leave_the_collector_on(tmp_path: Path) -> None:
    gc.enable()
    sys.setswitchinterval(0.005)
    brains = [_brain(tmp_path, "one"), _brain(tmp_path, "two")]
    started = [threading.Event(), threading.Event()]
    release = [threading.Event(), threading.Event()]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        def hold(phase: str, done: int, total: int) -> None:
            started[i].set()
            release[i].wait(30)

        try:
            CodeIndex(brains[i], workers=1).index(hold)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    try:
        threads[0].start()
        assert started[0].wait(30)
        threads[1].start()
        assert started[1].wait(30)
        # the first run ends while the second is still inside its run: still off
        release[0].set()
        threads[0].join(60)
        assert not gc.isenabled() and sys.getswitchinterval() == pytest.approx(0.001)
        release[1].set()
        threads[1].join(60)
        assert errors == [] and not any(t.is_alive() for t in threads)
        assert gc.isenabled() and sys.getswitchinterval() == pytest.approx(0.005)
    finally:
        for event in release:
            event.set()
        for t in threads:
            if t.is_alive():
                t.join(60)
        for brain in brains:
            brain.close()


def test_a_cold_index_writes_a_few_files_at_a_time_when_they_are_big(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files are parsed biggest first: a batch bounded only by its file count would hold most
    of the bytes, and the writer would wait for the workers, then they for it."""
    from nano_brain.codeindex import indexer

    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(400))  # about 5 KB per file
    sizes = []
    for n in range(60):  # over the pool threshold: the bulk path
        path = root / "pkg" / f"m{n}.py"
        path.write_text(f"def g{n}():\n    pass\n\n\ndef f{n}():\n{body}    return g{n}()\n")
        sizes.append(path.stat().st_size)
    batches: list[int] = []
    write = indexer.Indexer._write_batch

    def counted(self: indexer.Indexer, batch: list, *args: object) -> bool:
        batches.append(len(batch))
        return write(self, batch, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer.Indexer, "_write_batch", counted)
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    with Brain(root, config=config, db_path=tmp_path / "ws.db") as brain:
        run = indexer.Indexer(brain, workers=2, batch_bytes=4 * max(sizes))
        report = run.run()
    assert report.new == 60 and report.symbols == 120 and report.resolved_calls == 60
    assert sum(batches) == 60
    assert max(batches) <= 5 and len(batches) >= 12


def test_a_session_written_during_a_cold_index_keeps_its_changed_files(tmp_path: Path) -> None:
    """A cold index sets the session files trigger aside while it loads; one written meanwhile
    (a harvest) is still listed, and the trigger is back as migration 10 made it."""
    from nano_brain.codeindex import indexer

    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    for n in range(60):
        (root / "pkg" / f"m{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    with Brain(fresh, config=config, db_path=tmp_path / "fresh.db") as other:
        migrated = other.store._rows(
            "SELECT sql FROM sqlite_master WHERE name = 'document_files_session_ai'"
        )
    assert migrated
    with Brain(root, config=config, db_path=tmp_path / "ws.db") as brain:
        written: list[str] = []

        def harvest_meanwhile(phase: str, done: int, total: int) -> None:
            if phase == "parse" and done == 30 and not written:
                with Brain(root, config=config, db_path=tmp_path / "ws.db") as harvest:
                    doc = harvest.write(
                        "Session: refactor m3", title="Refactor", kind="session",
                        metadata={"harvest": {"files_changed": ["pkg/m3.py", "pkg/m4.py"]}},
                    ).document  # fmt: skip
                    written.append(doc.id)

        report = indexer.Indexer(brain, workers=2, batch_bytes=64).run(harvest_meanwhile)
        assert report.new == 60 and written
        rows = brain.store._rows(
            "SELECT f.path FROM document_files f JOIN documents d ON d.id = f.doc_id "
            "WHERE d.uid = ? ORDER BY f.path",
            (written[0],),
        )
        assert [r[0] for r in rows] == ["pkg/m3.py", "pkg/m4.py"]
        trigger = brain.store._rows(
            "SELECT sql FROM sqlite_master WHERE name = 'document_files_session_ai'"
        )
        assert trigger == migrated
        # and a session written after the run is listed by the trigger itself
        files = {"harvest": {"files_changed": ["pkg/m9.py"]}}
        doc = brain.write("Session: later", title="Later", kind="session", metadata=files).document
        assert brain.store._rows(
            "SELECT f.path FROM document_files f JOIN documents d ON d.id = f.doc_id "
            "WHERE d.uid = ?",
            (doc.id,),
        ) == [("pkg/m9.py",)]


def _fulltext_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "nano-brain-fulltext" and t.is_alive()]


def test_full_text_rows_written_during_the_load_match_their_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bulk load hands its symbol chunks to the full-text thread while it parses (here after
    every batch); the result is the same as indexing them at the end, and a load that fails
    midway stops the thread and leaves the repair to the next run."""
    from nano_brain.codeindex import indexer
    from nano_brain.search import validate_request
    from nano_brain.store.code import FULLTEXT_PENDING_KEY

    from ..faults.harness import generate_tree

    monkeypatch.setattr(indexer, "FULLTEXT_STEP_CHUNKS", 1)
    root = tmp_path / "ws"
    names = generate_tree(root, random.Random(8), files=60)
    wanted = [n for file_names in names.values() for n in file_names][::29]
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    handed: list[int] = []
    hand = indexer.Indexer._fulltext_ranges

    def counted(self: indexer.Indexer, *, last: bool) -> None:
        handed.append(len(self._unindexed))
        hand(self, last=last)

    monkeypatch.setattr(indexer.Indexer, "_fulltext_ranges", counted)
    write = indexer.Indexer._write_batch
    calls = {"n": 0}

    def failing(self: indexer.Indexer, *args: object) -> bool:
        calls["n"] += 1
        if calls["n"] == 4:
            raise RuntimeError("disk on fire")
        return write(self, *args)  # type: ignore[arg-type]

    def found_all(brain: Brain) -> None:
        assert _fulltext_threads() == []
        assert brain.store.meta_get(FULLTEXT_PENDING_KEY) == "0"
        assert brain.store.integrity_errors() == []
        for name in wanted:
            request = validate_request(query=name, mode="lexical", kind=["code"], track=False)
            assert any(name in hit.title for hit in brain.search(request).results), name

    with Brain(root, config=config, db_path=tmp_path / "ok.db") as brain:
        report = indexer.Indexer(brain, workers=2, batch_bytes=64).run()
        assert report.symbols == sum(len(v) for v in names.values())
        assert len([n for n in handed if n]) >= 2  # ranges went over while it parsed
        found_all(brain)

    monkeypatch.setattr(indexer.Indexer, "_write_batch", failing)
    with Brain(root, config=config, db_path=tmp_path / "failed.db") as brain:
        with pytest.raises(RuntimeError, match="disk on fire"):
            indexer.Indexer(brain, workers=2, batch_bytes=64).run()
        assert _fulltext_threads() == []
        assert brain.store.meta_get(FULLTEXT_PENDING_KEY) == "1"
        monkeypatch.setattr(indexer.Indexer, "_write_batch", write)
        # the next run repairs the full-text indexes and indexes the rest
        indexer.Indexer(brain, workers=2, batch_bytes=64).run()
        found_all(brain)


def test_symbol_documents_keep_their_text_in_their_chunk_only(
    workspace: Path, lexical_brain: Brain
) -> None:
    alpha = 'def alpha(x):\n    """Doubles x."""\n    return 2 * x\n'
    files = {f"m{i:02d}.py": f"def f{i}():\n    return {i}\n" for i in range(POOL_THRESHOLD)}
    write_tree(workspace, {**files, "a.py": alpha})
    code = CodeIndex(lexical_brain, workers=2)
    assert code.index().workers == 2  # the bulk load of a first index
    store = lexical_brain.store.local

    def written(source: str) -> str:
        rows = store._rows("SELECT content FROM documents WHERE source_path = ?", (source,))
        assert len(rows) == 1
        return str(rows[0][0])

    # the text is written once, in the chunk, and read back as the document's
    assert written("code://a.py::alpha") == ""
    assert lexical_brain.get("code://a.py::alpha").content == alpha.strip()
    # the same for a file re-indexed alone
    beta = "def beta():\n    return alpha(3)\n"
    (workspace / "a.py").write_text(alpha + "\n\n" + beta)
    code.index(paths=["a.py"])
    assert written("code://a.py::beta") == ""
    assert lexical_brain.get("code://a.py::beta").content == beta.strip()
    assert lexical_brain.get("code://a.py::alpha").content == alpha.strip()
    # a document written with its text (as every one was before) reads that text
    with store.transaction():
        store._exec(
            "UPDATE documents SET content = 'as stored' WHERE source_path = ?",
            ("code://m00.py::f0",),
        )
    assert lexical_brain.get("code://m00.py::f0").content == "as stored"
