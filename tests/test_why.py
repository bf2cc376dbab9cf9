"""`why`: notes and decisions anchored from any front end, commits, sessions, related memory;
anchors that resolve or fail cleanly; commits in search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nano_brain import Brain
from nano_brain.anchoring import anchor, unanchor, write_anchored
from nano_brain.cli import main
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.errors import InvalidInputError, NotFoundError
from nano_brain.filters import Filters
from nano_brain.indexing import index_workspace
from nano_brain.search import validate_request
from nano_brain.why import why
from nano_brain.workspace import Workspace

from .history.conftest import Repo

BILLING = """\
    def compute_invoice_total(items, tax_rate):
        subtotal = sum(items)
        return round(subtotal * (1 + tax_rate), 2)


    class RefundPolicy:
        def refund_amount(self, order, days):
            if days > 30:
                return 0
            return order.total
    """

HELPERS = """\
    def helper():
        return 1
    """


@pytest.fixture
def project(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "project")
    repo.write("billing.py", BILLING.replace("days > 30", "days > 60"))
    repo.write("a/helpers.py", HELPERS)
    repo.write("b/helpers.py", HELPERS)
    repo.commit("billing: invoices and refunds")
    repo.write("billing.py", BILLING)
    repo.commit("billing: no refunds after 30 days (NB-12)\n\nThe provider cannot reverse them.")
    return repo


def _brain(root: Path, actor: str = "cli") -> Brain:
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    return Brain(root, config=config, db_path=root.parent / "brain.db", actor=actor)


def test_why_gathers_notes_commits_sessions_and_related_memory(project: Repo) -> None:
    with _brain(project.path) as brain:
        index_workspace(CodeIndex(brain))
    with _brain(project.path, actor="mcp") as agent:
        decision = write_anchored(
            agent,
            "Refund window is thirty days\n\nThe provider cannot reverse older charges.",
            title="Refund window is thirty days",
            tags=["decision"],
            anchors=["RefundPolicy.refund_amount"],
        )
    with _brain(project.path, actor="harvest") as harvest:
        edited = harvest.write(
            "Session: tighten refunds", title="Tighten refunds", kind="session",
            metadata={"harvest": {"files_changed": ["billing.py", "README.md"]}},
        ).document  # fmt: skip
        ticket = harvest.write(
            "Session: talk to the payment provider", title="Provider call", kind="session",
            tags=["ticket:NB-12"],
        ).document  # fmt: skip
        harvest.write("Session: docs only", title="Docs", kind="session",
                      metadata={"harvest": {"files_changed": ["docs/x.md"]}})  # fmt: skip
    with _brain(project.path) as brain:
        note = brain.write("Refund amounts go back to the original card.", title="Refund method")
        view = why(brain, "refund_amount")
    assert decision.anchored_to[0].symbol == "billing.py::RefundPolicy.refund_amount"
    assert view.symbol == "billing.py::RefundPolicy.refund_amount"
    assert [(n.id, n.decision, n.author, n.stale) for n in view.notes] == [
        (decision.document.id, True, "agent (MCP)", None)
    ]
    assert [(c.subject, c.change) for c in view.commits] == [
        ("billing: no refunds after 30 days (NB-12)", "modified"),
        ("billing: invoices and refunds", "added"),
    ]
    assert view.commits[0].tickets == ["NB-12"] and view.commits[0].author == "Ada Lovelace"
    assert [(s.id, s.via) for s in view.sessions] == [
        (edited.id, "file"), (ticket.id, "ticket NB-12")
    ]  # fmt: skip
    assert note.document.id in [r.id for r in view.related]
    assert view.history == "2 commits indexed"
    for expected in ("# Why `RefundPolicy.refund_amount`", "Refund window is thirty days",
                     "by agent (MCP)", "no refunds after 30 days", "Tighten refunds",
                     "ticket NB-12"):  # fmt: skip
        assert expected in view.text
    assert len(why(brain_again := _brain(project.path), "refund_amount",
                   budget_chars=200).text) <= 200  # fmt: skip
    brain_again.close()


def test_a_changed_symbol_flags_its_note_stale(project: Repo) -> None:
    with _brain(project.path) as brain:
        index_workspace(CodeIndex(brain))
        note = write_anchored(brain, "Totals round after tax.", anchors=["compute_invoice_total"])
        project.write("billing.py", BILLING.replace("round(", "int("))
        index_workspace(CodeIndex(brain))
        view = why(brain, "compute_invoice_total")
    assert [(n.id, n.stale) for n in view.notes] == [(note.document.id, "changed")]
    assert "may be stale" in view.text


LONG_LINE = (
    "Refunds are refused after thirty days because the payment provider cannot reverse a "
    "charge older than that, so support offers store credit instead."
)


@pytest.mark.parametrize(
    ("content", "title", "quote"),
    [
        # one long line: the derived title is its first 80 characters, the quote the whole line
        (LONG_LINE, None, LONG_LINE),
        # a given title the text merely begins with: the sentence stays whole
        ("Refund window is thirty days, set by the provider.", "Refund window",
         "Refund window is thirty days, set by the provider."),
        # a heading line that is the title is said once, above the quote
        ("# Refund window\n\nThirty days, set by the provider.", None,
         "Thirty days, set by the provider."),
    ],
)  # fmt: skip
def test_why_quotes_a_note_whole_when_its_text_begins_with_its_title(
    project: Repo, content: str, title: str | None, quote: str
) -> None:
    from nano_brain.lsp.features import note_views

    with _brain(project.path) as brain:
        index_workspace(CodeIndex(brain))
        note = write_anchored(brain, content, title=title, anchors=["RefundPolicy.refund_amount"])
        view = why(brain, "refund_amount", snippet_chars=400)
        anchors = CodeIndex(brain).anchors(
            symbols=["billing.py::RefundPolicy.refund_amount"], visible=Filters()
        )

        class _Folder:
            reader = Workspace(brain)

        hover = note_views(_Folder(), anchors, None, 400)  # type: ignore[arg-type]
    assert [n.snippet for n in view.notes] == [quote]
    assert f"> {quote}" in view.text.replace("\\", "")
    assert [(v.id, v.snippet) for v in hover] == [(note.document.id, quote)]


def test_ambiguous_and_unknown_anchors_write_nothing(project: Repo) -> None:
    with _brain(project.path) as brain:
        index_workspace(CodeIndex(brain))
        before = brain.store.counts()["documents"]
        with pytest.raises(InvalidInputError) as err:
            write_anchored(brain, "Helpers must stay pure.", anchors=["helper"])
        assert "a/helpers.py::helper" in str(err.value) and "b/helpers.py::helper" in str(err.value)
        with pytest.raises(NotFoundError):
            write_anchored(brain, "Helpers must stay pure.", anchors=["no_such_function"])
        assert brain.store.counts()["documents"] == before
        assert brain.list(Filters(kinds=("note",))) == []
        done = write_anchored(brain, "Helpers must stay pure.", anchors=["a/helpers.py::helper"])
        assert [a.symbol for a in done.anchored_to] == ["a/helpers.py::helper"]


def test_anchor_and_unanchor_an_existing_note(project: Repo) -> None:
    with _brain(project.path) as brain:
        index_workspace(CodeIndex(brain))
        note = brain.write("Refunds are computed per order.").document
        done = anchor(brain, f"#{note.id}", "RefundPolicy.refund_amount")
        assert (done.symbol, done.state) == ("billing.py::RefundPolicy.refund_amount", "ok")
        assert [n.id for n in why(brain, "refund_amount", related=0).notes] == [note.id]
        assert unanchor(brain, f"#{note.id}", "refund_amount") is True
        assert unanchor(brain, f"#{note.id}", "refund_amount") is False
        assert why(brain, "refund_amount", related=0).notes == []
        assert [e.action for e in brain.log(ref=note.id)][:2] == ["unanchor", "anchor"]


def test_commits_in_search(project: Repo) -> None:
    with _brain(project.path) as brain:
        index_workspace(CodeIndex(brain))
        note = brain.write("Refunds after thirty days: none, the provider cannot reverse.")
        general = brain.search(validate_request(query="provider cannot reverse", explain=True))
        commits = brain.search(
            validate_request(query="provider cannot reverse", kind=["commit"], explain=True)
        )
    ids = [hit.id for hit in general.results]
    assert ids[0] == note.document.id  # the note above the commit that says the same
    commit = next(h for h in general.results if h.kind == "commit")
    assert commit.title == "billing: no refunds after 30 days (NB-12)"
    assert "history_rrf" in commit.explain and general.legs["history"] == "ok"  # type: ignore[operator]
    assert {h.kind for h in commits.results} == {"commit"}
    assert commits.results[0].title == "billing: no refunds after 30 days (NB-12)"
    assert "lexical_rrf" in commits.results[0].explain  # type: ignore[operator]


def test_cli_write_anchor_why_unanchor_and_sessions_by_ticket(project: Repo) -> None:
    root = str(project.path)
    db = str(project.path.parent / "cli.db")
    runner = CliRunner()

    def cli(*args: str) -> dict:
        result = runner.invoke(main, [*args, "-w", root, "--db", db, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)  # progress goes to stderr

    cli("index", "--no-embed")
    wrote = cli("write", "Refunds stop after thirty days.", "--title", "Refund window",
                "--tag", "decision", "--anchor", "RefundPolicy.refund_amount")  # fmt: skip
    note = wrote["document"]["id"]
    assert [a["symbol"] for a in wrote["anchored_to"]] == ["billing.py::RefundPolicy.refund_amount"]
    view = cli("why", "refund_amount", "--related", "0")
    assert [n["id"] for n in view["notes"]] == [note]
    assert view["commits"][0]["subject"].startswith("billing: no refunds")
    assert cli("unanchor", f"#{note}", "refund_amount")["removed"] is True
    assert cli("anchor", f"#{note}", "compute_invoice_total")["symbol"].endswith(
        "::compute_invoice_total"
    )
    bad = runner.invoke(main, ["anchor", f"#{note}", "helper", "-w", root, "--db", db])
    assert bad.exit_code == 2 and "a/helpers.py::helper" in bad.output
    human = runner.invoke(main, ["why", "compute_invoice_total", "-w", root, "--db", db])
    assert human.exit_code == 0 and "Refund window" in human.output
    commits = cli("query", "refunds", "--kind", "commit")["results"]
    assert commits and all(h["kind"] == "commit" for h in commits)
    cli("write", "Session about NB-12", "--kind", "session", "--tag", "ticket:NB-12")
    listed = cli("sessions", "--ticket", "NB-12")
    assert sorted(d["kind"] for d in listed) == ["commit", "session"]
    refused = runner.invoke(main, ["write", "x", "--kind", "commit", "-w", root, "--db", db])
    assert refused.exit_code == 2 and "commits come from the git history" in refused.output


def test_why_without_git_says_so(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 1\n")
    with _brain(root) as brain:
        report = index_workspace(CodeIndex(brain))
        assert report.history is not None and report.history["state"] == "no-git"
        view = why(brain, "f", related=0)
    assert view.commits == [] and view.history == "not a git repository: no commit history"
    assert "not a git repository" in view.text


def test_git_missing_is_reported(project: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(project.path))  # no git on it
    with _brain(project.path) as brain:
        from nano_brain.history import History

        report = History(brain).index()
    assert report.state == "git-missing" and "git is not installed" in report.message
