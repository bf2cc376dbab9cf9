"""Status history: an "as of" read sees each document's status as it was then (migration 7)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from nano_brain import Brain, SearchRequest
from nano_brain.config import load_config
from nano_brain.filters import STATUSES, Filters
from nano_brain.models import SearchHit
from nano_brain.store.sqlite._driver import sqlite_module
from nano_brain.store.sqlite.migrations import MIGRATIONS
from nano_brain.store.sqlite.store import _statements

from ..conftest import TinyEmbedder
from ._rewind import undo_migration_13


def _tick() -> float:
    """A moment strictly between the events before and after it."""
    time.sleep(0.02)
    at = time.time()
    time.sleep(0.02)
    return at


def _rfc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat()


def _hits(brain: Brain, query: str, at: float | None, **kwargs: object) -> dict[str, SearchHit]:
    request = SearchRequest(
        query=query,
        mode="lexical",
        track=False,
        explain=True,
        as_of=None if at is None else _rfc(at),
        **kwargs,
    )
    return {h.id: h for h in brain.search(request).results}


def _statuses_then(brain: Brain, at: float) -> dict[str, tuple[str, str | None]]:
    rows = brain.list(Filters(as_of=at, statuses=STATUSES), limit=100)
    return {d.id: (d.status, d.superseded_by) for d in rows}


def test_as_of_before_a_supersede_shows_the_note_as_it_was(tiny_brain: Brain) -> None:
    old = tiny_brain.write("Feature flags live in a YAML file in the repository.").document
    before_successor = _tick()
    new = tiny_brain.write("Feature flags live in the flags service now.").document
    before_supersede = _tick()
    tiny_brain.supersede(old.id, new.id)
    after = _tick()

    for at in (before_successor, before_supersede):
        hits = _hits(tiny_brain, "feature flags", at, include_superseded=True)
        shown = hits[old.id]
        assert (shown.status, shown.superseded_by) == ("active", None), at
        assert shown.explain is not None and shown.explain["supersede_demotion"] == 1.0
        # and it is found without asking for superseded notes: it was not superseded then
        assert old.id in _hits(tiny_brain, "feature flags YAML", at)
        assert _statuses_then(tiny_brain, at)[old.id] == ("active", None)
    assert new.id not in _hits(tiny_brain, "feature flags", before_successor)

    shown = _hits(tiny_brain, "feature flags", after, include_superseded=True)[old.id]
    assert shown.status == "superseded"
    assert shown.superseded_by == {"id": new.id, "title": new.title}
    assert shown.explain is not None and shown.explain["supersede_demotion"] < 1.0
    assert old.id not in _hits(tiny_brain, "feature flags YAML", after)
    assert _statuses_then(tiny_brain, after)[old.id] == ("superseded", new.id)


def test_retracted_then_confirmed_reads_retracted_in_between(tiny_brain: Brain) -> None:
    note = tiny_brain.write("The staging cluster runs in eu-west-3.").document
    before = _tick()
    tiny_brain.retract(note.id, reason="wrong region")
    retracted = _tick()
    tiny_brain.confirm(note.id)
    confirmed = _tick()

    assert note.id in _hits(tiny_brain, "staging cluster", before)
    assert note.id not in _hits(tiny_brain, "staging cluster", retracted)
    then = _hits(tiny_brain, "staging cluster", retracted, status=["retracted"])
    assert then[note.id].status == "retracted"
    assert _statuses_then(tiny_brain, retracted)[note.id] == ("retracted", None)
    assert _hits(tiny_brain, "staging cluster", confirmed)[note.id].status == "active"
    assert _statuses_then(tiny_brain, before)[note.id] == ("active", None)


def test_as_of_names_the_successor_of_that_time_with_its_title_then(tiny_brain: Brain) -> None:
    old = tiny_brain.write("Deploys happen on Tuesdays after the standup.").document
    first = tiny_brain.write(
        "Deploys happen on Wednesdays.", title="Wednesday deploys", source_path="deploys.md"
    ).document
    second = tiny_brain.write("Deploys happen on Thursdays.", title="Thursday deploys").document
    tiny_brain.supersede(old.id, first.id)
    under_first = _tick()
    tiny_brain.supersede(old.id, second.id)
    under_second = _tick()
    tiny_brain.write(
        "Deploys happen on Wednesday afternoons.",
        title="Wednesday afternoon deploys",
        source_path="deploys.md",
    )

    shown = _hits(tiny_brain, "deploys Tuesdays standup", under_first, include_superseded=True)
    assert shown[old.id].superseded_by == {"id": first.id, "title": "Wednesday deploys"}
    shown = _hits(tiny_brain, "deploys Tuesdays standup", under_second, include_superseded=True)
    assert shown[old.id].superseded_by == {"id": second.id, "title": "Thursday deploys"}
    # today's read names today's successor
    shown = _hits(tiny_brain, "deploys Tuesdays standup", None, include_superseded=True)
    assert shown[old.id].superseded_by == {"id": second.id, "title": "Thursday deploys"}


# -- migration 7 from a schema-6 store -------------------------------------------------------------


def _open_raw(path: Path) -> object:
    return sqlite_module().connect(str(path), isolation_level=None)


def _rewind_to_schema_6(path: Path, *, prune_audit: bool = False) -> None:
    """Undo migration 7 on a closed store: no status history, schema 2's audit triggers."""
    db = _open_raw(path)
    db.execute("DROP TRIGGER status_changes_doc_ad")  # type: ignore[attr-defined]
    db.execute("DROP TABLE status_changes")  # type: ignore[attr-defined]
    for (name,) in db.execute(  # type: ignore[attr-defined]
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'"
    ).fetchall():
        db.execute(f"DROP TRIGGER {name}")  # type: ignore[attr-defined]
    for statement in _statements(MIGRATIONS[1]):
        if statement.startswith("CREATE TRIGGER audit_log_"):
            db.execute(statement)  # type: ignore[attr-defined]
    if prune_audit:  # as schema 6 pruned: through a flag in meta
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('audit_prune', '1')")  # type: ignore[attr-defined]
        db.execute("DELETE FROM audit_log WHERE action != 'write'")  # type: ignore[attr-defined]
        db.execute("UPDATE meta SET value = '0' WHERE key = 'audit_prune'")  # type: ignore[attr-defined]
    undo_migration_13(db)
    db.execute("PRAGMA user_version = 6")  # type: ignore[attr-defined]
    db.close()  # type: ignore[attr-defined]


def _history_store(workspace: Path, db: Path) -> dict[str, object]:
    """A store where one note was retracted then confirmed and another superseded twice."""
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db) as brain:
        flip = brain.write("The staging cluster runs in eu-west-3.").document
        old = brain.write("Deploys happen on Tuesdays after the standup.").document
        first = brain.write("Deploys happen on Wednesdays.").document
        second = brain.write("Deploys happen on Thursdays.").document
        start = _tick()
        brain.retract(flip.id)
        brain.supersede(old.id, first.id)
        middle = _tick()
        brain.confirm(flip.id)
        brain.supersede(old.id, second.id)
        end = _tick()
    return {
        "flip": flip.id,
        "old": old.id,
        "first": first.id,
        "second": second.id,
        "start": start,
        "middle": middle,
        "end": end,
    }


def test_schema_6_history_is_rebuilt_from_the_audit_log(workspace: Path) -> None:
    db = workspace.parent / "v6.db"
    seen = _history_store(workspace, db)
    _rewind_to_schema_6(db)
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db) as brain:
        assert brain.store.schema_version() == len(MIGRATIONS)
        start = _statuses_then(brain, seen["start"])  # type: ignore[arg-type]
        middle = _statuses_then(brain, seen["middle"])  # type: ignore[arg-type]
        end = _statuses_then(brain, seen["end"])  # type: ignore[arg-type]
    assert start[seen["flip"]] == ("active", None)  # type: ignore[index]
    assert middle[seen["flip"]] == ("retracted", None)  # type: ignore[index]
    assert end[seen["flip"]] == ("active", None)  # type: ignore[index]
    assert start[seen["old"]] == ("active", None)  # type: ignore[index]
    assert middle[seen["old"]] == ("superseded", seen["first"])  # type: ignore[index]
    assert end[seen["old"]] == ("superseded", seen["second"])  # type: ignore[index]


def test_schema_6_with_a_pruned_audit_log_keeps_the_last_change(workspace: Path) -> None:
    db = workspace.parent / "v6p.db"
    seen = _history_store(workspace, db)
    _rewind_to_schema_6(db, prune_audit=True)
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    with Brain(workspace, config=config, db_path=db) as brain:
        assert brain.store.meta_get("audit_prune") is None  # the old flag is gone
        start = _statuses_then(brain, seen["start"])  # type: ignore[arg-type]
        end = _statuses_then(brain, seen["end"])  # type: ignore[arg-type]
    # only the last change is known: before it, the default status
    assert end[seen["old"]] == ("superseded", seen["second"])  # type: ignore[index]
    assert start[seen["old"]] == ("active", None)  # type: ignore[index]
    assert end[seen["flip"]] == ("active", None)  # type: ignore[index]


def test_history_rows_go_with_their_document(tiny_brain: Brain) -> None:
    note = tiny_brain.write("short lived").document
    tiny_brain.retract(note.id)
    store = tiny_brain.store
    assert store._rows("SELECT count(*) FROM status_changes")[0][0] == 1
    tiny_brain.delete(note.id)
    assert store._rows("SELECT count(*) FROM status_changes")[0][0] == 0


def test_history_row_names_the_actor(workspace: Path) -> None:
    with Brain(workspace, provider=TinyEmbedder(), actor="lsp") as brain:
        note = brain.write("who retracted this?").document
        brain.retract(note.id)
        rows = brain.store._rows("SELECT actor, status, prev_status FROM status_changes")
    assert rows == [("lsp", "retracted", "active")]
