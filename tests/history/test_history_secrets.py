"""Secrets in a repository's commits (message, author name and e-mail) are redacted before the
history index stores them: `get`, search, `why` and listing commits show markers, never the
secret (issue 31: a repository may come from a stranger)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from nano_brain import Brain
from nano_brain.cli import main
from nano_brain.codeindex import CodeIndex
from nano_brain.filters import Filters
from nano_brain.history import History
from nano_brain.indexing import index_workspace
from nano_brain.search import validate_request
from nano_brain.why import why

from .conftest import Repo

BrainOf = Callable[..., Brain]

AWS_ID = "AKIAQYLPMN5HFIQR7XZA"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKX"
GITHUB = "ghp_4Fq7Zr2Lw9Xc1Vb8Nm3Kp6Tj0Hs5Gd7Ya2Qe"
GITHUB_2 = "ghp_9Zk3Lm8Qw2Er5Ty7Ui1Op4As6Df0Gh3Jk5Lx"
PASSWORD = "Tr0ub4dor-Horse-9"
URL_PASSWORD = "s3cr3t-Pw"
SECRETS = (AWS_ID, AWS_SECRET, GITHUB, GITHUB_2, PASSWORD, URL_PASSWORD)

MESSAGE = f"""backups: rotate the leaked {GITHUB} token

aws_access_key_id={AWS_ID}
aws_secret_access_key={AWS_SECRET}
password={PASSWORD}
DATABASE_URL=postgresql://deploy:{URL_PASSWORD}@db.internal/app
"""
AUTHOR = f"Mallory {GITHUB_2} <mallory+{GITHUB_2}@example.com>"

CODE = """\
    def restore_backup(path):
        return open(path).read()
    """


def _leaks(value: object) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return [s for s in SECRETS if s in text]


def _indexed(repo: Repo, brain_of: BrainOf) -> tuple[Brain, str]:
    repo.write("backup.py", CODE)
    repo.commit("backup: first version")
    repo.write("backup.py", CODE.replace("open(path)", "open(path, encoding='utf-8')"))
    secret = repo.commit(MESSAGE, author=AUTHOR)
    brain = brain_of(repo.path)
    report = History(brain).index()
    assert (report.state, report.added) == ("indexed", 2)
    return brain, secret


def test_a_commit_is_stored_with_its_secrets_redacted(repo: Repo, brain_of: BrainOf) -> None:
    brain, secret = _indexed(repo, brain_of)
    doc = brain.get("git:" + secret)
    assert _leaks(doc.model_dump()) == []
    content = doc.content or ""
    for marker in ("[REDACTED:github_token]", "[REDACTED:aws_access_key]",
                   "[REDACTED:aws_secret_key]", "[REDACTED:url_password]"):  # fmt: skip
        assert marker in content, marker
    assert "password=[REDACTED:" in content
    assert doc.title == "backups: rotate the leaked [REDACTED:github_token] token"
    assert doc.metadata["author"] == "Mallory [REDACTED:github_token]"
    assert doc.metadata["email"] == "mallory+[REDACTED:github_token]@example.com"
    assert doc.metadata["hash"] == secret  # a hex digest is no secret: the key stays whole


def test_search_why_and_list_show_no_secret(repo: Repo, brain_of: BrainOf) -> None:
    brain, secret = _indexed(repo, brain_of)
    listed = brain.list(Filters(kinds=("commit",)))
    assert len(listed) == 2 and _leaks([d.model_dump() for d in listed]) == []
    hits = brain.search(validate_request(query="backups rotate leaked token", kind=["commit"]))
    assert [h.id for h in hits.results][:1] == [brain.get("git:" + secret).id]
    assert _leaks(hits.model_dump()) == []
    # the secret itself finds nothing: it is not in the full-text index either
    assert brain.search(validate_request(query=GITHUB, kind=["commit"])).results == []
    index_workspace(CodeIndex(brain))
    view = why(brain, "restore_backup", related=0)
    assert [c.hash for c in view.commits][:1] == [secret]
    assert "[REDACTED:github_token]" in view.commits[0].subject
    assert _leaks(view.model_dump()) == [] and _leaks(view.text) == []


def test_the_cli_shows_no_secret_of_a_commit(repo: Repo, tmp_path: Path) -> None:
    repo.write("backup.py", CODE)
    secret = repo.commit(MESSAGE, author=AUTHOR)
    runner = CliRunner()
    where = ["-w", str(repo.path), "--db", str(tmp_path / "cli.db")]

    def cli(*args: str) -> str:
        result = runner.invoke(main, [*args, *where])
        assert result.exit_code == 0, result.output
        return result.stdout

    cli("index", "--no-embed")
    outputs = [
        cli("get", "git:" + secret, "--json"),
        cli("get", "git:" + secret),
        cli("list", "--kind", "commit", "--json"),
        cli("search", "backups", "rotate", "--kind", "commit", "--json"),
        cli("why", "restore_backup", "--json"),
        cli("why", "restore_backup"),
    ]
    assert [_leaks(out) for out in outputs] == [[]] * len(outputs)
    assert "[REDACTED:github_token]" in outputs[0] and "[REDACTED:github_token]" in outputs[4]


def test_a_history_indexed_before_redaction_is_read_again_once(
    repo: Repo, brain_of: BrainOf, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nano_brain.history import indexer

    with monkeypatch.context() as old_version:  # what the history index stored before
        old_version.setattr(indexer, "redact_text", lambda text: text)
        brain, secret = _indexed(repo, brain_of)
        brain.store.meta_set("history_redacted", "")
    assert _leaks(brain.get("git:" + secret).model_dump()) != []
    report = History(brain).index()
    assert (report.state, report.added) == ("indexed", 2)
    assert _leaks(brain.get("git:" + secret).model_dump()) == []
    assert History(brain).index().state == "up-to-date"  # once only
