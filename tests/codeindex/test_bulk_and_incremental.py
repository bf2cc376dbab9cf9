"""The two write paths agree: a cold (bulk) index, an incremental one, and one re-resolved
after random edits give the same rows as indexing the final tree from scratch."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex import indexer as indexer_module
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config
from nano_brain.indexing import index_workspace
from nano_brain.search import validate_request
from nano_brain.store import CodeStore

FUNCS = ["run", "helper", "load", "save", "parse", "close"]
CLASSES = ["Base", "Child", "Item", "Store"]
METHODS = ["get", "put", "run", "close"]


@dataclass
class Spec:
    """One generated module: imports, top-level functions, classes (name, base, methods)."""

    imports: list[str] = field(default_factory=list)
    funcs: list[str] = field(default_factory=list)
    classes: list[tuple[str, str | None, list[str]]] = field(default_factory=list)
    call_seed: int = 0


def _spec(rng: random.Random, modules: list[str], me: str) -> Spec:
    others = [m for m in modules if m != me]
    spec = Spec(call_seed=rng.randrange(1 << 30))
    for _ in range(rng.randint(0, 3)):
        m = rng.choice(others)
        kind = rng.random()
        name = rng.choice(FUNCS + CLASSES)
        if kind < 0.4:
            spec.imports.append(f"from .{m} import {name}")
        elif kind < 0.6:
            spec.imports.append(f"from .{m} import {name} as {name}_{m}")
        elif kind < 0.8:
            spec.imports.append(f"from . import {m}")
        else:
            spec.imports.append(f"import pkg.{m} as {m}_mod")
    spec.funcs = rng.sample(FUNCS, rng.randint(0, 3))
    for cls in rng.sample(CLASSES, rng.randint(0, 2)):
        bases = [c for c in CLASSES if c != cls] + [None, None]
        spec.classes.append((cls, rng.choice(bases), rng.sample(METHODS, rng.randint(1, 3))))
    return spec


def _calls(rng: random.Random, spec: Spec, in_class: bool) -> list[str]:
    bound: list[str] = list(spec.funcs) + [c[0] for c in spec.classes]
    modules: list[str] = []
    for imp in spec.imports:
        words = imp.split()
        if " as " in imp:
            (modules if imp.startswith("import") else bound).append(words[-1])
        elif imp.startswith("from . import"):
            modules.append(words[-1])
        else:
            bound.append(words[-1])
    out: list[str] = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.3 and bound:
            out.append(f"{rng.choice(bound)}()")
        elif r < 0.45 and modules:
            out.append(f"{rng.choice(modules)}.{rng.choice(FUNCS + CLASSES)}()")
        elif r < 0.6 and in_class:
            out.append(f"self.{rng.choice(METHODS)}()")
        elif r < 0.7 and in_class:
            out.append(f"super().{rng.choice(METHODS)}()")
        elif r < 0.85 and bound:
            out.append(f"obj = {rng.choice(bound)}()\n        obj.{rng.choice(METHODS)}()")
        else:
            out.append(f"{rng.choice(FUNCS)}()")
    return out


def _source(spec: Spec) -> str:
    rng = random.Random(spec.call_seed)
    lines = list(spec.imports) + [""]
    for name in spec.funcs:
        lines.append(f"def {name}():")
        lines += [f"    {c}" for c in _calls(rng, spec, False)]
        lines.append("")
    for cls, base, methods in spec.classes:
        lines.append(f"class {cls}({base}):" if base else f"class {cls}:")
        for m in methods:
            lines.append(f"    def {m}(self):")
            lines += [f"        {c}" for c in _calls(rng, spec, True)]
        lines.append("")
    return "\n".join(lines) + "\n"


def _write(root: Path, specs: dict[str, Spec]) -> None:
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("from .m0 import helper\n")
    for name, spec in specs.items():
        (root / "pkg" / f"{name}.py").write_text(_source(spec))


def _brain(root: Path, db: Path) -> Brain:
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=db)


def _rows(brain: Brain) -> dict[str, set[tuple[object, ...]]]:
    q = brain.store._rows
    return {
        "calls": set(
            q(
                "SELECT f.path, e.source, e.name, e.receiver, e.expression, e.line, e.target, "
                "e.how FROM code_edges e JOIN code_files f ON f.id = e.file_id "
                "WHERE e.kind = 'calls'"
            )
        ),
        "other_edges": set(
            q(
                "SELECT f.path, e.kind, e.source, e.name, e.expression, e.module, e.alias, e.line "
                "FROM code_edges e JOIN code_files f ON f.id = e.file_id WHERE e.kind != 'calls'"
            )
        ),
        "symbols": set(
            q(
                "SELECT s.qualified_name, s.kind, s.parent, s.signature, s.start_line, "
                "s.end_line, s.sha256, s.bases, d.title, c.title, c.body FROM code_symbols s "
                "JOIN documents d ON d.id = s.doc_id JOIN chunks c ON c.doc_id = d.id"
            )
        ),
    }


def _from_scratch(root: Path, tmp: Path) -> dict[str, set[tuple[object, ...]]]:
    db = tmp / f"scratch-{random.random()}.db"
    with _brain(root, db) as brain:
        CodeIndex(brain, workers=1).index()
        return _rows(brain)


@pytest.mark.parametrize(("seed", "named"), [(1, False), (2, False), (3, False), (4, True),
                                             (5, True)])  # fmt: skip
def test_incremental_resolution_matches_a_fresh_index_after_random_edits(
    tmp_path: Path, seed: int, named: bool
) -> None:
    """``named``: each pass is told the one file that changed (as the editor does), and
    looks at no other."""
    rng = random.Random(seed)
    root = tmp_path / "ws"
    modules = [f"m{i}" for i in range(6)]
    specs = {m: _spec(rng, modules, m) for m in modules}
    _write(root, specs)
    with _brain(root, tmp_path / "live.db") as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        for step in range(14):
            op = rng.random()
            target = rng.choice(sorted(specs))
            if op < 0.35:  # a body-only edit: same definitions and imports, other calls
                specs[target].call_seed = rng.randrange(1 << 30)
            elif op < 0.85:
                specs[target] = _spec(rng, modules, target)
            elif len(specs) > 3:  # a module goes away
                del specs[target]
                (root / "pkg" / f"{target}.py").unlink()
            else:
                target = f"m{len(modules)}"
                modules.append(target)
                specs[target] = _spec(rng, modules, target)
            _write(root, specs)
            report = code.index(paths=[f"pkg/{target}.py"] if named else None)
            assert report.paths == (1 if named else None)
            assert report.unchanged == (0 if named else report.unchanged)
            live = _rows(brain)
            fresh = _from_scratch(root, tmp_path)
            for key in live:
                assert live[key] == fresh[key], (seed, step, key, live[key] ^ fresh[key])


def _big_tree(root: Path, n: int) -> None:
    rng = random.Random(7)
    modules = [f"m{i}" for i in range(n)]
    _write(root, {m: _spec(rng, modules, m) for m in modules})
    (root / "README.md").write_text("# Tree\n\nGenerated modules that call each other.\n")


@pytest.fixture
def dropped(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The ``engine`` flag of every bulk load's index drop, in order."""
    seen: list[bool] = []
    original = CodeStore.drop_lookup_indexes

    def spy(self: CodeStore, *, engine: bool = False) -> None:
        seen.append(engine)
        original(self, engine=engine)

    monkeypatch.setattr(CodeStore, "drop_lookup_indexes", spy)
    return seen


def _index_definitions(brain: Brain) -> set[tuple[str, str]]:
    return set(brain.store._rows("SELECT name, sql FROM sqlite_master WHERE type = 'index'"))


def test_a_cold_bulk_index_equals_a_file_by_file_one(tmp_path: Path, dropped: list[bool]) -> None:
    n = indexer_module.POOL_THRESHOLD + 12
    root = tmp_path / "ws"
    _big_tree(root, n)
    with _brain(root, tmp_path / "bulk.db") as brain:
        fresh = _index_definitions(brain)
        report = CodeIndex(brain, workers=2).index()
        assert report.workers == 2 and report.new == n + 2  # modules, __init__, README
        bulk = _rows(brain)
        # the symbol chunks are searchable, every index dropped for the load is back as it
        # was defined (the engine's too: an empty store holds fewer documents than it adds)
        assert dropped == [True]
        assert brain.store.meta_get("code_fulltext_pending") == "0"
        assert CodeIndex(brain).code.missing_indexes() == []
        assert _index_definitions(brain) == fresh
        hits = brain.search(validate_request(query="helper", mode="lexical", kind=["code"]))
        assert any("::helper" in h.title for h in hits.results)
        brain.store._rows("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        brain.store._rows("INSERT INTO chunks_tri (chunks_tri) VALUES ('integrity-check')")
    # the same tree, indexed by the incremental path: a few files first, then the rest
    (root / "pkg" / "m1.py").rename(tmp_path / "m1.py")
    hidden = [p for p in sorted((root / "pkg").glob("m*.py"))[4:]]
    for p in hidden:
        p.rename(tmp_path / p.name)
    with _brain(root, tmp_path / "steps.db") as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        for p in [*hidden, tmp_path / "m1.py"]:
            (tmp_path / p.name).rename(root / "pkg" / p.name)
        report = code.index()
        assert report.new == len(hidden) + 1
        assert _rows(brain) == bulk


def test_an_interrupted_bulk_index_is_repaired_by_the_next_run(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _big_tree(root, indexer_module.POOL_THRESHOLD + 2)
    with _brain(root, tmp_path / "b.db") as brain:
        code = CodeIndex(brain, workers=1)
        code.index()
        expected = _rows(brain)
        definitions = _index_definitions(brain)
        # what a kill -9 between the bulk load and its last step leaves behind
        with brain.store.transaction():
            code.code.drop_lookup_indexes(engine=True)
            brain.store.meta_set("code_fulltext_pending", "1")
            brain.store._exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')")
        assert "documents_hash" in code.code.missing_indexes()
        code.index()
        assert code.code.missing_indexes() == []
        assert _index_definitions(brain) == definitions
        assert brain.store.meta_get("code_fulltext_pending") == "0"
        hits = brain.search(validate_request(query="helper", mode="lexical", kind=["code"]))
        assert any("::helper" in h.title for h in hits.results)
        assert _rows(brain) == expected


def test_embedding_follows_a_committed_lexical_index_and_reports_progress(
    workspace: Path, tiny_brain: Brain
) -> None:
    _write(workspace, {"m0": Spec(funcs=["helper"]), "m1": Spec(funcs=["parse", "save"])})
    seen: list[tuple[str, int, int]] = []
    found_before_embedding: list[bool] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "embed" and not seen[-1][0] == "embed":
            # the lexical index is committed and searchable before any vector exists
            request = validate_request(query="parse", mode="lexical", kind=["code"])
            hits = tiny_brain.search(request).results
            found_before_embedding.append(any(h.title.startswith("pkg/m1.py::parse") for h in hits))
            assert tiny_brain.store.pending_count() == total
        seen.append((phase, done, total))

    report = index_workspace(CodeIndex(tiny_brain), progress, embed=True)
    phases = [p for p, _, _ in seen]
    assert phases.index("resolve") < phases.index("embed")
    assert found_before_embedding == [True]
    assert report.embedded == 3 and report.pending_embeddings == 0
    assert seen[-1] == ("embed", 3, 3)


def test_index_runs_on_one_store_at_once_take_turns(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _big_tree(root, indexer_module.POOL_THRESHOLD + 4)
    with _brain(root, tmp_path / "alone.db") as brain:
        CodeIndex(brain, workers=1).index()
        alone = _rows(brain)
    db = tmp_path / "shared.db"
    first, second = _brain(root, db), _brain(root, db)
    errors: list[BaseException] = []
    others: list[threading.Thread] = []

    def run(brain: Brain, progress: object = None) -> None:
        try:
            CodeIndex(brain, workers=1).index(progress)  # type: ignore[arg-type]
        except BaseException as exc:  # reported below
            errors.append(exc)

    def midway(phase: str, done: int, total: int) -> None:
        # the first run is inside its bulk load (full-text rows pending): a second one starts
        if phase == "parse" and not others:
            others.append(threading.Thread(target=run, args=(second,)))
            others[0].start()
            others[0].join(0.5)

    try:
        run(first, midway)
        others[0].join(120)
        assert errors == []
        assert _rows(first) == alone
        first.store._rows("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        first.store._rows("INSERT INTO chunks_tri (chunks_tri) VALUES ('integrity-check')")
        assert first.store.meta_get("code_fulltext_pending") == "0"
    finally:
        first.close()
        second.close()


def test_a_bulk_load_into_a_store_of_many_notes_keeps_the_engine_indexes(
    tmp_path: Path, dropped: list[bool]
) -> None:
    """Dropping them pays only when the load adds more documents than the store holds:
    building them again sorts every document."""
    root = tmp_path / "ws"
    _big_tree(root, indexer_module.POOL_THRESHOLD + 2)
    source = sum(p.stat().st_size for p in root.rglob("*.py"))
    with _brain(root, tmp_path / "b.db") as brain:
        notes = source // indexer_module.SOURCE_BYTES_PER_DOCUMENT + 1
        for i in range(notes):
            brain.write(f"Note {i} about the deploy checklist.", title=f"note {i}")
        CodeIndex(brain, workers=1).index()
        assert dropped == [False]
        assert CodeIndex(brain).code.missing_indexes() == []
