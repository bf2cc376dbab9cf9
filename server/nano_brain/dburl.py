"""A team store's PostgreSQL URL: the URL as configured (never with a password), the
password from libpq's own sources (``PGPASSWORD``, ``~/.pgpass``, ``PGPASSFILE``), and the URL
as shown to people and logs (no password, even when one slipped in).

A URL is refused when it carries a secret however it is spelled: libpq percent-decodes query
keys, so ``?pass%77ord=x`` is a password to it. Two parses decide, and either refuses: a strict
one of our own (any key that decodes, in any case, to a name holding ``password`` or
``secret``; a password in the user part; a fragment, which libpq would make part of the
database name; any value that is itself a connection string with a password), and, when
psycopg is installed, libpq's own (``conninfo_to_dict``), so that whatever libpq would read as
a password is refused even if the strict parse missed its spelling. ``passfile`` is allowed:
it names where libpq finds the password, which is where passwords belong. An empty password
(``user:@host``) is no password: libpq then reads its own sources.

`shown` prints a URL with every parameter value masked except those that are never secret
(`SAFE_PARAMETERS`); errors from libpq that quote the URL's values are masked the same way.
Below the store and the config, both of which check URLs; connecting is the PostgreSQL
dialect's (`store.postgres._connect`). psycopg is imported only when a URL is parsed.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from .errors import StoreError

SCHEMES = ("postgresql", "postgres")
#: Connection parameters whose values are shown in messages and logs: where and as whom to
#: connect, and how, never a credential or a file's contents.
SAFE_PARAMETERS = frozenset(
    {
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "sslmode",
        "application_name",
        "fallback_application_name",
        "connect_timeout",
        "target_session_attrs",
        "load_balance_hosts",
        "channel_binding",
        "gssencmode",
        "sslnegotiation",
    }
)
MASK = "***"
# a key libpq would read a secret from: password, sslpassword, oauth_client_secret, ...
_SECRET_KEY = re.compile(r"password|secret", re.IGNORECASE)
# a value that is itself a connection string or URL with a password in it
_SECRET_IN_VALUE = re.compile(r"(password|secret)\s*=|://[^/?#@]*:[^/?#@]+@", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_url(location: str | None) -> bool:
    return bool(location) and _scheme(str(location))


def check_url(url: str) -> str:
    """The URL when it carries no secret; else StoreError (passwords do not go in config
    files, command lines or logs: libpq reads them from PGPASSWORD or ~/.pgpass)."""
    parts = _split(url)
    if parts is None or parts.scheme not in SCHEMES:
        raise StoreError(f"not a PostgreSQL URL (postgresql://user@host/database): {shown(url)}")
    if "#" in url:
        raise StoreError(
            f"the store URL {shown(url)} has a #fragment, which libpq would read as part of the "
            "database name: write # as %23 (a password goes in PGPASSWORD or ~/.pgpass)"
        )
    secrets = _strict_secrets(parts)
    if not secrets:  # what libpq reads, however the strict parse missed its spelling
        params = _libpq_parse(url) or {}
        secrets = [f"parameter {k}" for k, v in params.items() if _is_secret(k, v)]
    if secrets:
        where = ", ".join(dict.fromkeys(secrets))
        raise StoreError(
            f"the store URL {shown(url)} carries a password ({where}): remove it and set "
            "PGPASSWORD or a ~/.pgpass line instead"
        )
    return url


def shown(url: str) -> str:
    """The URL for messages and logs: no password, and every parameter value masked but
    those in SAFE_PARAMETERS."""
    parts = _split(url)
    if parts is None or not parts.scheme:
        return _shown_conninfo(url)
    who, at, hosts = parts.netloc.rpartition("@")
    user = who.split(":", 1)[0]
    if _SECRET_IN_VALUE.search(unquote(user)):
        user = MASK
    netloc = f"{user}@{hosts}" if at and user else hosts
    path = f"/{MASK}" if _SECRET_IN_VALUE.search(unquote(parts.path)) else parts.path
    query = "&".join(_shown_parameter(p) for p in parts.query.split("&") if p)
    return urlunsplit((parts.scheme, netloc, path, query, ""))


def masked(text: str, url: str) -> str:
    """`text` (an error from libpq or the server) without any value of the URL that `shown`
    masks: libpq quotes what it could not parse."""
    values = {v for v in _hidden_values(url) if v}
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, MASK)
    return text


# -- helpers ----------------------------------------------------------------------------------


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url)
    except ValueError:  # e.g. an unclosed [IPv6 address
        return None


def _scheme(url: str) -> bool:
    parts = _split(url)
    return parts is not None and parts.scheme in SCHEMES


def _is_secret(key: str, value: str) -> bool:
    return bool(_SECRET_KEY.search(key) or _SECRET_IN_VALUE.search(value))


def _strict_secrets(parts: SplitResult) -> list[str]:
    """Where the URL carries a secret, by our own parse: keys percent-decoded, any case."""
    found = []
    who, at, _hosts = parts.netloc.rpartition("@")
    user, colon, password = who.partition(":")
    if at and colon and password:
        found.append("in the user part")
    if _SECRET_IN_VALUE.search(unquote(user)) or _SECRET_IN_VALUE.search(unquote(parts.path)):
        found.append("in the user or database name")
    for parameter in parts.query.split("&"):
        key, _, value = parameter.partition("=")
        name = unquote(key).strip()
        if name and _is_secret(name, unquote(value)):
            found.append(f"parameter {name}" if _NAME.fullmatch(name) else "a parameter")
    return found


def _libpq_parse(url: str) -> dict[str, str] | None:
    """The parameters libpq reads from the URL; None without psycopg (the strict parse then
    decides alone). A URL libpq cannot parse is refused here, its message masked."""
    try:
        from psycopg import ProgrammingError
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return None
    try:
        params = conninfo_to_dict(url)
    except ProgrammingError as exc:
        raise StoreError(
            f"the store URL {shown(url)} is not valid: {masked(first_line(exc), url)}"
        ) from None
    return {k: str(v) for k, v in params.items() if v is not None}


def _shown_parameter(parameter: str) -> str:
    key, sep, value = parameter.partition("=")
    name = unquote(key).strip()
    if not _NAME.fullmatch(name):
        return f"{MASK}={MASK}" if sep else MASK
    if name in SAFE_PARAMETERS and not _SECRET_IN_VALUE.search(unquote(value)):
        return parameter
    return f"{name}={MASK}"


def _shown_conninfo(text: str) -> str:
    """A ``key=value`` connection string (not a URL), its values masked as `shown` does."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        params = conninfo_to_dict(text)
    except Exception:  # no psycopg, or not a connection string: nothing of it is shown
        return "(not shown)"
    return " ".join(
        f"{k}={v if k in SAFE_PARAMETERS and not _SECRET_IN_VALUE.search(str(v)) else MASK}"
        for k, v in params.items()
    )


def _hidden_values(url: str) -> set[str]:
    """The pieces of the URL that `shown` masks, raw and percent-decoded."""
    parts = _split(url)
    if parts is None or not parts.scheme:
        return {url}
    # the password as libpq splits the user part (at the first @) and as urlsplit does (last)
    userinfo = {parts.netloc.partition("@")[0], parts.netloc.rpartition("@")[0]}
    out = {parts.fragment, *(who.partition(":")[2] for who in userinfo)}
    if _SECRET_IN_VALUE.search(unquote(parts.path)):
        out.add(parts.path.lstrip("/"))
    for parameter in parts.query.split("&"):
        key, _, value = parameter.partition("=")
        if _shown_parameter(parameter) != parameter:
            out.add(value)
            if not _NAME.fullmatch(unquote(key).strip()):
                out.add(key)
    return out | {unquote(v) for v in out}


def first_line(exc: BaseException) -> str:
    """An error's first line (libpq's messages run on), or its type's name."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
