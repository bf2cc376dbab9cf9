"""`nano-brain status` on a team store names the server, the team's workspace and both
schemas (the team's on PostgreSQL, this clone's code index file)."""

from __future__ import annotations

import json
from pathlib import Path

from nano_brain import dburl
from nano_brain.store.postgres import testserver
from nano_brain.store.postgres.schema import SCHEMA_VERSION as TEAM_SCHEMA
from nano_brain.store.sqlite.migrations import SCHEMA_VERSION as LOCAL_SCHEMA

from .conftest import run_cli


def test_status_in_team_mode_names_the_server_workspace_and_both_schemas(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    team = {
        "NANO_BRAIN_STORAGE__URL": pg_server.app_url,
        "NANO_BRAIN_STORAGE__WORKSPACE": "github.com/acme/shop",
    }
    wrote = run_cli("write", "Refunds stop after thirty days.", "-w", str(ws), home=tmp_path,
                    env_extra=team)  # fmt: skip
    assert wrote.returncode == 0, wrote.stderr

    out = run_cli("status", "-w", str(ws), "--json", home=tmp_path, env_extra=team)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["team"] == {
        "server": dburl.shown(pg_server.app_url),
        "workspace": "github.com/acme/shop",
        "schema_version": TEAM_SCHEMA,
    }
    assert info["code_index"]["path"].endswith("brain.code.db")
    assert info["code_index"]["schema_version"] == LOCAL_SCHEMA

    text = run_cli("status", "-w", str(ws), home=tmp_path, env_extra=team).stdout
    team_line, code_line = _line(text, "team "), _line(text, "code index ")
    assert dburl.shown(pg_server.app_url) in team_line, text
    assert "github.com/acme/shop" in team_line and f"schema v{TEAM_SCHEMA}" in team_line, text
    assert "brain.code.db" in code_line and f"schema v{LOCAL_SCHEMA}" in code_line, text
    assert not any(line.startswith("store ") for line in text.splitlines()), text


def _line(text: str, start: str) -> str:
    found = [line for line in text.splitlines() if line.startswith(start)]
    assert len(found) == 1, text
    return found[0]


def test_status_of_a_local_store_has_no_team(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert run_cli("write", "A local note.", "-w", str(ws), home=tmp_path).returncode == 0
    info = json.loads(run_cli("status", "-w", str(ws), "--json", home=tmp_path).stdout)
    assert info["team"] is None and info["code_index"] is None
    assert info["store"].endswith("brain.db")
