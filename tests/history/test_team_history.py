"""Team mode keeps the clone's git history beside its code index (the clone's own SQLite
file, never the shared PostgreSQL) and shows it: `why`, the hover's history and a search
for commits answer as a local store of the same clone does (issue 32).

Lexical only (`embedding.provider: none`), but for the commit messages' vectors: kept with
the clone's history, in the team's text space, and shared between clones."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from click.testing import CliRunner

from nano_brain import Brain, SearchRequest
from nano_brain.cli import main
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.embedding import EmbeddingProvider
from nano_brain.history import History
from nano_brain.indexing import index_workspace
from nano_brain.store.postgres import testserver
from nano_brain.store.team import TeamStore
from nano_brain.why import hover_history, why

from ..store.test_shared_vectors import CountingEmbedder
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


def _team_embedding(root: Path, url: str, workspace: str, provider: EmbeddingProvider) -> Brain:
    config = load_config(
        root, overrides={"storage": {"url": url, "workspace": workspace}, "user": {"name": "Ann"}}
    )
    return Brain(root, config=config, provider=provider)


def _commit_vectors(store: TeamStore) -> dict[str, np.ndarray]:
    """The clone's commit-message vectors, by the message's first line."""
    rows = store.local._rows(
        "SELECT c.id, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id "
        "WHERE d.kind = 'commit' AND c.embedded = 1"
    )
    vectors = store.local.vectors_by_chunk([r[0] for r in rows])
    return {title: vectors[chunk] for chunk, title in rows}


def test_a_team_clone_embeds_its_commit_messages_and_finds_them_by_meaning(
    tmp_path: Path, pg_server: testserver.TestServer, real_provider: EmbeddingProvider
) -> None:
    repo = _project(tmp_path / "clone")
    with _team_embedding(repo.path, pg_server.app_url, "team/why-vectors", real_provider) as team:
        team.write("Invoices are sent on the first day of the month.")
        index_workspace(CodeIndex(team), embed=True)
        team.embed_pending()
        store = team.store
        assert isinstance(store, TeamStore)
        assert store.pending_count() == 0
        # one vector per commit message, kept with the clone's history; the note's in the team's
        subjects = repo.git("log", "--format=%s").splitlines()
        assert sorted(_commit_vectors(store)) == sorted(subjects)
        assert store.local.vector_counts()["text"] == len(subjects)
        assert store.team.vector_counts()["text"] == 1
        # found by meaning alone: no word of the query is in the commit
        request = SearchRequest(
            query="why can't the payment processor undo repayments",
            mode="vector",
            kind=["commit"],
        )
        found = team.search(request).results
        assert found[0].title == "billing: no refunds after 30 days (NB-12)"
        # notes and commits in one vector leg, each from its own store
        both = team.search(
            SearchRequest(query="when are invoices sent", mode="vector", kind=["note", "commit"])
        ).results
        assert both[0].kind == "note" and {h.kind for h in both} == {"note", "commit"}


def test_a_second_clone_reuses_the_first_clones_commit_vectors(
    tmp_path: Path, pg_server: testserver.TestServer
) -> None:
    model = f"test/commits-{tmp_path.name}"
    repo = _project(tmp_path / "a")
    clone = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(repo.path), str(clone)], check=True)
    first, second = CountingEmbedder(model), CountingEmbedder(model)
    with _team_embedding(repo.path, pg_server.app_url, "team/why-shared", first) as a:
        index_workspace(CodeIndex(a), embed=True)
        a.embed_pending()
        store = a.store
        assert isinstance(store, TeamStore)
        made = _commit_vectors(store)
        a.write("Refunds stop after thirty days.")
        a.embed_pending()
    assert len(made) == 4
    with _team_embedding(clone, pg_server.app_url, "team/why-shared", second) as b:
        index_workspace(CodeIndex(b), embed=True)
        b.embed_pending()
        store = b.store
        assert isinstance(store, TeamStore)
        reused = _commit_vectors(store)
    assert second.texts == []  # code and commit messages: all embedded by the first clone
    assert reused.keys() == made.keys()
    for subject, vector in made.items():
        assert np.array_equal(reused[subject], vector), subject
    # the note was embedded once, by the clone that wrote it, and never published
    assert sum("thirty days" in t for t in first.texts) == 1
    with psycopg.connect(pg_server.owner_url) as conn:
        published = conn.execute(
            "SELECT count(*) FROM shared_vectors WHERE model = %s", (model,)
        ).fetchone()
    assert published is not None and published[0] == len(set(first.texts)) - 1
