"""Team mode keeps the clone's git history beside its code index (the clone's own SQLite
file, never the shared PostgreSQL) and shows it: `why`, the hover's history and a search
for commits answer as a local store of the same clone does (issue 32).

Lexical only (`embedding.provider: none`): no vector query reaches the team store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from nano_brain import Brain, SearchRequest
from nano_brain.cli import main
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.history import History
from nano_brain.indexing import index_workspace
from nano_brain.store.postgres import testserver
from nano_brain.store.team import TeamStore
from nano_brain.why import hover_history, why

from ..test_why import BILLING
from .conftest import Repo


def _project(root: Path) -> Repo:
    repo = Repo(root)
    repo.write("billing.py", BILLING.replace("days > 30", "days > 60"))
    repo.commit("billing: invoices and refunds")
    repo.write("billing.py", BILLING)
    repo.commit("billing: no refunds after 30 days (NB-12)\n\nThe provider cannot reverse them.")
    repo.move("billing.py", "shop/billing.py")
    repo.commit("shop: billing moves into the shop package")
    repo.write("shop/billing.py", BILLING.replace("return 0", "return 0  # final"))
    repo.commit("shop: say the refund window is final (NB-13)")
    return repo


def _local(root: Path, db: Path) -> Brain:
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=db)


def _team(root: Path, url: str, workspace: str) -> Brain:
    config = load_config(
        root,
        overrides={
            "storage": {"url": url, "workspace": workspace},
            "user": {"name": "Ann"},
            "embedding": {"provider": "none"},
        },
    )
    return Brain(root, config=config)


def _views(brain: Brain) -> dict[str, Any]:
    view = why(brain, "refund_amount", related=0)
    commits, _ = hover_history(brain, view.symbol, view.path, commits=3, sessions=0)
    found = brain.search(
        SearchRequest(query="refund window final", mode="lexical", kind=["commit"])
    ).results
    plain = brain.search(SearchRequest(query="refunds provider reverse", mode="lexical")).results
    return {
        "why": [
            (c.hash, c.subject, c.change, c.name, c.author, c.date, c.tickets) for c in view.commits
        ],
        "hover": [(c.hash, c.subject) for c in commits],
        "history": view.history,
        "search": [(h.title, h.kind) for h in found],
        "query": [(h.title, h.kind) for h in plain if h.kind == "commit"],
    }


def test_a_team_clone_shows_the_same_commits_as_a_local_store(
    tmp_path: Path, pg_server: testserver.TestServer
) -> None:
    repo = _project(tmp_path / "clone")
    (tmp_path / "local").mkdir()
    with _local(repo.path, tmp_path / "local" / "brain.db") as local:
        index_workspace(CodeIndex(local))
        assert History(local).index().commits == 4
        expected = _views(local)
    assert len(expected["why"]) == 3  # the move changed no line
    assert expected["search"][:1] == [("shop: say the refund window is final (NB-13)", "commit")]
    assert expected["query"]  # a plain query's history leg finds the commit

    with _team(repo.path, pg_server.app_url, "team/why") as team:
        history = index_workspace(CodeIndex(team)).history  # the index pass runs it
        assert history is not None and (history["state"], history["commits"]) == ("indexed", 4)
        assert _views(team) == expected
        # kept with the clone (its code index's file), shown as its own documents
        commit = team.get(_hash_of(expected))
        assert commit.kind == "commit" and commit.source_path == _hash_of(expected)
        # forgetting one is the clone's business too: gone from `why`, its tombstone local
        team.forget(commit.id)
        assert _hash_of(expected) not in [
            f"git:{c.hash}" for c in why(team, "refund_amount", related=0).commits
        ]
        store = team.store
        assert isinstance(store, TeamStore)
        assert store.local.tombstone(_hash_of(expected)) is not None
        assert store.team.tombstone(_hash_of(expected)) is None
    # the shared PostgreSQL never holds a commit: not a document, not a meta key
    with psycopg.connect(pg_server.owner_url) as conn:
        kinds = conn.execute(
            "SELECT count(*) FROM documents WHERE workspace_id = 'team/why' AND kind = 'commit'"
        ).fetchone()
        keys = conn.execute(
            "SELECT key FROM meta WHERE workspace_id = 'team/why' AND key LIKE 'history%'"
        ).fetchall()
    assert kinds == (0,) and keys == []
    # a second run finds it up to date (the clone's own head is remembered with the clone);
    # a new commit is read on top, and the forgotten one stays forgotten
    with _team(repo.path, pg_server.app_url, "team/why") as team:
        assert History(team).index().state == "up-to-date"
        repo.write("shop/billing.py", BILLING.replace("return 0", "return 0  # final, NB-14"))
        repo.commit("shop: name the ticket (NB-14)")
        report = History(team).index()
        assert (report.state, report.added, report.commits) == ("indexed", 1, 4)
        hashes = [f"git:{c.hash}" for c in why(team, "refund_amount", related=0).commits]
        assert len(hashes) == 3 and _hash_of(expected) not in hashes


def _hash_of(views: dict[str, Any]) -> str:
    return "git:" + str(views["why"][0][0])


def test_nano_brain_index_indexes_the_history_in_team_mode(
    tmp_path: Path, pg_server: testserver.TestServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _project(tmp_path / "clone")
    monkeypatch.setenv("NANO_BRAIN_STORAGE__URL", pg_server.app_url)
    monkeypatch.setenv("NANO_BRAIN_STORAGE__WORKSPACE", "team/index")
    monkeypatch.setenv("NANO_BRAIN_EMBEDDING__PROVIDER", "none")
    runner = CliRunner()
    out = runner.invoke(main, ["index", "--no-embed", "--json", "-w", str(repo.path)])
    assert out.exit_code == 0, out.output
    why_out = runner.invoke(main, ["why", "refund_amount", "--related", "0", "-w", str(repo.path)])
    assert why_out.exit_code == 0, why_out.output
    assert "shop: say the refund window is final (NB-13)" in why_out.output
    assert "4 commits indexed" in why_out.output
