"""The team audit log records the database role each change came from (``session_user``),
which the writer cannot choose, beside the person it names itself (``user.name``)."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from nano_brain.store.postgres import schema, testserver
from nano_brain.store.postgres.store import PostgresStore, migrate

from .conftest import run_cli, team_brain

OTHER_ROLE = "nano_brain_app2"
WORKSPACE = "team/roles"


@pytest.fixture
def other_url(pg_server: testserver.TestServer) -> str:
    """The app URL as a second login role with the same grants (another teammate's)."""
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
            f"'{OTHER_ROLE}') THEN CREATE ROLE {OTHER_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS; "
            "END IF; END $$"
        )
        conn.execute(schema.grant_sql(OTHER_ROLE))
    return pg_server.app_url.replace(f"{testserver.APP_ROLE}@", f"{OTHER_ROLE}@")


def test_each_change_names_its_database_role_whatever_user_name_says(
    tmp_path: Path, pg_server: testserver.TestServer, other_url: str
) -> None:
    workspace = f"{WORKSPACE}/{tmp_path.name}"
    with team_brain(tmp_path / "a", pg_server.app_url, workspace, user="Ann") as ann:
        ann.write("first, from the app role")
    with team_brain(tmp_path / "b", other_url, workspace, user="Ann") as fake:
        fake.write("second, from another role claiming to be Ann")
        entries = fake.log()
    by_title = {e.title: (e.person, e.role) for e in entries}
    assert by_title == {
        "first, from the app role": ("Ann", testserver.APP_ROLE),
        "second, from another role claiming to be Ann": ("Ann", OTHER_ROLE),
    }
    # the CLI shows it, as text and as JSON
    home = tmp_path / "home"
    home.mkdir()
    env = {"NANO_BRAIN_STORAGE__WORKSPACE": workspace}
    args = ("--store", other_url, "log", "--workspace", str(tmp_path / "b"))
    out = run_cli(*args, "--json", home=home, env_extra=env)
    assert out.returncode == 0, out
    assert {e["title"]: e["role"] for e in json.loads(out.stdout)} == {
        t: r for t, (_, r) in by_title.items()
    }
    out = run_cli(*args, home=home, env_extra=env)
    assert out.returncode == 0, out
    lines = out.stdout.splitlines()
    assert any("second" in line and f"Ann ({OTHER_ROLE})" in line for line in lines), lines
    assert any("first" in line and f"Ann ({testserver.APP_ROLE})" in line for line in lines)


def test_an_insert_naming_a_role_records_the_real_one(
    tmp_path: Path, pg_server: testserver.TestServer, other_url: str
) -> None:
    workspace = f"{WORKSPACE}/{tmp_path.name}"
    with psycopg.connect(other_url, autocommit=True) as conn:
        conn.execute("SELECT set_config('nano_brain.workspace', %s, false)", (workspace,))
        conn.execute(
            "INSERT INTO audit_log (workspace_id, at, actor, action, person, db_role) "
            "VALUES (%s, 1, 'cli', 'forged', 'Ann', %s)",
            (workspace, testserver.APP_ROLE),
        )
        rows = conn.execute(
            "SELECT person, db_role FROM audit_log WHERE action = 'forged'"
        ).fetchall()
        assert rows == [("Ann", OTHER_ROLE)]
        # the logged prune runs as the function's owner, yet names the caller's role
        conn.execute("SELECT nb_prune_audit(0, 2, 'cli', '{}')")
        rows = conn.execute("SELECT db_role FROM audit_log WHERE action = 'prune-log'").fetchall()
        assert rows == [(OTHER_ROLE,)]
        # and no writer may change it afterwards
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE audit_log SET db_role = 'someone'")


def test_the_role_column_is_added_to_a_version_5_store(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    owner = pg_server.owner_url.replace("/nano_brain?", "/nb_v5?")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS nb_v5 WITH (FORCE)")
        conn.execute("CREATE DATABASE nb_v5")
    with psycopg.connect(owner, autocommit=True) as conn:
        migrate(conn, "nb_v5", to=5)
        conn.execute(
            "INSERT INTO audit_log (workspace_id, at, actor, action, person) "
            "VALUES ('w1', 1, 'cli', 'write', 'Old')"
        )
        migrate(conn, "nb_v5")
        version = conn.execute("SELECT max(version) FROM nb_schema").fetchone()[0]
        assert version == schema.SCHEMA_VERSION
        conn.execute(schema.grant_sql(testserver.APP_ROLE))
    app = owner.replace("postgres:@", f"{testserver.APP_ROLE}@")
    store = PostgresStore(app, "w1", path=tmp_path / "x.db", user="Ann")
    try:
        with store.transaction():
            store.audit(at=2.0, actor="cli", action="write")
        roles = [(e.person, e.role) for e in store.audit_rows()]
    finally:
        store.close()
    # who wrote a row before version 6 is not known: no role is made up for it
    assert roles == [("Ann", testserver.APP_ROLE), ("Old", None)]
