"""The briefs read from a real store: anchored notes before an edit, the wake-up, a prompt's
memory above the floor; and the quick reader agreeing with the store's own reads."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain, Filters
from nano_brain.anchoring import anchor
from nano_brain.brief.briefs import Briefs, Budgets
from nano_brain.brief.edits import EditTarget
from nano_brain.codeindex import CodeIndex
from nano_brain.store import QuickReader, QuickReaderError
from tests.conftest import TinyEmbedder
from tests.hooks._events import BILLING, CHARGE_LINE, DECISION, REFUND_LINE


@pytest.fixture
def billing(workspace: Path) -> Iterator[tuple[Brain, dict[str, str]]]:
    """A workspace with billing.py indexed, a decision anchored to `charge`, a plain note
    anchored to `refund`, and unanchored notes and a superseded decision."""
    (workspace / "billing.py").write_text(BILLING)
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        CodeIndex(brain).index()
        ids = {
            "decision": brain.write(
                DECISION, title="Charge in integer cents", tags=["decision"]
            ).document.id,
            "refund": brain.write("Refunds are negative charges.", title="Refund sign").document.id,
            "old": brain.write(
                "Charge in float dollars.", title="Old charge rule", tags=["decision"]
            ).document.id,
            "other": brain.write("The deploy runs on Fridays.", title="Deploy day").document.id,
        }
        anchor(brain, ids["decision"], "billing.py::charge")
        anchor(brain, ids["refund"], "billing.py::refund")
        anchor(brain, ids["old"], "billing.py::charge")
        brain.supersede(ids["old"], ids["decision"])
        yield brain, ids


def _briefs(brain: Brain, root: Path) -> Iterator[Briefs]:
    return Briefs.open(brain.store_path, brain.workspace_id, root, Budgets())


def test_an_edit_of_charge_gets_its_decision_and_not_the_superseded_one(billing, workspace) -> None:
    brain, ids = billing
    with _briefs(brain, workspace) as briefs:
        text, items = briefs.before_edit(
            [EditTarget(str(workspace / "billing.py"), (CHARGE_LINE,))]
        )
    assert [i.id for i in items] == [ids["decision"]]
    assert items[0].symbol == "billing.py::charge" and items[0].decision
    assert f"#{ids['decision']}" in text and "decision by a person" in text and "active" in text
    assert ids["old"] not in text and ids["refund"] not in text


def test_an_edit_of_refund_gets_only_refunds_note(billing, workspace) -> None:
    brain, ids = billing
    with _briefs(brain, workspace) as briefs:
        _, items = briefs.before_edit([EditTarget("billing.py", (REFUND_LINE,))])
    assert [(i.id, i.origin) for i in items] == [(ids["refund"], "note by a person")]


def test_text_not_in_the_file_and_files_outside_the_workspace_add_nothing(
    billing, workspace, tmp_path
) -> None:
    brain, _ = billing
    outside = tmp_path / "elsewhere.py"
    outside.write_text(BILLING)
    with _briefs(brain, workspace) as briefs:
        assert briefs.before_edit([EditTarget("billing.py", ("not in the file",))]) == ("", [])
        assert briefs.before_edit([EditTarget(str(outside), (CHARGE_LINE,))]) == ("", [])
        # a whole-file write touches every symbol: both anchored notes
        _, items = briefs.before_edit([EditTarget("billing.py")])
    assert len(items) == 2


def test_a_note_whose_code_changed_since_it_was_anchored_is_flagged(billing, workspace) -> None:
    brain, ids = billing
    (workspace / "billing.py").write_text(BILLING.replace("must be positive", "must be > 0"))
    CodeIndex(brain).index()
    with _briefs(brain, workspace) as briefs:
        text, items = briefs.before_edit([EditTarget("billing.py", (CHARGE_LINE,))])
    assert items[0].stale and "the code changed since this was anchored" in text


def test_session_start_shows_decisions_and_recent_notes_with_origins(billing, workspace) -> None:
    brain, ids = billing
    with _briefs(brain, workspace) as briefs:
        text = briefs.session_start()
    decisions = text.split("## Decisions")[1].split("##")[0]
    assert f"#{ids['decision']}" in decisions and ids["old"] not in text
    assert f"#{ids['other']}" in text and "note by a person" in text


def test_a_prompt_gets_matching_memory_and_an_unrelated_one_nothing(billing, workspace) -> None:
    brain, ids = billing
    with _briefs(brain, workspace) as briefs:
        assert f"#{ids['other']}" in briefs.prompt("which day does the deploy run")
        assert briefs.prompt("quantum chromodynamics lattice gauge theory") == ""
        assert briefs.prompt("   ") == ""


def test_budgets_bound_each_brief(billing, workspace) -> None:
    brain, _ = billing
    for i in range(15):  # enough to overflow 300 characters, few enough to be looked up
        brain.write(f"Note {i} about deploy windows and release trains.", title=f"Deploy note {i}")
    with Briefs.open(
        brain.store_path, brain.workspace_id, workspace, Budgets(300, 300, 300)
    ) as briefs:
        assert 0 < len(briefs.session_start()) <= 300
        assert 0 < len(briefs.prompt("deploy release trains windows")) <= 300


def test_the_quick_reader_sees_what_the_stores_default_read_sees(billing) -> None:
    brain, ids = billing
    code = CodeIndex(brain)
    with QuickReader(brain.store_path, brain.workspace_id) as reader:
        quick = {
            (a.qualified_name, a.doc.uid)
            for a in reader.anchored(["billing.py::charge", "billing.py::refund"])
        }
        recent = [d.uid for d in reader.documents(kinds=("note",), order="updated", limit=50)]
    full = {
        (a.qualified_name, a.note_id)
        for a in code.anchors(
            symbols=["billing.py::charge", "billing.py::refund"], visible=Filters()
        )
    }
    assert quick == full
    assert recent == [d.id for d in brain.list(Filters(kinds=("note",)), limit=50)]


def test_the_quick_reader_refuses_another_workspaces_store_and_a_missing_one(
    billing, tmp_path
) -> None:
    brain, _ = billing
    with pytest.raises(QuickReaderError, match="another workspace"):
        QuickReader(brain.store_path, "0123456789abcdef")
    with pytest.raises(QuickReaderError, match="no store"):
        QuickReader(tmp_path / "missing.db", brain.workspace_id)


def test_a_brief_reads_while_another_connection_writes(billing, workspace) -> None:
    brain, ids = billing
    with brain.store.transaction():
        brain.write("Written inside an open transaction.", title="Pending write")
        started = time.monotonic()
        with _briefs(brain, workspace) as briefs:
            _, items = briefs.before_edit([EditTarget("billing.py", (CHARGE_LINE,))])
        assert time.monotonic() - started < 5
    assert [i.id for i in items] == [ids["decision"]]


def test_a_search_by_meaning_is_asked_only_when_no_note_holds_the_prompts_words(
    billing, workspace
) -> None:
    brain, ids = billing
    asked: list[str] = []

    def by_meaning(text: str, limit: int) -> list:
        asked.append(text)
        return []

    with Briefs.open(brain.store_path, brain.workspace_id, workspace) as briefs:
        briefs._search = by_meaning
        assert f"#{ids['other']}" in briefs.prompt("which day does the deploy run")
        assert asked == []
        assert briefs.prompt("when do we ship releases") == ""
    assert asked == ["when do we ship releases"]
