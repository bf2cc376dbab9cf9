"""Consolidation on a store seeded with duplicates, near-duplicates, paraphrases,
contradictions and unrelated notes (real default model): what is proposed, what applying does,
and that nothing is ever deleted."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from nano_brain import Brain
from nano_brain.cli import main
from nano_brain.config import load_config
from nano_brain.consolidate import Consolidator, Proposal, propose_every
from nano_brain.embedding import EmbeddingProvider
from nano_brain.errors import InvalidInputError
from nano_brain.filters import STATUSES, Filters
from nano_brain.harvest.summarize import OpenAISummarizer
from nano_brain.search import validate_request

from ._credentials import credential_shapes, fragments

SEED = {
    # three copies of one note, differing only in case and punctuation
    "dup1": ("Job queue", "The job queue lives in SQLite (WAL mode), so workers need no server."),
    "dup2": ("Job queue", "The job queue lives in SQLite, WAL mode; so workers need no server!"),
    "dup3": ("Job queue", "the job queue lives in sqlite wal mode so workers need no server"),
    # the same note with a few words added
    "near1": (
        "Release notes",
        "Release notes are written by whoever merges the last pull request of the sprint, "
        "in docs/releases, one file per version.",
    ),
    "near2": (
        "Release notes",
        "Release notes are written by whoever merges the last pull request of the sprint, "
        "in docs/releases, one file per version, as Markdown.",
    ),
    # the same rule in other words
    "para1": (
        "Payments",
        "Never call the payment provider from a request handler: enqueue a job and let the "
        "worker call the payment provider.",
    ),
    "para2": (
        "Payments",
        "Request handlers must not call the payment provider directly; they enqueue a job "
        "and the worker makes the payment provider call.",
    ),
    # two notes that contradict each other
    "contra1": ("Deploy day", "Deploys to production happen on Tuesdays after the standup."),
    "contra2": ("Deploy day", "Deploys to production happen on Thursdays after the standup."),
    # unrelated
    "other1": ("Fonts", "The editor theme uses the Iosevka font at 13 points."),
    "other2": ("On call", "The on-call rotation changes every Monday at 9:00 UTC."),
    "other3": ("Logging", "Log lines are JSON with a trace id; never log request bodies."),
    "other4": ("Cache", "The HTTP cache keeps responses for five minutes, keyed by URL."),
}
DUPLICATES = [{"dup1", "dup2", "dup3"}, {"near1", "near2"}]
RELATED = [{"para1", "para2"}, {"contra1", "contra2"}]


@pytest.fixture
def seeded(workspace: Path, real_provider: EmbeddingProvider) -> Iterator[tuple[Brain, dict]]:
    with Brain(workspace, provider=real_provider) as brain:
        ids = {}
        for name, (title, text) in SEED.items():
            ids[name] = brain.write(text, title=title).document.id
        yield brain, ids


def _names(ids: dict[str, str], uids: list[str]) -> set[str]:
    back = {v: k for k, v in ids.items()}
    return {back[u] for u in uids}


class FakeModel:
    """The OpenAI-compatible endpoint a user would configure: merges what it is shown."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        prompt = body["messages"][1]["content"]
        self.prompts.append(prompt)
        if "Thursdays" in prompt:
            answer = {"action": "keep", "reason": "they disagree; a person must decide"}
        else:
            answer = {
                "action": "merge",
                "title": "Payments go through the worker",
                "content": "Request handlers never call the payment provider; they enqueue a "
                "job and the worker calls the provider.",
                "reason": "the same rule twice",
            }
        text = "Here is my decision:\n" + json.dumps(answer)
        return httpx.Response(200, json={"choices": [{"message": {"content": text}}]})

    def drafter(self) -> OpenAISummarizer:
        return OpenAISummarizer(
            base_url="http://127.0.0.1:9/v1", model="fake", transport=httpx.MockTransport(self)
        )


def test_without_a_model_only_duplicates_are_proposed(seeded: tuple[Brain, dict]) -> None:
    brain, ids = seeded
    report = Consolidator(brain).run()
    assert report.notes == len(SEED)
    clusters = [_names(ids, p.members) for p in report.proposed]
    assert sorted(clusters, key=len) == sorted(DUPLICATES, key=len)
    assert report.related_clusters == len(RELATED) and report.undecided == len(RELATED)
    for p in report.proposed:
        assert p.action == "supersede" and p.status == "pending"
        assert p.survivor == p.members[0]
    dup = next(p for p in report.proposed if len(p.members) == 3)
    assert dup.survivor == ids["dup3"]  # the newest of the three
    # proposals wait: nothing changed yet, and a second run proposes nothing new
    assert all(brain.get(u).status == "active" for u in ids.values())
    again = Consolidator(brain).run()
    assert again.proposed == [] and len(again.pending) == 2


def test_apply_supersedes_deletes_nothing_and_search_finds_the_survivor(
    seeded: tuple[Brain, dict], workspace: Path
) -> None:
    brain, ids = seeded
    Consolidator(brain).run()
    before = brain.store.counts()
    result = CliRunner().invoke(
        main,
        ["consolidate", "--apply", "--no-model", "--json", "--workspace", str(workspace),
         "--db", str(brain.store.path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    applied = json.loads(result.output)["applied"]
    assert len(applied) == 2 and all(p["status"] == "applied" for p in applied)
    after = brain.store.counts()
    assert after["documents"] == before["documents"]  # superseded, not deleted
    every = {d.id: d for d in brain.list(Filters(statuses=STATUSES), limit=100)}
    assert set(every) == set(ids.values())
    superseded = {k for k, u in ids.items() if every[u].status == "superseded"}
    assert superseded == {"dup1", "dup2", "near1"}
    assert every[ids["dup1"]].superseded_by == ids["dup3"]
    history = brain.history(ids["dup1"])
    assert [e.action for e in history.events][:1] == ["supersede"]
    assert history.versions[0].content == SEED["dup1"][1]
    hits = brain.search(validate_request(query="job queue in SQLite WAL mode", limit=5))
    found = [h.id for h in hits.results]
    assert ids["dup3"] in found and ids["dup1"] not in found and ids["dup2"] not in found
    log = [e.action for e in brain.log(limit=20)]
    assert log.count("supersede") == 3 and log.count("consolidate") == 2


def test_a_model_drafts_merges_from_redacted_notes(seeded: tuple[Brain, dict]) -> None:
    brain, ids = seeded
    secret_note = brain.write(
        "Never call the payment provider from a request handler; the worker calls the payment "
        "provider with " + credential_shapes()[0].text,
        title="Payments",
    ).document.id
    ids["para3"] = secret_note
    model = FakeModel()
    report = Consolidator(brain, model.drafter()).run()
    merge = next(p for p in report.proposed if p.action == "merge")
    assert {"para1", "para2"} <= _names(ids, merge.members)
    assert merge.content and "worker" in merge.content
    keep = next(p for p in report.proposed if p.action == "keep")
    assert _names(ids, keep.members) == {"contra1", "contra2"}
    sent = "\n".join(model.prompts)
    shape = credential_shapes()[0]
    assert not [f for s in shape.secrets for f in fragments(s, 12) if f in sent]
    applied = Consolidator(brain).apply(merge.id)  # type: ignore[arg-type]
    merged = brain.get(applied.result or "")
    assert merged.title == "Payments go through the worker" and "consolidated" in merged.tags
    assert merged.metadata["consolidation"]["merged"] == merge.members
    for uid in merge.members:
        assert brain.get(uid).superseded_by == merged.id
    # keeping is a decision too: applied, nothing changes
    kept = Consolidator(brain).apply(keep.id)  # type: ignore[arg-type]
    assert kept.status == "applied" and brain.get(ids["contra1"]).status == "active"


def test_dismissed_stay_dismissed_and_stale_proposals_change_nothing(
    seeded: tuple[Brain, dict],
) -> None:
    brain, ids = seeded
    proposals = {frozenset(_names(ids, p.members)): p for p in Consolidator(brain).run().proposed}
    near = proposals[frozenset({"near1", "near2"})]
    dup = proposals[frozenset({"dup1", "dup2", "dup3"})]
    assert Consolidator(brain).dismiss(near.id).status == "dismissed"  # type: ignore[arg-type]
    assert Consolidator(brain).run().proposed == []
    brain.retract(ids["dup2"], reason="wrong")
    with pytest.raises(InvalidInputError, match="stale"):
        Consolidator(brain).apply(dup.id)  # type: ignore[arg-type]
    assert brain.get(ids["dup1"]).status == "active"
    assert brain.store.proposal(dup.id).status == "stale"  # type: ignore[arg-type,union-attr]
    with pytest.raises(InvalidInputError, match="not pending"):
        Consolidator(brain).apply(near.id)  # type: ignore[arg-type]


def test_the_periodic_pass_proposes_and_changes_nothing(seeded: tuple[Brain, dict]) -> None:
    brain, ids = seeded
    stop = threading.Event()
    worker = threading.Thread(target=propose_every, args=(brain, 0.05, stop))
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while len(brain.store.proposals()) < len(DUPLICATES) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        worker.join(timeout=30)
    assert not worker.is_alive()
    clusters = [_names(ids, Proposal.of(r).members) for r in brain.store.proposals()]
    assert sorted(clusters, key=len) == sorted(DUPLICATES, key=len)
    # proposals only: every note is still what it was
    assert all(brain.get(u).status == "active" for u in ids.values())


def test_the_periodic_pass_is_off_unless_configured(workspace: Path) -> None:
    assert load_config(workspace).config.consolidate.every is None
    (workspace / ".nano-brain.yml").write_text("consolidate:\n  every: soon\n")
    loaded = load_config(workspace)
    assert loaded.config.consolidate.every is None
    assert any("consolidate.every" in w for w in loaded.warnings)
    (workspace / ".nano-brain.yml").write_text("consolidate:\n  every: 12h\n")
    assert load_config(workspace).config.consolidate.every == "12h"
