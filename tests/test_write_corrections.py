"""A write that meets a correction says so (issue 32, papercuts 6 and 7), on both stores:

- rewriting a retracted (or superseded) note keeps its status, and the answer says so and
  how to make it active again;
- an explicit write of a source the user forgot wins: it lifts the tombstone (audited as
  `unforget`, said in the answer), while the indexers keep respecting tombstones.

Lexical only (`embedding.provider: none`): no vector query reaches the team store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from nano_brain import Brain
from nano_brain.cli import main
from nano_brain.errors import TombstonedError

BACKENDS = pytest.mark.parametrize("_store_backend", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture(autouse=True)
def _lexical(_store_backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NANO_BRAIN_EMBEDDING__PROVIDER", "none")


@pytest.fixture
def brain(workspace: Path) -> Iterator[Brain]:
    with Brain(workspace) as b:
        yield b


@BACKENDS
def test_rewriting_a_retracted_note_keeps_it_retracted_and_says_so(brain: Brain) -> None:
    first = brain.write("Cache TTL is five minutes.", source_path="notes/cache.md").document
    assert brain.write("A note nobody corrected.").notices == []
    brain.retract(first.id, reason="wrong service")
    again = brain.write("Cache TTL is ten minutes.", source_path="notes/cache.md")
    assert again.updated and again.document.status == "retracted"
    assert again.document.id == first.id and again.document.version == 2
    assert again.notices == [
        f"#{first.id} is retracted: hidden from searches and hovers; "
        f"`nano-brain confirm #{first.id}` makes it active again"
    ]
    # the same text again (nothing changes) says it too
    same = brain.write("Cache TTL is ten minutes.", source_path="notes/cache.md")
    assert not same.created and not same.updated and same.notices == again.notices
    # a superseded note rewritten stays superseded, and names what replaced it
    old = brain.write("Deploys happen on Fridays.", source_path="notes/deploy.md").document
    new = brain.write("Deploys happen on Tuesdays.", supersedes=f"#{old.id}").document
    rewritten = brain.write("Deploys happen on Fridays, late.", source_path="notes/deploy.md")
    assert rewritten.document.status == "superseded"
    assert rewritten.notices == [
        f"#{old.id} is superseded by #{new.id}: reads show #{new.id} instead; "
        f"`nano-brain confirm #{old.id}` makes it active again"
    ]
    brain.confirm(first.id)
    assert brain.write("Cache TTL is ten minutes.", source_path="notes/cache.md").notices == []


@BACKENDS
def test_an_explicit_write_of_a_forgotten_source_lifts_its_tombstone(brain: Brain) -> None:
    doc = brain.write("The ADR on caching.", source_path="docs/adr-7.md").document
    brain.forget(doc.id)
    assert [t["source"] for t in brain.tombstones()] == ["docs/adr-7.md"]
    # an indexer (respect_tombstone) still may not bring it back
    with pytest.raises(TombstonedError):
        brain.write("The ADR on caching.", source_path="docs/adr-7.md", respect_tombstone=True)
    written = brain.write("The ADR on caching, again.", source_path="docs/adr-7.md")
    assert written.created and brain.tombstones() == []
    assert written.notices == [
        "docs/adr-7.md was forgotten (`nano-brain forget`): this write brings it back and "
        "lifts its tombstone (`nano-brain forget` it again to keep it deleted)"
    ]
    lifted = brain.log(limit=2)
    assert [e.action for e in lifted] == ["write", "unforget"]
    assert lifted[1].details == {"source": "docs/adr-7.md", "by": "write"}
    # and the indexers may derive it again, as after `forget --undo`
    assert brain.write("indexed", source_path="docs/adr-7.md", respect_tombstone=True).updated


@BACKENDS
def test_the_cli_write_says_what_it_met(workspace: Path) -> None:
    runner = CliRunner()

    def cli(*args: str) -> str:
        out = runner.invoke(main, [*args, "-w", str(workspace)])
        assert out.exit_code == 0, out.output
        return out.output

    written = json.loads(cli("write", "Retries back off twice.", "--source-path", "r.md",
                             "--json"))  # fmt: skip
    doc = written["document"]["id"]
    cli("retract", f"#{doc}")
    human = cli("write", "Retries back off three times.", "--source-path", "r.md")
    assert human.splitlines()[1:] == [
        f"note: #{doc} is retracted: hidden from searches and hovers; "
        f"`nano-brain confirm #{doc}` makes it active again"
    ]
    cli("forget", f"#{doc}")
    data = json.loads(cli("write", "Retries back off.", "--source-path", "r.md", "--json"))
    assert data["created"] and data["notices"] == [
        "r.md was forgotten (`nano-brain forget`): this write brings it back and lifts its "
        "tombstone (`nano-brain forget` it again to keep it deleted)"
    ]
    assert json.loads(cli("tombstones", "--json")) == []
