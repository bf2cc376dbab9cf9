"""One rule says what a decision is; eviction, wake-up and the hover badge all follow it.
And the rule's SQL, like all SQL, lives in the store package."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

import nano_brain
from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.filters import is_decision
from nano_brain.lsp.render import NoteView
from nano_brain.store import Store

COLLECTIONS = ("decisions", "decision", "memory", "design")
TAGS = ("decision", "auto:architecture-decision", "decisions", "architecture", "adr")


@pytest.mark.parametrize(
    ("collection", "tags", "expected"),
    [
        ("decisions", [], True),
        ("memory", ["decision"], True),
        ("memory", ["auto:architecture-decision"], True),
        ("memory", ["decisions", "architecture"], False),
        ("decision", [], False),
        ("memory", [], False),
    ],
)
def test_what_a_decision_is(collection: str, tags: list[str], expected: bool) -> None:
    assert is_decision(collection, tags) is expected


def _view(collection: str, tags: list[str]) -> NoteView:
    return NoteView(
        id="0" * 12, title="t", status="active", tags=tuple(tags), collection=collection,
        created_at=0.0, snippet="", symbol="m.py::f", stale=None,
    )  # fmt: skip


def test_eviction_wake_up_and_hover_agree_on_decisions(workspace: Path) -> None:
    """Every combination of these collections, tags and retraction, in one store."""
    lexical = {"embedding": {"provider": "none"}}
    tag_sets = [
        sorted(t for bit, t in enumerate(TAGS) if mask >> bit & 1) for mask in range(2 ** len(TAGS))
    ]
    written: dict[str, tuple[str, list[str], bool]] = {}
    with Brain(workspace, config=load_config(workspace, overrides=lexical)) as brain:
        for n, (collection, tags, retracted) in enumerate(
            itertools.product(COLLECTIONS, tag_sets, (False, True))
        ):
            doc = brain.write(f"note {n} on the order service", collection=collection,
                              tags=tags).document  # fmt: skip
            if retracted:
                brain.retract(doc.id)
            written[doc.id] = (collection, brain.get(doc.id).tags, retracted)
        decisions = {
            uid for uid, (c, tags, retracted) in written.items()
            if is_decision(c, tags) and not retracted
        }  # fmt: skip
        assert 0 < len(decisions) < len(written) // 2
        shown = brain.wake_up(budget_chars=200_000, per_section=len(written)).decisions
        assert {item.id for item in shown} == decisions
    for collection, tags, _ in written.values():
        assert _view(collection, tags).is_decision is is_decision(collection, tags)
    limited = load_config(workspace, overrides={**lexical, "storage": {"max_size": "1KB"}})
    with Brain(workspace, config=limited) as brain:
        evicted = {d.id for d in brain.enforce_storage_limit()}
    assert evicted == set(written) - decisions  # active decisions are protected, nothing else


def test_no_sql_outside_the_store_package(tmp_path: Path) -> None:
    store = Store(tmp_path / "b.db", "ws")
    tables = [
        name
        for (name,) in store._rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    ]
    store.close()
    assert "documents" in tables and "audit_log" in tables
    sql = re.compile(r"\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+(" + "|".join(tables) + r")\b")
    package = Path(nano_brain.__file__).parent
    offenders = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path.relative_to(package).parts[0] != "store"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if sql.search(line)
    ]
    assert offenders == []
