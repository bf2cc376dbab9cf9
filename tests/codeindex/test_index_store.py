"""The persisted code index: rows per file, incremental re-index, ignores, tombstones, anchors."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex import indexer as indexer_module
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config
from nano_brain.errors import InvalidInputError, NotFoundError
from nano_brain.search import validate_request
from nano_brain.store import CodeStore

from .conftest import write_tree

FIXTURE = {
    "pkg/__init__.py": "",
    "pkg/util.py": '''
        """Helpers."""

        def helper(x):
            """Double a number."""
            return x * 2

        def unused():
            return 0
        ''',
    "pkg/app.py": """
        from .util import helper

        class Service:
            def run(self):
                return self.step() + helper(1)

            def step(self):
                return helper(2)

        def main():
            Service().run()
            return mystery()
        """,
    "web/api.ts": """
        import { format } from './fmt';

        export interface Shape { area(): number; }

        export class Box implements Shape {
            area(): number { return format(1); }
        }
        """,
    "web/fmt.ts": "export function format(n: number): number { return n; }\n",
    "go/main.go": """
        package main

        type Server struct{}

        func (s *Server) Start() { s.listen() }

        func (s *Server) listen() {}

        func main() { (&Server{}).Start() }
        """,
    "rs/src/lib.rs": """
        pub struct Counter { n: u32 }

        pub enum Mode { A, B }

        pub trait Tick { fn tick(&mut self); }

        impl Counter {
            pub fn new() -> Self { Counter { n: 0 } }
            pub fn bump(&mut self) { self.n += 1; }
        }

        pub fn make() -> Counter { Counter::new() }
        """,
    "java/com/x/Greeter.java": """
        package com.x;

        public class Greeter {
            public String greet() { return name(); }
            private String name() { return "x"; }
        }
        """,
    "docs/guide.md": "# Guide\n\nHow the frobnicator works.\n",
    "notes.txt": "plain text about quuxification\n",
}


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_tree(workspace, FIXTURE)
    return workspace


@pytest.fixture
def code(ws: Path, lexical_brain: Brain) -> Iterator[CodeIndex]:
    yield CodeIndex(lexical_brain)


def _kinds(code: CodeIndex, path: str) -> dict[str, str]:
    rows = code.brain.store._rows(
        "SELECT s.qualified_name, s.kind FROM code_symbols s JOIN code_files f "
        "ON f.id = s.file_id WHERE f.path = ?",
        (path,),
    )
    return {q.split("::", 1)[1]: k for q, k in rows}


def test_cold_index_persists_symbols_of_every_language(code: CodeIndex) -> None:
    report = code.index()
    assert report.new == 10 and report.source_files == 8 and report.text_files == 2
    assert _kinds(code, "pkg/app.py") == {
        "Service": "class",
        "Service.run": "method",
        "Service.step": "method",
        "main": "function",
    }
    assert _kinds(code, "web/api.ts") == {
        "Shape": "interface",
        "Shape.area": "method",
        "Box": "class",
        "Box.area": "method",
    }
    go = _kinds(code, "go/main.go")
    assert go["Server"] == "struct" and go["main"] == "function"
    assert any(k.endswith("Start") and v == "method" for k, v in go.items())
    rust = _kinds(code, "rs/src/lib.rs")
    assert rust["Counter"] == "struct" and rust["Mode"] == "enum" and rust["Tick"] == "trait"
    assert rust["make"] == "function"
    assert _kinds(code, "java/com/x/Greeter.java") == {
        "Greeter": "class",
        "Greeter.greet": "method",
        "Greeter.name": "method",
    }
    helper = code.resolve_symbol("helper")
    assert helper.qualified_name == "pkg/util.py::helper"
    assert helper.docstring == "Double a number." and helper.signature.startswith("def helper")
    assert (helper.start_line, helper.end_line) == (4, 6)
    # one search document per symbol, plus one per text file
    counts = code.brain.status()["by_kind"]
    assert counts["code"] == report.symbols + 2
    assert code.brain.store.integrity_orphans() == {
        "chunks": 0,
        "vectors": 0,
        "vec_index": 0,
        "fts": 0,
        "tags": 0,
    }


def test_edges_contains_imports_and_resolved_calls(code: CodeIndex) -> None:
    code.index()
    callers = code.callers("pkg/util.py::helper")
    assert sorted((c.caller, c.line, c.how) for c in callers) == [
        ("pkg/app.py::Service.run", 6, "import"),
        ("pkg/app.py::Service.step", 9, "import"),
    ]
    callees = {(c.name, c.callee) for c in code.callees("Service.run")}
    assert callees == {("step", "pkg/app.py::Service.step"), ("helper", "pkg/util.py::helper")}
    # unresolved calls are kept with their bare name, never reported as confident callers
    main_calls = {c.name: c.callee for c in code.callees("pkg/app.py::main")}
    assert main_calls["mystery"] is None
    assert main_calls["run"] == "pkg/app.py::Service.run"  # a method of a fresh instance
    assert code.callers("pkg/util.py::unused") == []
    assert [c.caller for c in code.callers("web/fmt.ts::format")] == ["web/api.ts::Box.area"]
    greeter = "java/com/x/Greeter.java::Greeter"
    assert [c.caller for c in code.callers("Greeter.name")] == [f"{greeter}.greet"]
    rows = dict(code.brain.store._rows("SELECT kind, count(*) FROM code_edges GROUP BY kind"))
    # nesting lives in code_symbols.parent; no edge row repeats it
    assert "contains" not in rows and rows["imports"] == 2 and rows["calls"] >= 8
    nested = code.brain.store._rows("SELECT count(*) FROM code_symbols WHERE parent IS NOT NULL")
    assert nested[0][0] >= 10
    ws_ids = code.brain.store._rows("SELECT DISTINCT workspace_id FROM code_edges")
    assert ws_ids == [(code.brain.workspace_id,)]


def test_impact_is_transitive_and_brings_anchored_notes(code: CodeIndex) -> None:
    code.index()
    note = code.brain.write("helper must stay pure: callers cache its results", title="pure")
    code.anchor(note.document.id, "pkg/app.py::Service.run")
    impact = code.impact("helper", depth=3)
    assert [(a.qualified_name, a.depth) for a in impact.affected] == [
        ("pkg/app.py::Service.run", 1),
        ("pkg/app.py::Service.step", 1),
        ("pkg/app.py::main", 2),  # through `Service().run()`
    ]
    assert [(n.note_id, n.state) for n in impact.notes] == [(note.document.id, "ok")]
    shallow = code.impact("Service.step", depth=1)
    assert [a.qualified_name for a in shallow.affected] == ["pkg/app.py::Service.run"]
    with pytest.raises(InvalidInputError):
        code.impact("helper", depth=0)


def test_no_change_reindex_reads_nothing(code: CodeIndex, ws: Path) -> None:
    code.index()
    again = code.index()
    assert (again.unchanged, again.parsed, again.new, again.resolved) == (10, 0, 0, False)
    os.utime(ws / "pkg/util.py")  # new mtime, same bytes: re-hashed, not re-parsed
    touched = code.index()
    assert (touched.touched, touched.parsed) == (1, 0)


def test_edit_replaces_exactly_the_files_rows_and_rebinds_other_files(
    code: CodeIndex, ws: Path
) -> None:
    code.index()
    store = code.brain.store
    run_doc = code.resolve_symbol("Service.run").doc_id
    other_rows = store._rows(
        "SELECT s.id FROM code_symbols s JOIN code_files f ON f.id = s.file_id "
        "WHERE f.path != 'pkg/util.py' ORDER BY s.id"
    )
    # rename helper -> twice: the callers in app.py no longer resolve (app.py is unchanged)
    (ws / "pkg/util.py").write_text(
        '"""Helpers."""\n\ndef twice(x):\n    return x * 2\n\ndef unused():\n    return 0\n'
    )
    report = code.index()
    assert (report.changed, report.parsed, report.resolved) == (1, 1, True)
    with pytest.raises(NotFoundError):
        code.resolve_symbol("pkg/util.py::helper")
    assert code.resolve_symbol("twice").path == "pkg/util.py"
    assert all(c.callee is None for c in code.callees("Service.run") if c.name == "helper")
    assert (
        store._rows(
            "SELECT s.id FROM code_symbols s JOIN code_files f ON f.id = s.file_id "
            "WHERE f.path != 'pkg/util.py' ORDER BY s.id"
        )
        == other_rows
    )
    # documents: helper's went away, twice's arrived, unchanged symbols kept theirs
    assert code.resolve_symbol("Service.run").doc_id == run_doc
    assert store.find_by_source("code://pkg/util.py::helper") is None
    assert store.find_by_source("code://pkg/util.py::twice") is not None
    # and back: the callers resolve again without app.py being re-parsed
    (ws / "pkg/util.py").write_text("def helper(x):\n    return x\n")
    back = code.index()
    assert back.parsed == 1
    assert len(code.callers("pkg/util.py::helper")) == 2
    assert store.integrity_orphans()["chunks"] == 0


def test_rename_and_delete_a_file(code: CodeIndex, ws: Path) -> None:
    code.index()
    (ws / "pkg/util.py").rename(ws / "pkg/tools.py")
    (ws / "notes.txt").unlink()
    report = code.index()
    assert (report.deleted, report.new) == (2, 1)
    assert code.resolve_symbol("helper").qualified_name == "pkg/tools.py::helper"
    store = code.brain.store
    assert store._rows("SELECT count(*) FROM code_files WHERE path = 'pkg/util.py'")[0][0] == 0
    assert store.find_by_source("code://pkg/util.py::helper") is None
    assert store.find_by_source("notes.txt") is None
    # from .util import helper is now dangling: no confident callers anywhere
    assert code.callers("pkg/tools.py::helper") == []
    orphans = store._rows(
        "SELECT count(*) FROM code_symbols s LEFT JOIN code_files f ON f.id = s.file_id "
        "WHERE f.id IS NULL"
    )[0][0]
    assert orphans == 0


def test_gitignore_exclude_and_skip_reasons(workspace: Path, lexical_brain: Brain) -> None:
    write_tree(
        workspace,
        {
            ".gitignore": "generated/\n*.gen.py\n",
            "keep.py": "def kept():\n    pass\n",
            "generated/out.py": "def nope():\n    pass\n",
            "x.gen.py": "def nope2():\n    pass\n",
            "node_modules/lib/index.js": "function vendored() {}\n",
            "secret/s.py": "def hidden():\n    pass\n",
            "big.py": "x = 1\n" * 50,
            "blob.py": b"\x00\x01binary",
        },
    )
    code = CodeIndex(lexical_brain, exclude=["secret/"], max_bytes=200)
    report = code.index()
    assert [s.name for s in code.symbols("kept")] == ["kept"]
    for name in ("nope", "nope2", "vendored", "hidden"):
        assert code.symbols(name) == []
    assert report.skipped == {
        "gitignored": 2,
        "vendored": 1,
        "excluded": 1,
        "too_large": 1,
        "binary": 1,
    }
    assert ("generated/", "gitignored") in report.skipped_paths


def test_deleted_code_document_stays_deleted(code: CodeIndex, ws: Path) -> None:
    code.index()
    brain = code.brain
    doc = brain.store.find_by_source("code://pkg/util.py::helper")
    assert doc is not None
    brain.delete(f"#{doc.uid}")
    assert brain.tombstones()[0]["source"] == "code://pkg/util.py::helper"
    # the symbol stays navigable, only its search document is gone
    assert code.resolve_symbol("helper").doc_id is None
    (ws / "pkg/util.py").write_text(
        (ws / "pkg/util.py").read_text() + "\ndef extra():\n    return helper(3)\n"
    )
    report = code.index()
    assert report.changed == 1
    assert brain.store.find_by_source("code://pkg/util.py::helper") is None
    assert brain.store.find_by_source("code://pkg/util.py::extra") is not None
    request = validate_request(query="Double a number", mode="lexical", kind=["code"])
    assert all(h.source_path != "code://pkg/util.py::helper" for h in brain.search(request).results)


def test_lexical_search_finds_symbols_and_docs_before_any_embedding(code: CodeIndex) -> None:
    report = code.index()
    assert report.pending_embeddings == report.symbols + 2  # vectors wait; search does not
    hits = code.search("Double a number", mode="lexical").results
    assert hits[0].source_path == "code://pkg/util.py::helper" and hits[0].kind == "code"
    assert hits[0].lines == (4, 6)
    docs = code.search("frobnicator", mode="lexical").results
    assert [h.source_path for h in docs] == ["docs/guide.md"]
    # kind=note searches do not see code
    note_req = validate_request(query="Double a number", mode="lexical", kind=["note"])
    assert code.brain.search(note_req).results == []


def test_stale_anchors_when_a_symbol_changes_or_disappears(code: CodeIndex, ws: Path) -> None:
    code.index()
    brain = code.brain
    a = brain.write("step is called once per run", title="step note").document.id
    b = brain.write("unused is kept for the plugin API", title="unused note").document.id
    code.anchor(a, "Service.step")
    code.anchor(b, "pkg/util.py::unused")
    assert code.stale_anchors() == []
    app = (ws / "pkg/app.py").read_text().replace("return helper(2)", "return helper(3)")
    (ws / "pkg/app.py").write_text(app)
    (ws / "pkg/util.py").write_text("def helper(x):\n    return x\n")
    code.index()
    stale = {s.note_id: s.state for s in code.stale_anchors()}
    assert stale == {a: "changed", b: "missing"}
    code.refresh_anchor(a, "Service.step")
    assert {s.note_id for s in code.stale_anchors()} == {b}
    brain.delete(f"#{b}")  # the note's anchors go with it
    assert code.stale_anchors() == []


def test_parallel_pool_gives_the_same_rows(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"m{i}.py": f"def f{i}():\n    return f{(i + 1) % 60}()\n" for i in range(60)}
    files.update({f"m{i}.py": f"from m{(i + 1) % 60} import f{(i + 1) % 60}\n"
                  f"def f{i}():\n    return f{(i + 1) % 60}()\n" for i in range(60)})  # fmt: skip
    write_tree(workspace, files)
    monkeypatch.setattr(indexer_module, "POOL_THRESHOLD", 10)
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config) as brain:
        report = CodeIndex(brain, workers=2).index()
        assert report.workers == 2 and report.new == 60
        assert report.symbols == 60 and report.resolved_calls == 60
        assert [c.caller for c in CodeIndex(brain).callers("m0.py::f0")] == ["m59.py::f59"]


def test_code_store_counts_and_ambiguous_symbol(code: CodeIndex, ws: Path) -> None:
    write_tree(ws, {"other.py": "def helper():\n    pass\n"})
    code.index()
    with pytest.raises(InvalidInputError, match="names 2 symbols"):
        code.callers("helper")
    counts = CodeStore(code.brain.store).counts()
    assert counts["files"] == 11 and counts["symbols"] == code.index().symbols
    assert [s.qualified_name for s in code.symbols("help")] == [
        "other.py::helper",
        "pkg/util.py::helper",
    ]


def test_incremental_resolution_reaches_subclasses_and_only_affected_calls(
    workspace: Path, lexical_brain: Brain
) -> None:
    write_tree(
        workspace,
        {
            "base.py": "class Base:\n    def other(self):\n        pass\n",
            "child.py": """
                from base import Base

                class Child(Base):
                    def run(self):
                        return self.greet()

                class GrandChild(Child):
                    def go(self):
                        return self.greet()
                """,
            "noise.py": "def a():\n    return b()\n\ndef b():\n    return a()\n",
        },
    )
    code = CodeIndex(lexical_brain)
    code.index()
    assert all(c.callee is None for c in code.callees("Child.run"))
    (workspace / "base.py").write_text(
        "class Base:\n    def other(self):\n        pass\n\n    def greet(self):\n        pass\n"
    )
    report = code.index()
    assert report.parsed == 1
    # the calls to greet from both subclasses now resolve, although their file is unchanged
    assert sorted(c.caller for c in code.callers("base.py::Base.greet")) == [
        "child.py::Child.run",
        "child.py::GrandChild.go",
    ]
    # noise.py's calls (a, b) were not re-resolved: their names are not affected
    assert report.reresolved_calls == 2
