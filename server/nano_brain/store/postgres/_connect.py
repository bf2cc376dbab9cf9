"""Connecting to the team's PostgreSQL: the URL as configured (never with a password), the
password from libpq's own sources (``PGPASSWORD``, ``~/.pgpass``, ``PGPASSFILE``), and the URL
as shown to people and logs (no password, even when one slipped in)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import StoreError

SCHEMES = ("postgresql", "postgres")


def is_url(location: str | None) -> bool:
    return bool(location) and urlsplit(str(location)).scheme in SCHEMES


def check_url(url: str) -> str:
    """The URL when it names no password; else StoreError (passwords do not go in config
    files, command lines or logs: libpq reads them from PGPASSWORD or ~/.pgpass)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise StoreError(f"not a PostgreSQL URL: {shown(url)}")
    if parts.password or "password=" in parts.query.lower():
        raise StoreError(
            f"the store URL {shown(url)} carries a password: remove it and set PGPASSWORD "
            "or a ~/.pgpass line instead"
        )
    return url


def shown(url: str) -> str:
    """The URL without any password (for messages and logs)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        who, host = netloc.rsplit("@", 1)
        user = who.split(":", 1)[0]
        netloc = f"{user}@{host}" if user else host
    query = "&".join(
        p for p in parts.query.split("&") if p and not p.lower().startswith("password=")
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def connect(url: str, *, timeout_s: float) -> Any:
    """An autocommit connection with pgvector's types registered (numpy arrays in and out)."""
    import psycopg

    try:
        conn = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=max(1, int(timeout_s)),
            application_name="nano-brain",
        )
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to the store {shown(url)}: {_first_line(exc)}") from None
    return conn


def register_vector(conn: Any) -> None:
    from pgvector.psycopg import register_vector as register

    register(conn)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
