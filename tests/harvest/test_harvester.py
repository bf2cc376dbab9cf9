"""The harvester end to end: real transcripts in the agents' folders -> a real store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nano_brain import Brain, SearchRequest
from nano_brain.embedding import EmbeddingProvider
from nano_brain.errors import NotFoundError
from nano_brain.filters import Filters
from nano_brain.harvest import HarvestConfig, Harvester, HarvestLocations
from nano_brain.harvest.claude_code import encode_cwd
from nano_brain.store.rows import LexicalKind

from . import _layout
from ._util import with_garbage

CLAUDE_ID = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"

LEXICAL_KINDS: tuple[LexicalKind, ...] = ("words", "trigrams")


def _harvester(brain: Brain, home: HarvestLocations, **config: object) -> Harvester:
    return Harvester(brain, home, config=HarvestConfig(**config))


def _by_agent(report) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {item.agent: item for item in report.items}


def _audit_ids(brain: Brain) -> list[int]:
    return [entry.id for entry in brain.log(limit=10_000)]


def test_every_agent_harvested_with_golden_values(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _layout.claude(home, workspace)
    _layout.codex(home, workspace)
    _layout.pi(home, workspace)
    _layout.gemini(home, workspace)
    _layout.opencode_legacy(home, workspace)

    report = _harvester(hbrain, home).run_once()

    assert report.counts() == {"added": 5}
    items = _by_agent(report)
    # values read off the fixtures: session ids, first real requests, files from tool calls
    golden = {
        "claude-code": (CLAUDE_ID, "create hello.py, md and js", ["hello.js", "hello.md"]),
        "codex": ("019e1625-789d-76c0-80ab-3724b5ddb799", "show tools", []),
        "pi": (
            "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
            "read packages/coding-agent/docs/theme.md in full, then theme.ts",
            [],
        ),
        "gemini": ("37b7abef-713d-4522-85f0-8ff15a4e6d17", "show tools", ["hello.md"]),
        "opencode": (
            "test-session-1",
            "Create a test file with console.log statements",
            ["src/test.ts"],
        ),
    }
    for agent, (session_id, goal, written) in golden.items():
        item = items[agent]
        doc = hbrain.get(f"#{item.doc_id}")
        meta = doc.metadata["harvest"]
        assert doc.kind == "session" and doc.collection == "sessions", agent
        assert doc.author == "harvest" and doc.version == 1
        assert meta["session_id"] == session_id == item.session_id
        assert meta["agent"] == agent and meta["cwd"] == str(workspace)
        assert f"## Goal\n\n{goal}" in (doc.content or ""), agent
        for name in written:
            assert f"- `{name}`" in (doc.content or ""), (agent, name)
        assert {"session", f"agent:{agent}"} <= set(doc.tags)
        assert meta["source_version"] and meta["summarizer"] == "digest"

    claude = hbrain.get(f"#{items['claude-code'].doc_id}")
    meta = claude.metadata["harvest"]
    # three requests, seven distinct assistant API messages on the main thread (+2 sub-agent)
    assert meta["messages"]["assistant"] == 9 and meta["tool_calls"] == 6
    assert [Path(p).name for p in meta["source_paths"]] == [
        f"{CLAUDE_ID}.jsonl",
        "agent-36541525.jsonl",
        "agent-50243ee8.jsonl",
    ]
    assert meta["git_branch"] == "analytics-v2"
    assert claude.created_at.startswith("2025-12-10T19:37")  # when the session ran
    assert "- `rm hello.js`" in (claude.content or "")

    found = hbrain.search(SearchRequest(query="console.log statements", mode="lexical"))
    assert found.results and found.results[0].id == items["opencode"].doc_id


def test_summary_is_found_by_the_real_model(
    workspace: Path, home: HarvestLocations, real_provider: EmbeddingProvider
) -> None:
    _layout.claude(home, workspace)
    _layout.gemini(home, workspace)
    with Brain(workspace, provider=real_provider, actor="harvest") as brain:
        report = _harvester(brain, home).run_once()
        claude_id = _by_agent(report)["claude-code"].doc_id
        response = brain.search(
            SearchRequest(query="remove the javascript hello file", mode="vector", limit=2)
        )
    assert response.results[0].id == claude_id


def test_second_run_costs_a_stat_and_writes_nothing(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    _layout.codex(home, workspace)
    _harvester(hbrain, home).run_once()
    audit = _audit_ids(hbrain)

    # Same size and mtime, different bytes: only a re-read could notice. A fresh harvester
    # (no in-memory state) must still call it unchanged, from the stored metadata alone.
    stat = main.stat()
    main.write_bytes(b"x" * stat.st_size)
    os.utime(main, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    report = _harvester(hbrain, home).run_once()

    assert report.counts() == {"unchanged": 2}
    assert _audit_ids(hbrain) == audit
    assert all(item.version == 1 for item in report.items)


def test_touched_but_identical_source_is_parsed_once_and_not_rewritten(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    harvester = _harvester(hbrain, home)
    harvester.run_once()
    audit = _audit_ids(hbrain)
    os.utime(main, (main.stat().st_atime + 10, main.stat().st_mtime + 10))

    assert harvester.run_once().counts() == {"unchanged": 1}
    assert harvester.run_once().counts() == {"unchanged": 1}
    assert _audit_ids(hbrain) == audit


def test_grown_session_becomes_version_two(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    harvester = _harvester(hbrain, home)
    first = harvester.run_once().items[0]
    old = hbrain.get(f"#{first.doc_id}")

    _layout.append_claude_turn(
        main, workspace, "also add a README with usage", "DECISION: keep the README to one page."
    )
    report = harvester.run_once()

    assert report.counts() == {"updated": 1}
    item = report.items[0]
    assert item.doc_id == first.doc_id and item.version == 2
    history = hbrain.history(f"#{item.doc_id}")
    assert [v.version for v in history.versions] == [1, 2]
    new = history.versions[1]
    assert "also add a README with usage" in (new.content or "")
    assert "DECISION: keep the README to one page." in (new.content or "")
    assert "also add a README" not in (history.versions[0].content or "")
    assert new.metadata["harvest"]["source_version"] != old.metadata["harvest"]["source_version"]
    assert new.metadata["harvest"]["source_size"] == sum(
        Path(p).stat().st_size for p in new.metadata["harvest"]["source_paths"]
    )
    assert [e.action for e in hbrain.log(ref=f"#{item.doc_id}")] == ["edit", "write"]
    assert harvester.run_once().counts() == {"unchanged": 1}


def test_deleted_summary_stays_deleted(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    harvester = _harvester(hbrain, home)
    doc_id = harvester.run_once().items[0].doc_id
    hbrain.delete(f"#{doc_id}")

    assert _harvester(hbrain, home).run_once().counts() == {"tombstoned": 1}
    _layout.append_claude_turn(main, workspace, "one more thing", "Done.")
    assert harvester.run_once().counts() == {"tombstoned": 1}
    with pytest.raises(NotFoundError):
        hbrain.get(f"#{doc_id}")
    assert hbrain.list() == []

    hbrain.unforget(harvester.run_once().items[0].source)
    assert harvester.run_once().counts() == {"added": 1}


def test_secrets_never_reach_the_store(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    openai = "sk-proj-" + "Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
    aws = "AKIA" + "Q7XR4TZ2MB6LK9PW"
    github = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo"
    password = "hunter2-" + "Sup3rS3cret"
    main = _layout.claude(home, workspace)
    text = main.read_text()
    text = text.replace(
        '"create hello.py, md and js"',
        json.dumps(
            f"create hello.py, md and js; deploy with {openai} and AWS key {aws}\n"
            f"DB_PASSWORD={password}"
        ),
    )
    text = text.replace(
        "Done! I've deleted hello.js.", f"Done! I've deleted hello.js. Token: {github}"
    )
    main.write_text(text)

    item = _harvester(hbrain, home).run_once().items[0]
    assert item.action == "added" and item.redactions >= 4
    doc = hbrain.get(f"#{item.doc_id}")
    assert "[REDACTED:openai_key]" in (doc.content or "")
    assert doc.metadata["harvest"]["redactions"]["aws_access_key"] >= 1
    secrets = [openai, aws, github, password]
    for secret in secrets:
        assert secret not in (doc.content or "")
        assert secret not in json.dumps(doc.metadata)
        for kind in LEXICAL_KINDS:  # exact phrase in the word and the trigram index
            assert hbrain.store.lexical([secret], "AND", Filters(), 10, kind=kind) == [], secret
    for kind in LEXICAL_KINDS:  # the same query does find text that is there
        assert hbrain.store.lexical(["deleted hello.js"], "AND", Filters(), 10, kind=kind)
    hbrain.close()
    stored = b"".join(
        p.read_bytes() for p in hbrain.store.path.parent.iterdir() if p.name.startswith("brain.db")
    )
    assert b"create hello.py, md and js" in stored  # the check below reads the right files
    for secret in secrets:
        assert secret.encode() not in stored, secret


def test_malformed_line_is_skipped_and_counted(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    with_garbage(main, main, after_line=3)

    item = _harvester(hbrain, home).run_once().items[0]

    assert item.action == "added" and item.warnings == 1
    doc = hbrain.get(f"#{item.doc_id}")
    assert doc.metadata["harvest"]["warnings"] == 1
    assert "## Goal\n\ncreate hello.py, md and js" in (doc.content or "")


def test_other_workspaces_are_ignored(
    hbrain: Brain, home: HarvestLocations, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    _layout.claude(home, other)
    _layout.codex(home, other)
    # Claude Code's folder name maps every non-alphanumeric character to '-', so a project at
    # `<parent>_ws` shares the workspace's folder: the cwd recorded inside tells them apart.
    lookalike = Path(f"{workspace.parent}_{workspace.name}")
    assert encode_cwd(lookalike) == encode_cwd(workspace)
    _layout.claude_other(home, lookalike, home.claude_projects / encode_cwd(workspace))
    nested = workspace / "x"
    nested.mkdir()
    _layout.pi(home, nested)  # a sub-folder of the workspace belongs to it

    report = _harvester(hbrain, home).run_once()

    assert report.counts() == {"added": 1, "other-workspace": 1}
    assert _by_agent(report)["pi"].action == "added"
    assert [d.title for d in hbrain.list()] == [report.changed[0].title]
    assert _harvester(hbrain, home).run_once().counts() == {
        "other-workspace": 1,
        "unchanged": 1,
    }


def test_dry_run_writes_nothing(hbrain: Brain, home: HarvestLocations, workspace: Path) -> None:
    _layout.claude(home, workspace)
    _layout.gemini(home, workspace)

    report = _harvester(hbrain, home).run_once(dry_run=True)

    assert report.dry_run and report.counts() == {"added": 2}
    assert hbrain.list() == [] and _audit_ids(hbrain) == []


def test_session_still_being_written_waits_until_it_settles(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    _layout.claude(home, workspace)  # just written: mtime is now
    harvester = _harvester(hbrain, home)

    report = harvester.run_once(settle_s=3600)

    assert report.counts() == {"settling": 1}
    assert 3500 < (report.items[0].due_in_s or 0) <= 3600
    assert hbrain.list() == []
    assert harvester.run_once(settle_s=0.0).counts() == {"added": 1}


def test_agent_selection(hbrain: Brain, home: HarvestLocations, workspace: Path) -> None:
    _layout.claude(home, workspace)
    _layout.gemini(home, workspace)

    assert [i.agent for i in _harvester(hbrain, home).run_once(agents=["gemini"]).items] == [
        "gemini"
    ]
    only_codex = _harvester(hbrain, home, agents=["codex"]).run_once()
    assert only_codex.items == []


def test_ticket_ids_from_the_branch_become_tags(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = _layout.claude(home, workspace)
    main.write_text(main.read_text().replace('"analytics-v2"', '"feature/NB-142-harvest"'))

    item = _harvester(hbrain, home).run_once().items[0]

    assert "ticket:NB-142" in hbrain.get(f"#{item.doc_id}").tags


def test_review_mode_leaves_harvested_summaries_unreviewed(
    workspace: Path, home: HarvestLocations
) -> None:
    from nano_brain.config import load_config

    from ..conftest import TinyEmbedder

    config = load_config(workspace, overrides={"review": {"enabled": True}})
    _layout.gemini(home, workspace)
    with Brain(workspace, config=config, provider=TinyEmbedder(), actor="harvest") as brain:
        item = _harvester(brain, home).run_once().items[0]
        assert brain.get(f"#{item.doc_id}").status == "unreviewed"


def test_a_deletion_by_another_process_is_seen_by_a_long_lived_harvester(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    from ..conftest import TinyEmbedder

    _layout.claude(home, workspace)
    harvester = _harvester(hbrain, home)
    doc_id = harvester.run_once().items[0].doc_id
    assert harvester.run_once().counts() == {"unchanged": 1}  # snapshot now cached
    with Brain(workspace, db_path=hbrain.store.path, provider=TinyEmbedder(), actor="cli") as cli:
        cli.delete(f"#{doc_id}")
    assert harvester.run_once().counts() == {"tombstoned": 1}


def test_long_conversations_are_clipped_to_fit_the_store(
    workspace: Path, home: HarvestLocations
) -> None:
    from nano_brain.config import load_config

    from ..conftest import TinyEmbedder

    config = load_config(workspace, overrides={"storage": {"max_content_bytes": 30_000}})
    _layout.pi(home, workspace)  # ~1 MB of transcript, far more conversation than 30 kB
    with Brain(workspace, config=config, provider=TinyEmbedder(), actor="harvest") as brain:
        item = _harvester(brain, home).run_once().items[0]
        assert item.action == "added", item.error
        content = brain.get(f"#{item.doc_id}").content or ""
    assert len(content.encode()) <= 30_000
    assert "characters omitted" in content
    assert "## Goal\n\nread packages/coding-agent/docs/theme.md in full" in content


def test_sessions_get_no_auto_category_tags(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    """A whole conversation matches every category's keywords; a note still gets its own."""
    _layout.claude(home, workspace)
    _layout.codex(home, workspace)
    report = _harvester(hbrain, home).run_once()
    for item in report.items:
        doc = hbrain.get(f"#{item.doc_id}")
        assert sorted(doc.tags) == ["agent:" + item.agent, "session"], doc.tags
        note = hbrain.write(doc.content or "", title="the same text, as a note")
        assert any(tag.startswith("auto:") for tag in note.document.tags)
    assert hbrain.list(Filters(tags=("auto:architecture-decision",), kinds=("session",))) == []
