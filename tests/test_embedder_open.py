"""A file opened in the editor has its code embedded before the rest of the queue: the
sidecar's didOpen moves its pending chunks up (`Brain.prioritize_embedding`), and a busy
store does not fail the open."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from lsprotocol import types as lsp

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.errors import StoreError
from nano_brain.lsp.handlers_documents import did_open
from nano_brain.store import priority

from .conftest import TinyEmbedder

_PARAMS = lsp.DidOpenTextDocumentParams(
    text_document=lsp.TextDocumentItem(
        uri="file:///ws/x.py", language_id="python", version=1, text=""
    )
)


def _server(brain: Any, rel: str, calls: list[str]) -> Any:
    ctx = SimpleNamespace(folder=SimpleNamespace(brain=brain), rel=rel)
    documents = SimpleNamespace(
        context=lambda uri: ctx,
        prefetch=lambda c: calls.append("prefetch"),
        publish=lambda c: calls.append("publish"),
    )
    return cast(Any, SimpleNamespace(documents=documents))


def _tiers(brain: Brain, path: str) -> set[int]:
    rows = brain.store._rows(
        "SELECT c.priority FROM chunks c JOIN code_symbols s ON s.doc_id = c.doc_id "
        "JOIN code_files f ON f.id = s.file_id WHERE f.path = ?",
        (path,),
    )
    return {r[0] for r in rows}


def test_opening_a_file_moves_its_pending_code_up(workspace: Path) -> None:
    (workspace / "a.py").write_text("def alpha():\n    return 1\n\ndef beta():\n    return 2\n")
    (workspace / "b.py").write_text("def gamma():\n    return 3\n")
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        CodeIndex(brain).index()
        assert _tiers(brain, "a.py") == {priority.CODE}
        calls: list[str] = []
        did_open(_server(brain, "a.py", calls), _PARAMS)
        assert calls == ["prefetch", "publish"]  # the hints first
        assert _tiers(brain, "a.py") == {priority.OPEN}
        assert _tiers(brain, "b.py") == {priority.CODE}
        first = brain.store.pending_chunks(10, "code")
        assert [c.title.split("\n")[0] for c in first[:2]] == ["a.py::alpha", "a.py::beta"]


def test_a_busy_store_does_not_fail_the_open() -> None:
    def busy(paths: object) -> int:
        raise StoreError("database is locked")

    calls: list[str] = []
    did_open(_server(SimpleNamespace(prioritize_embedding=busy), "a.py", calls), _PARAMS)
    assert calls == ["prefetch", "publish"]
