"""Memory that can be corrected: supersede, retract, review, history, tombstones, audit."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from nano_brain import Brain, InvalidInputError, NotFoundError, SearchRequest
from nano_brain.config import load_config
from nano_brain.errors import StoreError, TombstonedError
from nano_brain.filters import Filters

from .conftest import TinyEmbedder

MODES = ("hybrid", "lexical", "vector")


def _ids(brain: Brain, query: str, **kwargs: object) -> list[str]:
    return [h.id for h in brain.search(SearchRequest(query=query, track=False, **kwargs)).results]


def _audit_count(brain: Brain) -> int:
    return len(brain.log(limit=10_000))


def test_superseded_note_is_hidden_from_every_default_read(brain: Brain) -> None:
    old = brain.write(
        "Cache TTL is five minutes for the product catalogue.", tags=["cache"]
    ).document
    new = brain.write(
        "Cache TTL is one hour for the product catalogue.", tags=["cache"], supersedes=f"#{old.id}"
    ).document
    for mode in MODES:
        ids = _ids(brain, "cache TTL product catalogue", mode=mode, limit=20)
        assert new.id in ids and old.id not in ids, mode
    assert [d.id for d in brain.list()] == [new.id]
    assert dict(brain.tags())["cache"] == 1
    # asked for, it comes back below its successor and names it
    response = brain.search(SearchRequest(query="cache TTL catalogue", include_superseded=True))
    ids = [h.id for h in response.results]
    assert ids.index(new.id) < ids.index(old.id)
    shown = response.results[ids.index(old.id)]
    assert shown.status == "superseded" and shown.superseded_by == {
        "id": new.id,
        "title": new.title,
    }
    assert brain.get(old.id).superseded_by == new.id


def test_supersede_unknown_target_writes_nothing(tiny_brain: Brain) -> None:
    before = _audit_count(tiny_brain)
    with pytest.raises(NotFoundError):
        tiny_brain.write("the replacement", supersedes="#0123456789ab")
    assert tiny_brain.status()["documents"] == 0 and _audit_count(tiny_brain) == before


def test_supersede_cycle_is_refused(tiny_brain: Brain) -> None:
    a = tiny_brain.write("version a").document
    b = tiny_brain.write("version b", supersedes=a.id).document
    c = tiny_brain.write("version c", supersedes=b.id).document
    before = _audit_count(tiny_brain)
    with pytest.raises(InvalidInputError, match="cycle"):
        tiny_brain.supersede(c.id, a.id)
    assert tiny_brain.get(c.id).status == "active" and _audit_count(tiny_brain) == before
    with pytest.raises(InvalidInputError, match="itself"):
        tiny_brain.supersede(a.id, a.id)


def test_retracted_note_is_kept_but_never_returned_by_default(brain: Brain) -> None:
    wrong = brain.write("The staging cluster runs in eu-west-3.").document
    brain.retract(wrong.id, reason="it runs in eu-central-1")
    for mode in MODES:
        assert wrong.id not in _ids(brain, "staging cluster region", mode=mode)
    assert _ids(brain, "staging cluster", mode="lexical", status=["retracted"]) == [wrong.id]
    assert brain.get(wrong.id).status == "retracted"
    entry = brain.log(ref=wrong.id, limit=1)[0]
    assert (entry.action, entry.prev_status, entry.new_status) == ("retract", "active", "retracted")
    assert entry.details["reason"] == "it runs in eu-central-1"


def test_review_mode_agent_notes_start_unreviewed(workspace: Path) -> None:
    config = load_config(workspace, overrides={"review": {"enabled": True}})
    with Brain(workspace, config=config, provider=TinyEmbedder(), actor="mcp") as agent:
        note = agent.write("Agents may push to main on Fridays.").document
        assert note.status == "unreviewed"
    with Brain(workspace, config=config, provider=TinyEmbedder(), actor="cli") as person:
        assert person.write("A person's own note.").document.status == "active"
        assert [d.id for d in person.list(Filters(statuses=("unreviewed",)))] == [note.id]
        assert _ids(person, "push main Fridays", mode="lexical", status=["active"]) == []
        person.confirm(note.id)
        assert _ids(person, "push main Fridays", mode="lexical", status=["active"]) == [note.id]
        assert person.log(ref=note.id, limit=1)[0].actor == "cli"


def test_edit_keeps_the_earlier_version_and_as_of_reads_it(brain: Brain) -> None:
    first = brain.write("Deploys happen on Tuesdays.", source_path="docs/deploy.md").document
    time.sleep(0.05)
    between = time.time()
    time.sleep(0.05)
    second = brain.write("Deploys happen on Thursdays.", source_path="docs/deploy.md").document
    assert second.id == first.id and second.version == 2
    hist = brain.history(first.id)
    assert [v.content for v in hist.versions] == [
        "Deploys happen on Tuesdays.",
        "Deploys happen on Thursdays.",
    ]
    assert hist.versions[0].valid_to == second.valid_from
    assert [e.action for e in hist.events] == ["edit", "write"]
    # today's reads see only the current version; "as of" sees the one then in force
    for mode in MODES:
        assert _ids(brain, "deploys Tuesdays", mode=mode, limit=5).count(first.id) <= 1
    assert _ids(brain, "Tuesdays", mode="lexical") == []
    past = brain.search(SearchRequest(query="Tuesdays", mode="lexical", as_of=_rfc(between)))
    assert [(h.id, h.version) for h in past.results] == [(first.id, 1)]
    assert (
        brain.search(SearchRequest(query="Thursdays", mode="lexical", as_of=_rfc(between))).results
        == []
    )
    assert brain.status()["documents"] == 1 and brain.status()["old_versions"] == 1


def test_as_of_sees_a_superseded_note_as_it_was(tiny_brain: Brain) -> None:
    old = tiny_brain.write("Feature flags live in a YAML file.").document
    time.sleep(0.05)
    before_supersede = time.time()
    time.sleep(0.05)
    tiny_brain.write("Feature flags live in the flags service.", supersedes=old.id)
    past = _ids(tiny_brain, "feature flags YAML", mode="lexical", as_of=_rfc(before_supersede))
    assert old.id in past
    assert old.id not in _ids(tiny_brain, "feature flags YAML", mode="lexical")


def test_deleted_harvested_summary_is_not_derived_again(tiny_brain: Brain) -> None:
    source = "session://claude-code/abc123"
    doc = tiny_brain.write(
        "Session: fixed the flaky test", kind="session", source_path=source, respect_tombstone=True
    ).document
    tiny_brain.delete(doc.id)
    assert tiny_brain.tombstones()[0]["source"] == source
    with pytest.raises(TombstonedError):
        tiny_brain.write(
            "Session: fixed the flaky test (grown)",
            kind="session",
            source_path=source,
            respect_tombstone=True,
        )
    assert tiny_brain.status()["documents"] == 0
    tiny_brain.unforget(source)
    again = tiny_brain.write(
        "Session: fixed the flaky test", kind="session", source_path=source, respect_tombstone=True
    )
    assert again.created


def test_forget_a_note_with_a_source_leaves_a_tombstone(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("indexed doc", source_path="README.md").document
    tiny_brain.forget("README.md")
    with pytest.raises(TombstonedError):
        tiny_brain.write("indexed doc", source_path="README.md", respect_tombstone=True)
    with pytest.raises(NotFoundError):
        tiny_brain.get(doc.id)
    with pytest.raises(NotFoundError):
        tiny_brain.unforget("never-deleted.md")


@pytest.mark.sqlite_only  # reads the SQLite file's own tables
def test_delete_removes_every_version_and_derived_row(tiny_brain: Brain) -> None:
    tiny_brain.write("v1 text", source_path="a.md")
    tiny_brain.write("v2 text", source_path="a.md")
    tiny_brain.delete("a.md")
    store = tiny_brain.store
    assert store._rows("SELECT count(*) FROM documents")[0][0] == 0
    assert store._rows("SELECT count(*) FROM chunks")[0][0] == 0
    assert store._rows("SELECT count(*) FROM chunk_vectors")[0][0] == 0
    assert store._rows("SELECT count(*) FROM vec_chunks")[0][0] == 0


def test_every_mutation_leaves_an_audit_row(workspace: Path) -> None:
    config = load_config(workspace, overrides={"storage": {"max_size": "1MB"}})
    with Brain(workspace, config=config, provider=TinyEmbedder(), actor="lsp") as brain:
        a = brain.write("alpha", source_path="a.md").document
        brain.write("alpha two", source_path="a.md")
        b = brain.write("beta").document
        brain.supersede(a.id, b.id)
        brain.retract(b.id)
        brain.confirm(b.id)
        brain.pin(b.id)
        c = brain.write("gamma", kind="session", source_path="session://x").document
        brain.delete(c.id)
        brain.unforget("session://x")
        brain.forget(b.id)
        actions = [e.action for e in reversed(brain.log(limit=100))]
        assert actions == [
            "write",
            "edit",
            "write",
            "supersede",
            "retract",
            "confirm",
            "pin",
            "write",
            "delete",
            "unforget",
            "delete",
        ]
        assert {e.actor for e in brain.log(limit=100)} == {"lsp"}
        supersede = next(e for e in brain.log(limit=100) if e.action == "supersede")
        assert (supersede.prev_status, supersede.new_status) == ("active", "superseded")


def test_audit_log_is_append_only_except_an_explicit_logged_prune(tiny_brain: Brain) -> None:
    tiny_brain.write("something")
    store = tiny_brain.store
    with pytest.raises(StoreError, match="append-only"):
        store._exec("DELETE FROM audit_log")
    with pytest.raises(StoreError, match="append-only"):
        store._exec("UPDATE audit_log SET actor = 'x'")
    assert tiny_brain.prune_log(older_than="0s") == 1
    assert [e.action for e in tiny_brain.log()] == ["prune-log"]


@pytest.mark.sqlite_only  # reads the SQLite file's own tables
def test_scope_no_read_path_returns_another_workspace(tmp_path: Path, real_provider) -> None:
    roots = {name: tmp_path / name for name in ("alpha", "beta")}
    secrets = {
        "alpha": "The alpha launch code is PELICAN.",
        "beta": "The beta launch code is OSPREY.",
    }
    brains = {}
    for name, root in roots.items():
        root.mkdir()
        brains[name] = Brain(root, provider=real_provider)
        brains[name].write(secrets[name], tags=["codes"], collection="secrets")
        brains[name].write("数据库的发射代码在这里 " + name, tags=["codes"], collection="secrets")
    # even a file that holds another workspace's rows must not leak them
    alpha = brains["alpha"]
    _inject_foreign_rows(alpha, brains["beta"])
    try:
        queries = ["launch code", "PELICAN OSPREY", "launch zebra", "发射代码", "OSPREY"]
        variants = [
            {},
            {"tags": ["codes"]},
            {"collection": ["secrets"]},
            {"created_after": "1d"},
            {"include_superseded": True},
            {"status": ["active", "superseded", "retracted"]},
        ]
        seen_own = False
        for query in queries:
            for mode in MODES:
                for filt in variants:
                    res = alpha.search(
                        SearchRequest(query=query, mode=mode, limit=50, track=False, **filt)
                    )
                    text = " ".join(h.snippet for h in res.results)
                    assert "OSPREY" not in text and "beta" not in text, (query, mode, filt)
                    seen_own |= "PELICAN" in text
        assert seen_own  # positive control: alpha's own secret is found
        assert all("beta" not in d.title for d in alpha.list(limit=100))
        assert alpha.status()["documents"] == 2
    finally:
        for b in brains.values():
            b.close()


def _inject_foreign_rows(target: Brain, source: Brain) -> None:
    """Copy another workspace's documents, chunks and vectors into `target`'s file as-is."""
    store = target.store
    src = source.store
    for row in src._rows("SELECT * FROM documents"):
        cols = [d[1] for d in src._rows("PRAGMA table_info(documents)")]
        values = dict(zip(cols, row, strict=True))
        values.pop("id")
        values["uid"] = "f" + values["uid"][1:]
        marks = ",".join("?" * len(values))
        with store.transaction():
            new_id = store._exec(
                f"INSERT INTO documents ({','.join(values)}) VALUES ({marks})",
                list(values.values()),
            ).lastrowid
            for c in src._rows(
                "SELECT seq, title, body, heading, start_line, end_line, id, "
                "workspace_id FROM chunks WHERE doc_id = (SELECT id FROM documents "
                "WHERE uid = ?)",
                (row[cols.index("uid")],),
            ):
                cid = store._exec(
                    "INSERT INTO chunks (doc_id, workspace_id, seq, title, body, heading, "
                    "start_line, end_line, embedded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
                    (new_id, c[7], *c[:6]),
                ).lastrowid
                blob = src._rows("SELECT embedding FROM chunk_vectors WHERE chunk_id = ?", (c[6],))[
                    0
                ][0]
                store.store_vectors([(cid, new_id, np.frombuffer(blob, dtype=np.float32))])
    assert (
        store._rows(
            "SELECT count(*) FROM documents WHERE workspace_id != ?", (store.workspace_id,)
        )[0][0]
        == 2
    )


def _rfc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat()


def test_identical_content_with_new_metadata_updates_it_and_is_audited(tiny_brain: Brain) -> None:
    first = tiny_brain.write("summary text", metadata={"attempt": 1, "error": "timeout"})
    again = tiny_brain.write(
        "summary text", metadata={"attempt": 2, "error": None}, actor="harvest"
    )
    assert not again.created and again.document.id == first.document.id
    assert tiny_brain.get(first.document.id).metadata == {"attempt": 2, "error": None}
    entry = tiny_brain.log(limit=1)[0]
    assert (entry.action, entry.actor) == ("metadata", "harvest")
    unchanged = _audit_count(tiny_brain)
    tiny_brain.write("summary text", metadata={"attempt": 2})
    assert _audit_count(tiny_brain) == unchanged  # nothing new: nothing logged
