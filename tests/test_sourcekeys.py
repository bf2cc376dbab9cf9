"""Source keys an indexer owns (commits, symbols, harvested sessions and decisions) are written
by that indexer only: a write from a front end to one is refused and writes nothing
(issue 31: `write --source-path git:<hash>` replaced an indexed commit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nano_brain import Brain
from nano_brain.anchoring import write_anchored
from nano_brain.cli import main
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.errors import InvalidInputError, TombstonedError
from nano_brain.indexing import index_workspace
from nano_brain.why import why

from .history.conftest import Repo

CODE = """\
    def settle(invoice):
        return invoice.total
    """

RESERVED = [
    ("git:{hash}", "git:", "git history index"),
    (" GIT:{hash}", "git:", "git history index"),
    ("Git:{hash} ", "git:", "git history index"),
    ("ｇｉｔ:{hash}", "git:", "git history index"),  # fullwidth letters: NFKC makes them git
    ("g\u200bit:{hash}", "git:", "git history index"),  # a zero-width space inside
    ("code://billing.py::settle", "code://", "code index"),
    ("decision://claude-code:/s.jsonl:1#ab12", "decision://", "session harvester"),
    ("claude-code:/home/a/.claude/projects/x/1.jsonl:1", "claude-code:", "session harvester"),
    ("Codex:/sessions/rollout.jsonl:7", "codex:", "session harvester"),
    ("pi:anything", "pi:", "session harvester"),
    ("opencode:db:ses_1", "opencode:", "session harvester"),
    ("gemini:/tmp/chats/session.json:3", "gemini:", "session harvester"),
]


@pytest.fixture
def indexed(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "project")
    repo.write("billing.py", CODE)
    repo.commit("billing: settle invoices")
    repo.write("billing.py", CODE.replace("invoice.total", "round(invoice.total, 2)"))
    repo.commit("billing: settle in cents (NB-4)")
    with _brain(repo.path) as brain:
        index_workspace(CodeIndex(brain))
    return repo


def _brain(root: Path, actor: str = "cli") -> Brain:
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=root.parent / "brain.db", actor=actor)


def _head(repo: Repo) -> str:
    return repo.git("rev-parse", "HEAD")


def _state(brain: Brain) -> tuple[object, ...]:
    status = brain.status()
    return status["documents"], status["chunks"], len(brain.log(limit=10_000))


@pytest.mark.parametrize(("key", "prefix", "owner"), RESERVED)
def test_a_write_to_a_reserved_key_is_refused_and_writes_nothing(
    indexed: Repo, key: str, prefix: str, owner: str
) -> None:
    source = key.format(hash=_head(indexed))
    with _brain(indexed.path, actor="mcp") as brain:
        before = _state(brain)
        commit = brain.get("git:" + _head(indexed))
        for attempt in (
            lambda: brain.write("spoofed commit", source_path=source),
            lambda: brain.write(
                "spoofed", kind="session", source_path=source, respect_tombstone=True
            ),
            lambda: write_anchored(brain, "spoofed", anchors=["settle"], source_path=source),
        ):
            with pytest.raises(InvalidInputError) as refused:
                attempt()
            message = str(refused.value)
            assert "reserved" in message and repr(prefix) in message and owner in message
            assert "\n" not in message
        assert _state(brain) == before
        assert brain.get("git:" + _head(indexed)) == commit


def test_urls_and_keys_that_only_contain_a_prefix_stay_writable(tiny_brain: Brain) -> None:
    for source in ("git://github.com/acme/billing.git", "docs/git:notes.md", "session://pi/1",
                   "notes/claude-code:tips.md", "https://example.com/decision://x"):  # fmt: skip
        assert tiny_brain.write(f"a note from {source}", source_path=source).created


def test_the_harvester_writes_its_keys_through_write_derived(tiny_brain: Brain) -> None:
    source = "claude-code:/home/a/.claude/projects/x/1.jsonl:1"
    first = tiny_brain.write_derived("Session: fixed the build", kind="session",
                                     collection="sessions", source_path=source)  # fmt: skip
    grown = tiny_brain.write_derived("Session: fixed the build, then the docs", kind="session",
                                     collection="sessions", source_path=source)  # fmt: skip
    assert first.created and grown.updated and grown.document.id == first.document.id
    tiny_brain.delete(first.document.id)
    with pytest.raises(TombstonedError):
        tiny_brain.write_derived("Session: again", kind="session", source_path=source)
    with pytest.raises(InvalidInputError, match="no key an indexer owns"):
        tiny_brain.write_derived("a note", source_path="notes/a.md")


def test_cli_write_to_a_commit_key_exits_2_and_the_commit_stays(indexed: Repo) -> None:
    head = _head(indexed)
    runner = CliRunner()
    where = ["-w", str(indexed.path), "--db", str(indexed.path.parent / "brain.db")]

    def cli(*args: str) -> dict:  # type: ignore[type-arg]
        result = runner.invoke(main, [*args, *where, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)  # type: ignore[no-any-return]

    before = cli("get", "git:" + head)
    for source in ("git:" + head, " GIT:" + head):
        refused = runner.invoke(main, ["write", "spoofed commit", "--source-path", source, *where])
        assert refused.exit_code == 2, refused.output
        assert "reserved" in refused.output and "git history index" in refused.output
    assert cli("get", "git:" + head) == before
    assert before["title"] == "billing: settle in cents (NB-4)" and before["version"] == 1
    subjects = [c["subject"] for c in cli("why", "settle", "--related", "0")["commits"]]
    assert subjects == ["billing: settle in cents (NB-4)", "billing: settle invoices"]
    with _brain(indexed.path) as brain:
        assert [c.hash for c in why(brain, "settle", related=0).commits][0] == head
