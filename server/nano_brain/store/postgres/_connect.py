"""Connecting to the team's PostgreSQL with a URL `nano_brain.dburl` checked; the URL rules
themselves (no password in it, what is shown) are in `dburl`."""

from __future__ import annotations

from typing import Any

from ...dburl import check_url, first_line, masked, shown
from ...errors import StoreError

EXTRA = "pip install 'nano-brain[postgres]'"


def connect(url: str, *, timeout_s: float) -> Any:
    """An autocommit connection with pgvector's types registered (numpy arrays in and out)."""
    check_url(url)
    psycopg = require("psycopg")
    try:
        conn = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=max(1, int(timeout_s)),
            application_name="nano-brain",
        )
    except psycopg.Error as exc:
        raise StoreError(
            f"cannot connect to the store {shown(url)}: {masked(first_line(exc), url)}"
        ) from None
    return conn


def register_vector(conn: Any) -> None:
    register = require("pgvector.psycopg").register_vector
    register(conn)


def require(module: str) -> Any:
    """`module` imported, or a StoreError naming the extra that installs it (a team store
    needs psycopg and pgvector, which a plain install leaves out)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or module
        raise StoreError(
            f"a team store (storage.url) needs the postgres extra, and {missing} is not "
            f"installed: {EXTRA} (in a checkout: pip install -e '.[postgres]')"
        ) from exc
    except ImportError as exc:  # installed but unusable, e.g. psycopg without a libpq
        raise StoreError(
            f"a team store (storage.url) cannot load {module} ({first_line(exc)}): "
            f"reinstall the postgres extra: {EXTRA}"
        ) from exc
