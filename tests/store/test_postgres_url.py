"""A team store's URL never carries a password, however it is spelled (libpq's own parse
decides, or a strict one without psycopg), and no message or log shows a parameter's value
unless it is one of the few that are never secret. Without the `postgres` extra, team mode
says which extra to install."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import dburl
from nano_brain.config import load_config
from nano_brain.errors import StoreError
from nano_brain.store.postgres import _connect
from nano_brain.store.postgres.store import PostgresStore

from .conftest import one_line_error, run_cli

SECRET = "S3cr3tValue"

#: Every way a password (or another secret libpq reads) can ride in the URL.
WITH_A_SECRET = {
    "encoded key": f"postgresql://u@h/db?pass%77ord={SECRET}",
    "encoded first letter": f"postgresql://u@h/db?%70assword={SECRET}",
    "upper case": f"postgresql://u@h/db?PASSWORD={SECRET}",
    "encoded upper case": f"postgresql://u@h/db?%50ASSWORD={SECRET}",
    "plain": f"postgresql://u@h:5432/db?sslmode=require&password={SECRET}",
    "userinfo": f"postgresql://u:{SECRET}@h/db",
    "userinfo with an @": f"postgresql://u:{SECRET}@x@h/db",
    "fragment": f"postgresql://u@h/db#password={SECRET}",
    "ssl key password": f"postgresql://u@h/db?sslpassword={SECRET}",
    "oauth secret": f"postgresql://u@h/db?oauth_client_secret={SECRET}",
    "bad encoding": f"postgresql://u@h/db?password=abc%zz{SECRET}",
    "space": f"postgresql://u@h/db?password=a {SECRET}",
    "dbname holding a conninfo": f"postgresql://u@h/host%3Dh%20password%3D{SECRET}",
    "dbname parameter holding a URL": f"postgres://u@h/db?dbname=postgresql://u:{SECRET}@h/db",
    "key=value conninfo": f"host=h user=u password={SECRET}",
}

#: URLs without a secret, accepted as written.
WITHOUT = [
    "postgresql://u@h/db",
    "postgres://u@h:5432/db?sslmode=require&application_name=nb&connect_timeout=5",
    # an empty password is no password: libpq then reads PGPASSWORD or ~/.pgpass (the test
    # server's owner URL is written so)
    "postgresql://postgres:@/nano_brain?host=/tmp/pg/data",
    # where libpq finds the password, not the password
    "postgresql://u@h/db?passfile=/home/u/.pgpass&sslrootcert=/etc/ca.pem",
    "postgresql://u@h/db?options=-c%20search_path%3Dmemory",
]


@pytest.fixture(params=["libpq", "strict"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both ways of deciding: libpq's parse (psycopg installed) and the strict one without."""
    if request.param == "strict":
        for name in [m for m in sys.modules if m == "psycopg" or m.startswith("psycopg.")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` now fails
    yield request.param


@pytest.mark.parametrize("url", list(WITH_A_SECRET.values()), ids=list(WITH_A_SECRET))
def test_a_secret_in_the_url_is_refused_and_never_shown(
    url: str, parser: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(StoreError) as err:
        dburl.check_url(url)
    assert SECRET not in str(err.value), str(err.value)
    assert SECRET not in dburl.shown(url)
    with pytest.raises(StoreError) as err:
        PostgresStore(url, "w", path=tmp_path / "x.db")
    assert SECRET not in str(err.value)
    loaded = load_config(tmp_path, env={"NANO_BRAIN_STORAGE__URL": url})
    assert loaded.config.storage.url is None
    assert loaded.warnings and all(SECRET not in w for w in loaded.warnings), loaded.warnings
    assert SECRET not in caplog.text


@pytest.mark.parametrize("url", WITHOUT)
def test_a_url_without_a_secret_is_kept_as_written(url: str, parser: str) -> None:
    assert dburl.check_url(url) == url


def test_the_cli_refuses_the_bypass_without_showing_it(tmp_path: Path) -> None:
    url = WITH_A_SECRET["encoded key"]
    out = run_cli("--store", url, "status", home=tmp_path)
    assert out.returncode == 4, out
    err = one_line_error(out)
    assert "password" in err and SECRET not in err, err
    assert SECRET not in out.stdout


def test_shown_keeps_only_parameters_that_are_never_secret() -> None:
    url = (
        "postgresql://ann:pw1@db.example:5432/memory?sslmode=require&application_name=nb"
        "&pass%77ord=pw2&sslkey=/home/ann/key.pem&options=-c%20x%3Dpw3&passfile=/p/pw4"
        "&host=/run/pg&connect_timeout=5#pw5"
    )
    assert dburl.shown(url) == (
        "postgresql://ann@db.example:5432/memory?sslmode=require&application_name=nb"
        "&password=***&sslkey=***&options=***&passfile=***&host=/run/pg&connect_timeout=5"
    )
    # a key that is not a plain name is not shown either
    assert dburl.shown("postgresql://u@h/db?a%3Dpw6=1") == "postgresql://u@h/db?***=***"
    assert "pw7" not in dburl.shown("host=h password=pw7 dbname=d")
    assert "pw8" not in dburl.shown("postgresql://u@[::1/db?password=pw8")  # unparsable


def test_libpq_messages_that_echo_a_value_are_masked() -> None:
    """libpq quotes what it could not parse; a connection error carries no parameter value."""
    url = "postgresql://u@h/db?options=-c%zzpw9"
    with pytest.raises(StoreError) as err:
        dburl.check_url(url)
    assert "pw9" not in str(err.value) and "options" in str(err.value), str(err.value)
    with pytest.raises(StoreError) as err:
        _connect.connect(url, timeout_s=1)
    assert "pw9" not in str(err.value)


# -- team mode without the postgres extra ------------------------------------------------------


def _without(tmp_path: Path, *modules: str) -> dict[str, str]:
    """An environment in which importing `modules` fails as if they were not installed."""
    fake = tmp_path / "missing"
    for name in modules:
        (fake / name).mkdir(parents=True)
        (fake / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n",
            encoding="utf-8",
        )
    return {"PYTHONPATH": str(fake)}


@pytest.mark.parametrize("missing", [("psycopg",), ("pgvector",)], ids=lambda m: m[0])
@pytest.mark.parametrize("command", [("status",), ("write", "a note")], ids=lambda c: c[0])
def test_team_mode_without_the_extra_names_it(
    tmp_path: Path, missing: tuple[str, ...], command: tuple[str, ...], pg_server: object
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    url = pg_server.app_url  # type: ignore[attr-defined]
    out = run_cli(
        "--store", url, *command, "--workspace", str(workspace),
        home=home, env_extra=_without(tmp_path, *missing),
    )  # fmt: skip
    assert out.returncode == 4, out
    err = one_line_error(out)
    assert "nano-brain[postgres]" in err and missing[0] in err, err
    assert "internal error" not in err


def test_store_init_without_psycopg_names_the_extra(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    out = run_cli(
        "store", "init", "postgresql://owner@db.example/memory",
        home=home, env_extra=_without(tmp_path, "psycopg"),
    )  # fmt: skip
    assert out.returncode == 4, out
    assert "nano-brain[postgres]" in one_line_error(out)


def test_connect_without_psycopg_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StoreError, match=r"pip install 'nano-brain\[postgres\]'"):
        _connect.connect("postgresql://u@h/db", timeout_s=1)
