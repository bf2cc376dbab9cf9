"""An index run killed inside its bulk load is repaired by whichever process opens the store
next (CLI, MCP server, sidecar), not only by the next index run: until then a lexical search
misses the symbols and deleting one would damage the full-text index."""

from __future__ import annotations

import fcntl
import random
from pathlib import Path

from nano_brain import Brain, paths
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.search import validate_request
from nano_brain.store import Store
from nano_brain.store.code import FULLTEXT_PENDING_KEY

from ..faults.harness import generate_tree


def _open(root: Path) -> Brain:
    return Brain(root, config=load_config(root, overrides={"embedding": {"provider": "none"}}))


def _killed_mid_bulk_load(root: Path) -> list[str]:
    """Index a fresh tree, then leave the store as a SIGKILL between the bulk load's commit
    and its full-text rows does (the crash suite reaches this state with real kills);
    returns the symbol names to look for."""
    names = generate_tree(root, random.Random(5), files=60)
    with _open(root) as brain:
        index = CodeIndex(brain, workers=1)
        assert index.index().symbols == 300
        with brain.store.transaction():
            index.code.drop_lookup_indexes(engine=True)
            brain.store.meta_set(FULLTEXT_PENDING_KEY, "1")
            brain.store._exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')")
            brain.store._exec("INSERT INTO chunks_tri (chunks_tri) VALUES ('delete-all')")
    return [n for file_names in names.values() for n in file_names]


def _raw(root: Path) -> Store:
    """The store as it is on disk (a Store alone repairs nothing)."""
    return Store(paths.default_db_path(root), paths.workspace_id(root))


def test_the_next_process_to_open_the_store_repairs_an_interrupted_bulk_load(
    workspace: Path,
) -> None:
    names = _killed_mid_bulk_load(workspace)
    store = _raw(workspace)
    try:
        assert store.integrity_errors() != []  # what the kill left: chunks without FTS rows
    finally:
        store.close()
    with _open(workspace) as brain:  # any front end: no index run needed
        assert brain.store.integrity_errors() == []
        assert {"documents_hash", "chunks_pending"} <= {
            r[0] for r in brain.store._rows("SELECT name FROM sqlite_master")
        }
        assert brain.store.meta_get(FULLTEXT_PENDING_KEY) == "0"
        assert CodeIndex(brain).code.missing_indexes() == []
        for name in names[::37]:
            request = validate_request(query=name, mode="lexical", kind=["code"], track=False)
            assert any(name in hit.title for hit in brain.search(request).results), name


def test_a_bulk_load_under_way_is_left_to_its_run(workspace: Path) -> None:
    _killed_mid_bulk_load(workspace)
    store = _raw(workspace)
    lock = Path(f"{store.path}.index-lock")
    store.close()
    # another process's index run holds the lock: its bulk load is unfinished, not broken
    with open(lock, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with _open(workspace) as brain:
            assert brain.store.meta_get(FULLTEXT_PENDING_KEY) == "1"
        fcntl.flock(held, fcntl.LOCK_UN)
    with _open(workspace) as brain:
        assert brain.store.meta_get(FULLTEXT_PENDING_KEY) == "0"
        assert brain.store.integrity_errors() == []
