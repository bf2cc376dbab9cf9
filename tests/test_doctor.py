"""`nano-brain doctor`: every check on a real install and a real store, each problem found
with its fix, nothing changed unless `--repair` is asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from nano_brain import Brain, doctor, paths
from nano_brain.serving.security import load_or_create_token
from nano_brain.serving.statefiles import token_path
from nano_brain.store.sqlite._driver import sqlite_module

EXE = str(Path(sys.executable).with_name("nano-brain"))


def cli(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NANO_BRAIN_EMBEDDING__PROVIDER": "none"}
    return subprocess.run(
        [EXE, "doctor", "--workspace", str(workspace), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def by_name(report: doctor.Report) -> dict[tuple[str, str], doctor.Check]:
    return {(c.area, c.name): c for c in report.checks}


def test_a_fresh_workspace_is_healthy_and_no_store_is_made(workspace: Path) -> None:
    report = doctor.run(workspace)
    checks = by_name(report)
    assert report.errors == 0, doctor.render(report)
    assert checks[("install", "sqlite-vec")].level == "ok"
    assert checks[("install", "tree-sitter")].detail.startswith("grammars: python")
    assert "no store yet" in checks[("store", "store")].detail
    assert not paths.default_db_path(workspace).exists()
    assert all(c.level != "ok" or not c.fix for c in report.checks)


def test_a_drifted_full_text_index_is_an_error_until_repaired(lexical_brain: Brain) -> None:
    workspace = lexical_brain.root
    doc = lexical_brain.write("Retries back off exponentially.", title="Retry backoff").document
    db = lexical_brain.store.path
    lexical_brain.close()
    raw = sqlite_module().connect(str(db))
    chunk, title, body = raw.execute("SELECT id, title, body FROM chunks").fetchone()
    # the index loses the chunk its content table still has
    raw.execute(
        "INSERT INTO chunks_fts (chunks_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)",
        (chunk, title, body),
    )
    raw.commit()
    raw.close()

    found = cli(workspace, "--json")
    assert found.returncode == 1, found.stderr
    report = json.loads(found.stdout)
    [fulltext] = [c for c in report["checks"] if c["name"] == "full-text"]
    assert fulltext["level"] == "error" and "chunks_fts" in fulltext["detail"]
    assert fulltext["fix"] == "nano-brain doctor --repair"
    assert cli(workspace, "--json").returncode == 1  # looking changed nothing

    repaired = cli(workspace, "--repair")
    assert repaired.returncode == 0, repaired.stdout
    assert "full-text indexes rebuilt" in repaired.stdout
    with Brain(workspace, provider=None) as brain:
        from nano_brain.search import validate_request

        hits = brain.search(validate_request(query="exponentially", mode="lexical")).results
        assert [h.id for h in hits] == [doc.id]


def test_files_others_may_read_are_errors_and_are_left_as_found(workspace: Path) -> None:
    wid = paths.workspace_id(workspace)
    load_or_create_token(wid)
    token = token_path(wid)
    token.chmod(0o644)
    checks = by_name(doctor.run(workspace))
    problem = checks[("files", "token file")]
    assert problem.level == "error" and "others may read it" in problem.detail
    assert problem.fix == f"chmod 600 {token}"
    assert oct(token.stat().st_mode & 0o777) == "0o644"
    assert checks[("files", "state folder")].level == "ok"


def test_config_warnings_and_a_model_mismatch_come_with_their_fix(brain: Brain) -> None:
    brain.write("Vectors come from the default model.", title="Vectors")
    with brain.store.transaction():
        brain.store.meta_set("embedding_model", "someone-else/model")
    (brain.root / ".nano-brain.yml").write_text("search:\n  limit_default: lots\n")
    report = doctor.run(brain.root)
    checks = by_name(report)
    mismatch = checks[("store", "text model")]
    assert mismatch.level == "error" and "someone-else/model" in mismatch.detail
    assert mismatch.fix == "nano-brain reembed"
    config = [c for c in report.checks if c.name == "config"]
    assert config and all(c.level == "warning" for c in config)
    assert checks[("config", "trust")].level == "ok"  # the file sets nothing needing trust
    assert "search" in config[0].detail
    assert checks[("store", "integrity")].detail == "integrity_check: ok"


def test_a_file_that_is_not_a_store_is_reported(workspace: Path) -> None:
    db = paths.default_db_path(workspace)
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 100)
    result = cli(workspace)
    assert result.returncode == 1
    assert "ERROR   store" in result.stdout and "fix:" in result.stdout
    assert db.read_bytes() == b"this is not a database" * 100
