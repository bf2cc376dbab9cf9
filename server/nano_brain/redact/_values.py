"""Is this `key = value` a credential? Judged from the key's words and the value's shape.

The key is split into words (`DB_PASSWORD`, `dbPassword`, `db-password` -> db, password).
A *strong* word (password, secret, token, credential, api key, ...) makes the value a
secret unless the value is plainly something else; a *weak* word (key, auth, sig) only
when the value also looks random. A key whose words go on past the secret word with a
qualifier (`password_min_length`, `token_url`, `api_key_env`, `secret_name`) names a
setting about the secret, not the secret.

What a value is plainly, and therefore kept: a placeholder (`$X`, `${X}`, `<x>`, `***`,
`your-key`, `None`), a number (`8`, `3600s`), a path or URL, a code reference
(`self.password`, `userPassword`, `OPENAI_API_KEY`, `get_token` before a `(`), or one
lower-case word (`bearer`, `required`). The last one misses a dictionary-word password
such as `password: hunter`; digits, upper case or symbols in it make it a secret.
"""

from __future__ import annotations

import re

# fmt: off
_STRONG = frozenset(
    {
        "password", "passwd", "passphrase", "pass", "pwd", "passcode", "secret", "secrets",
        "token", "credential", "credentials", "apikey",
    }
)
# Compound words that end in a strong word: pgpassword, authtoken, accesstoken, ...
_STRONG_ENDINGS = (
    "password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey", "privatekey",
    "accesskey",
)
# Adjacent words that together name a secret.
_STRONG_PAIRS = frozenset(
    {
        ("api", "key"), ("access", "key"), ("private", "key"), ("session", "key"),
        ("signing", "key"), ("encryption", "key"), ("master", "key"), ("account", "key"),
        ("auth", "key"), ("client", "key"), ("app", "key"), ("shared", "key"),
    }
)
# fmt: on
_WEAK = frozenset({"key", "auth", "cookie"})
# Words after the secret word that make the key a setting *about* the secret.
# fmt: off
_QUALIFIERS = frozenset(
    {
        "length", "len", "min", "max", "count", "size", "type", "kind", "url", "uri",
        "endpoint", "path", "file", "filename", "dir", "env", "var", "name", "id", "ids",
        "hint", "policy", "regex", "pattern", "prompt", "field", "label", "expires", "expiry",
        "expiration", "exp", "ttl", "timeout", "lifetime", "age", "header", "prefix", "suffix",
        "format", "mode", "enabled", "required", "reset", "changed", "strength", "version",
        "algorithm", "alg", "encoding", "store", "storage", "manager", "provider", "providers",
        "source", "location", "limit", "usage", "budget", "used", "cost", "rate", "index",
        "param", "params", "input", "validation", "valid", "error", "errors", "message", "text",
        "placeholder", "description", "help", "hash", "hashed", "digest", "rounds",
        "iterations", "method", "scheme", "style", "flag", "option", "options", "config",
        "settings", "helper", "command", "cmd", "arn", "ref", "host", "port", "user",
        "username", "login", "email", "service", "scope", "scopes", "audience", "issuer", "kid",
        "fingerprint", "rotation", "created", "updated", "last", "at", "in", "total", "counter",
        "estimate", "fields", "stdin", "callback", "handler", "class", "struct", "schema",
        "model", "form", "button", "dialog", "mask", "visible", "hidden", "auth", "stats",
        "bytes", "chars",
    }
)
# fmt: on
_NOT_SECRET_BEFORE_KEY = frozenset({"public", "primary", "foreign", "cache", "sort", "partition"})
# fmt: off
_PLACEHOLDER_WORDS = frozenset(
    {
        "none", "null", "nil", "true", "false", "undefined", "empty", "redacted", "hidden",
        "masked", "secret", "password", "passwd", "token", "string", "str", "int", "integer",
        "number", "bool", "boolean", "bytes", "any", "object", "optional", "required", "todo",
        "tbd", "changeme", "example", "unknown", "unset", "default", "dummy", "value", "foo",
        "bar", "baz", "test", "sample", "placeholder", "fake", "mock", "pass", "pwd", "pw",
        "mypassword", "mysecret", "mytoken",
    }
)
# fmt: on

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NUMBER = re.compile(r"[-+^~<>=v]{0,2}\d+(?:[.,_:]\d+)*[A-Za-z%]{0,3}")  # 8, 3600s, ^3.9.0
_SCHEME = re.compile(r"[A-Za-z][\w+.-]*://")
_FILE_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*")
_WORDS_JOINED = re.compile(r"(?:[A-Z]?[a-z]+|[A-Z]+)(?:[-.](?:[A-Z]?[a-z]+|[A-Z]+))*")
_PREFIX = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*[-_]")  # a token's prefix: 'sk-ant-'
_FORMAT = re.compile(r"%[sdrif]|%\(\w+\)|\{\w*\}|#[a-z_]{3,}#")  # %s, {name}, #name#
_COLOR = re.compile(r"#[0-9a-fA-F]{3,8}")
_ENTRY_POINT = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+:[A-Za-z_][\w.]*")  # package.module:func
_CALL = re.compile(r"[A-Za-z_$][\w$.]*\(.*\)?")  # get_token(), os.getenv("X")
_WEAK_CHARSET = re.compile(r"[A-Za-z0-9+/=_.~-]+")
_PROSE_CHARSET = re.compile(r"[A-Za-z0-9!@#$%^&*_+=~./-]+")
_LOWER_RUN = re.compile(r"[a-z]+")
_SPACE = re.compile(r"\s")
_DIGIT = re.compile(r"[0-9]")
_ALPHA = re.compile(r"[A-Za-z]")
_DIGIT_RUN = re.compile(r"[0-9]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")


def key_words(key: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(key)]


def key_strength(key: str) -> tuple[str | None, bool]:
    """("strong" | "weak" | None, whether the secret word ends the key) for e.g. `DB_PASSWORD`.

    None: the key does not name a secret, or names a setting about one.
    """
    words = key_words(key)
    found: str | None = None
    at = -1
    for i, word in enumerate(words):
        pair = (words[i - 1], word) if i else ("", word)
        if word in _STRONG or word.endswith(_STRONG_ENDINGS) or pair in _STRONG_PAIRS:
            found, at = "strong", i
        elif word in _WEAK and found == "strong" and at == i - 1:
            at = i  # secret_key, token_key: one name
        elif word in _WEAK and found is None:
            if word == "key" and i and words[i - 1] in _NOT_SECRET_BEFORE_KEY:
                continue
            found, at = "weak", i
    if found is None or any(word in _QUALIFIERS for word in words[at + 1 :]):
        return None, False
    if "public" in words[:at]:
        return None, False  # publicKeyToken, public_key: published on purpose
    return found, at == len(words) - 1


def is_placeholder(value: str) -> bool:
    low = value.lower()
    return (
        value[0] in "${<["
        or value.startswith(("%(", "%s", "%{", "#{"))
        or (value[0] in "*&" and value[1:2].isalpha())  # a YAML alias or anchor
        or low in _PLACEHOLDER_WORDS
        or set(low) <= set("x*.-_#?0")
        or "{{" in value
        or "${" in value
        or "$(" in value
        or "[REDACTED:" in value
        or low.startswith(("your", "my_", "my-", "process.env", "os.environ", "env(", "getenv"))
        or "**" in value
        or "xxxx" in low
        or _FORMAT.search(value) is not None
        or (value.endswith(("...", "…")) and len(value.rstrip(".…")) < 12)  # sk-ant-...
        or ("[" in value and "]" in value)  # a pattern or a list: [a-z0-9]{32}
    )


def _transitions(value: str) -> float:
    def cls(ch: str) -> int:
        return 0 if ch.islower() else 1 if ch.isupper() else 2 if ch.isdigit() else 3

    changes = sum(1 for a, b in zip(value, value[1:], strict=False) if cls(a) != cls(b))
    return changes / max(1, len(value) - 1)


def looks_random(value: str) -> bool:
    """A machine-made token: long, and mixing classes the way random strings do."""
    if len(value) < 12 or _UUID.fullmatch(value) or _HEX.fullmatch(value):
        return False
    has_digit = _DIGIT.search(value) is not None
    has_alpha = _ALPHA.search(value) is not None
    return (has_digit and has_alpha and _transitions(value) >= 0.2) or _transitions(value) >= 0.4


def _camel_case(value: str) -> bool:
    """A name made of words (PKCS12PrivateKeyTypes, userPassword): lower-case runs average
    three letters or more and digits come in one run at most. Random mixed case averages
    under two (a 16-char token passes as a name about one time in twenty)."""
    runs = [len(run) for run in _LOWER_RUN.findall(value)]
    return bool(runs) and sum(runs) / len(runs) >= 3 and len(_DIGIT_RUN.findall(value)) <= 1


def _code_name(value: str) -> bool:
    """An identifier a program would use: snake_case, a constant, or camelCase words."""
    if not _IDENT.fullmatch(value):
        return False
    if any(sep in value for sep in (".", "->", "::")):
        return True  # a reference: self.password, config.api_key
    letters = value.replace("_", "")
    if value.upper() == value and ("_" in value.strip("_") or letters.isalpha()):
        return True  # OPENAI_API_KEY, CHANGEME
    if value.lower() == value:
        bare = value.strip("_")
        return "_" in bare or bare.isalpha()  # supports_http2, _stoken, hunter (not hunter2)
    return _camel_case(value)


def _is_path(value: str) -> bool:
    return (
        value.startswith(("/", "~/", "./", "../"))
        or re.match(r"[A-Za-z]:\\", value) is not None
        or ("/" in value and _FILE_EXT.search(value) is not None)
    )


def is_secret_value(value: str, strength: str, *, loose: bool = False, prose: bool = False) -> bool:
    """Whether `value`, assigned to a key of `strength`, is a credential.

    `loose`: the key is an environment variable that ends in its secret word
    (`DB_PASSWORD=...`), so a plain word is a password too. `prose`: "the password is X"
    or `password X`, where only a value with digits is taken.
    """
    if len(value) < 4 or _SPACE.search(value) or is_placeholder(value):
        return False
    if value.endswith(":"):
        return False  # the next key: `password: token:` is a list of names
    if _NUMBER.fullmatch(value) or _SCHEME.match(value) or _PREFIX.fullmatch(value):
        return False
    if _COLOR.fullmatch(value) or _is_path(value) or _CALL.fullmatch(value):
        return False
    if _ENTRY_POINT.fullmatch(value):
        return False
    if strength == "weak":
        return (
            bool(_WEAK_CHARSET.fullmatch(value)) and looks_random(value) and not _code_name(value)
        )
    if loose:
        return not (_IDENT.fullmatch(value) and value.upper() == value and "_" in value)
    if _code_name(value):
        return False
    if prose:
        return (
            len(value) >= 6
            and _DIGIT.search(value) is not None
            and bool(_PROSE_CHARSET.fullmatch(value))
        )
    if _WORDS_JOINED.fullmatch(value):
        return False  # client-secret-basic, X-Xet-Access-Token
    return len(value) >= 6 or _DIGIT.search(value) is not None
