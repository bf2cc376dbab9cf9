"""The rule table: what a credential looks like, most specific shape first.

Provider formats follow the providers' documented token shapes (the detect-secrets,
gitleaks and GitHub secret-scanning rule sets list the same facts). Each rule finds a
candidate with one compiled pattern; `judge` decides, and says which span to replace so
the text around the secret (`export FOO=`, the key name, the URL's host) stays.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

from ._values import is_placeholder, is_secret_value, key_strength, looks_random

MARKER = "[REDACTED:"

Span = tuple[str, int, int]
"""(kind, start, end) of the text to replace."""


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...] = ()
    """Lower-case strings one of which the text must contain for the rule to run."""
    judge: Callable[[Rule, re.Match[str]], Span | None] | None = None
    """Decides a candidate; default: replace the `secret` group, or the whole match."""
    boundary: str | None = "_"
    """A match preceded by a letter, a digit or one of these is part of a longer word and
    skipped (checked here, not by a look-behind, which would cost the pattern its fast
    literal-prefix search); None: no check."""
    finder: re.Pattern[str] | None = None
    """For a case-insensitive pattern: a case-sensitive one run on the lower-cased text to
    find where `pattern` may match (ten times faster than searching with `(?i)`)."""


def default_span(rule: Rule, match: re.Match[str]) -> Span | None:
    group = "secret" if "secret" in rule.pattern.groupindex else 0
    start, end = match.span(group)
    if start < 0 or end <= start:
        return None
    return rule.kind, start, end


def _random(rule: Rule, match: re.Match[str]) -> Span | None:
    span = default_span(rule, match)
    return span if span and looks_random(match.string[span[1] : span[2]]) else None


def _not_placeholder(rule: Rule, match: re.Match[str]) -> Span | None:
    span = default_span(rule, match)
    if span is None:
        return None
    value = match.string[span[1] : span[2]].strip("'\"")
    return span if value and not is_placeholder(value) and not value.isdigit() else None


def _pem(rule: Rule, match: re.Match[str]) -> Span | None:
    """The key's body between its BEGIN and END lines (both kept: the note says what it was)."""
    group = "body" if match.group("body") is not None else "open"
    start, end = match.span(group)
    text = match.string
    while start < end and (text[start].isspace() or text.startswith("\\n", start)):
        start += 2 if text.startswith("\\n", start) else 1
    while end > start and (text[end - 1].isspace() or text[end - 2 : end] == "\\n"):
        end -= 2 if text[end - 2 : end] == "\\n" else 1
    body = text[start:end]
    if MARKER in body or sum(c.isalnum() for c in body) < 16:
        return None
    return rule.kind, start, end


def _authorization(rule: Rule, match: re.Match[str]) -> Span | None:
    start = match.start("secret")
    value = match.group("secret").rstrip(")]}")
    if not is_secret_value(value, "strong"):
        return None
    scheme = (match.group("scheme") or "").lower()
    kind = {"basic": "basic_auth", "bearer": "bearer_token"}.get(scheme, rule.kind)
    return kind, start, start + len(value)


def _basic(rule: Rule, match: re.Match[str]) -> Span | None:
    """`Basic <base64>` outside an Authorization header: only if it decodes to `user:pass`."""
    value = match.group("secret")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if ":" not in decoded or not decoded.isprintable():
        return None
    return rule.kind, *match.span("secret")


def _user_password(rule: Rule, match: re.Match[str]) -> Span | None:
    """`-u user:pass`; `1000:1000` and `www-data:www-data` are a uid and a group."""
    user, value = match.group("user"), match.group("secret")
    if value == user or value.isdigit() or value.startswith("/") or is_placeholder(value):
        return None
    return rule.kind, *match.span("secret")


def _quoted_flag_value(rule: Rule, match: re.Match[str]) -> Span | None:
    start, end = match.span("secret")
    value = match.group("secret")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        start, end, value = start + 1, end - 1, value[1:-1]
    if not value or is_placeholder(value):
        return None
    return rule.kind, start, end


# -- key = value ---------------------------------------------------------------------------

_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_CODE_END = re.compile(r"[,;<>(){}\[\]&|\\]")
_TRAILING = ".,:;!?)"
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_OPERATOR = re.compile(r"\.[A-Za-z_]|[ \t]*(?:\?|&&|\|\||\||\+|=(?!=)|\()")
_JSON_ESCAPE = re.compile(r"\\[nrt\"\\]")


def _key_start(text: str, pos: int) -> int:
    start = pos
    while start > 0 and pos - start < 64 and text[start - 1] in _KEY_CHARS:
        start -= 1
    return start


_BARE_KEYS = frozenset({"password", "passwd", "passphrase", "pwd", "token", "secret"})


def _bare_key(text: str, key_start: int, key: str) -> bool:
    """A key followed by its value after a space: a `--token X` flag, or `password X` as
    in a .netrc file or a sentence."""
    return text.startswith("-", max(0, key_start)) or key in _BARE_KEYS


def _keyword(rule: Rule, match: re.Match[str]) -> Span | None:
    text = match.string
    key_start = _key_start(text, match.start())
    key = text[key_start : match.end("rest")].lstrip("-.")
    strength, ends_key = key_strength(key)
    if strength is None:
        return None
    sep = match.group("sep")
    raw = match.group("value")
    start = match.start("value")
    quoted = raw[:1] in "\"'`" or raw[:2] in ('\\"', "\\'")
    if quoted:
        skip = 2 if raw[0] == "\\" else 1
        value, start = raw[skip:], start + skip
    else:
        value = raw
    verb = sep.strip()
    prose = not verb or verb in ("is", "was", "are")
    if prose and (strength != "strong" or (not verb and not _bare_key(text, key_start, key))):
        return None
    env = (
        not quoted
        and sep == "="
        and not match.group("close")
        and ends_key
        and key.replace("_", "").isalnum()
        and key.upper() == key
    )
    if env:  # cut at an escaped line end: an env file shown inside a JSON string
        escape = _JSON_ESCAPE.search(value)
        value = value[: escape.start()] if escape else value
    elif not quoted:
        cut = _CODE_END.search(value)
        if cut:
            after = value[cut.start()]
            value = value[: cut.start()]
            if after in "([":
                return None  # a call or an index: token = get_token(), key = keys[0]
        if prose:
            value = value.rstrip(_TRAILING)
        if _OPERATOR.match(text, start + len(value)) and _IDENT.fullmatch(value):
            if not looks_random(value):
                return None  # an expression or a type: isProxy ? a : b, key: KeyType | None
    if not value or value == key or not is_secret_value(value, strength, loose=env, prose=prose):
        return None
    return rule.kind, start, start + len(value)


# -- base64 that decodes to a secret ----------------------------------------------------------


def _encoded(rule: Rule, match: re.Match[str]) -> Span | None:
    from . import _scan  # the rules without this one, on the decoded text

    blob = match.group(0)
    try:
        decoded = base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if sum(c.isprintable() or c.isspace() for c in decoded) < 0.95 * len(decoded):
        return None
    _, counts = _scan(decoded, nested=True)
    return (rule.kind, *match.span()) if counts else None


def _token(  # type: ignore[no-untyped-def]
    kind: str, pattern: str, *needles: str, judge=None, boundary: str | None = "_", finder=None
) -> Rule:
    return Rule(
        kind,
        re.compile(pattern),
        needles,
        judge,
        boundary,
        re.compile(finder) if finder else None,
    )


def _telegram(rule: Rule, match: re.Match[str]) -> Span | None:
    """`<bot id>:AA<35 chars>`: the pattern finds `:AA...`, the id is read backwards."""
    text, start = match.string, match.start()
    digits = start
    while digits > 0 and start - digits < 10 and text[digits - 1].isdigit():
        digits -= 1
    if start - digits < 8 or (digits > 0 and text[digits - 1] in ":0123456789"):
        return None
    return rule.kind, digits, match.end()


def _aws_secret(rule: Rule, match: re.Match[str]) -> Span | None:
    key = match.string[_key_start(match.string, match.start()) : match.end("key")].lower()
    kind = rule.kind if "aws" in key or "access" in key else "secret"
    return kind, *match.span("secret")


_PEM_LINE = r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"

RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        re.compile(
            rf"{_PEM_LINE}(?:(?P<body>.{{0,20000}}?)(?={_PEM_END})|(?P<open>[A-Za-z0-9+/=\s\\]*))",
            re.DOTALL,
        ),
        ("private key",),
        _pem,
        None,
    ),
    _token("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}", "sk-ant-", boundary="_-"),
    _token(
        "openai_key",
        r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
        "sk-",
        judge=_random,
        boundary="_-",
    ),
    _token(
        "github_token",
        r"g(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})",
        *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _token(
        "gitlab_token",
        r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas|ffct)-[A-Za-z0-9_-]{20,}",
        *("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-"),
        *("glagent-", "gloas-", "glffct-"),
    ),
    _token("gitlab_token", r"GR1348941[A-Za-z0-9_-]{20,}", "gr1348941"),
    _token("slack_token", r"x(?:ox[abposre]|app)-[A-Za-z0-9-]{10,}", "xox", "xapp-"),
    _token(
        "slack_webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]{20,})",
        "hooks.slack.com",
        boundary=None,
    ),
    _token(
        "stripe_key",
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
        "_live_",
        "_test_",
        "whsec_",
    ),
    _token(
        "huggingface_token", r"(?:hf|api_org)_[A-Za-z0-9]{30,}", "hf_", "api_org_", judge=_random
    ),
    _token("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", "sg.", boundary="_."),
    _token("google_api_key", r"AIza[0-9A-Za-z_-]{35}", "aiza", boundary="_-"),
    _token(
        "google_oauth",
        r"GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[A-Za-z0-9_-]{20,}|1//0[A-Za-z0-9_-]{30,}",
        "gocspx-",
        "ya29.",
        "1//0",
        boundary="_-",
    ),
    _token(
        "aws_access_key",
        r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])",
        "akia",
        "asia",
        "abia",
        "acca",
        "a3t",
    ),
    _token("npm_token", r"npm_[A-Za-z0-9]{36}(?!\w)", "npm_"),
    _token("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}", "pypi-"),
    _token("docker_token", r"dckr_pat_[A-Za-z0-9_-]{20,}", "dckr_pat_"),
    _token("digitalocean_token", r"do[por]_v1_[a-f0-9]{64}", "_v1_"),
    _token(
        "shopify_token",
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        "shpat_",
        "shpca_",
        "shppa_",
        "shpss_",
    ),
    _token("vault_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}", "hvs.", "hvb.", "hvr.", boundary="_."),
    _token("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", "atlasv1"),
    _token("databricks_token", r"dapi[a-f0-9]{32}(?:-\d)?(?!\w)", "dapi"),
    _token(
        "telegram_token", r":AA[A-Za-z0-9_-]{33}(?![\w-])", ":aa", judge=_telegram, boundary=None
    ),
    _token("twilio_key", r"SK[0-9a-f]{32}(?!\w)", "sk"),
    _token("mailgun_key", r"key-[0-9a-f]{32}(?!\w)", "key-"),
    _token(
        "square_token",
        r"sq0(?:csp-[A-Za-z0-9_-]{43}|atp-[A-Za-z0-9_-]{22})|EAAA[A-Za-z0-9_-]{60}",
        "sq0",
        "eaaa",
        boundary="_+/=-",
    ),
    _token("age_key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", "age-secret-key-"),
    _token("linear_key", r"lin_api_[A-Za-z0-9]{40}", "lin_api_"),
    _token("atlassian_token", r"ATATT3[A-Za-z0-9_=-]{100,}", "atatt3"),
    _token(
        "jwt",
        r"eyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        "eyj",
        boundary="_-",
    ),
    # -- secrets recognised by where they stand -------------------------------------------
    _token(
        "aws_secret_key",
        r"(?i)secret_?(?:access_?)?(?P<key>key)[\"'\]]{0,2}[ \t]*[:=][ \t]*"
        r"[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        "secret",
        judge=_aws_secret,
        boundary=None,
        finder=r"secret_?(?:access_?)?key",
    ),
    _token(
        "azure_key",
        r"(?i)(?:AccountKey|SharedAccessKey|SharedSecretValue)[ \t]*=[ \t]*"
        r"(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
        "accountkey",
        "sharedaccesskey",
        "sharedsecretvalue",
        finder=r"accountkey|sharedaccesskey|sharedsecretvalue",
    ),
    _token(
        "url_signature",
        r"(?i)[?&](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)="
        r"(?P<secret>[^&\s\"'#<>]{16,})",
        "sig=",
        "signature=",
        "x-amz-security-token=",
        boundary=None,
        finder=r"[?&](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=",
    ),
    _token(
        "url_password",
        r"://(?P<user>[^\s/:@\"'<>\[\]]*):(?P<secret>[^\s/@\"'<>]+)@",
        "://",
        judge=_not_placeholder,
        boundary=None,
    ),
    Rule(
        "authorization",
        re.compile(
            r"(?i)(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"(?:(?P<scheme>bearer|basic|token|bot|digest|apikey|api-key|sso-key|key|otp|dpop)"
            r"[ \t]+)?(?P<secret>[^\s\"',;]{8,})"
        ),
        ("authorization",),
        _authorization,
        finder=re.compile("authorization"),
    ),
    _token(
        "bearer_token",
        r"(?i)bearer[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        "bearer",
        judge=_random,
        finder="bearer[ \t]",
    ),
    _token(
        "basic_auth",
        r"(?i)basic[ \t]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
        "basic",
        judge=_basic,
        finder="basic[ \t]",
    ),
    _token(
        "basic_auth",
        r"-(?:u|-user|-proxy-user)(?:[ \t]+|=)[\"']?(?P<user>[^\s:\"'@]*):(?P<secret>[^\s\"'@]+)",
        "-u",
        "--user",
        "--proxy-user",
        judge=_user_password,
        boundary="_-",
    ),
    _token(
        "cli_password",
        r"m(?:ysql(?:dump|admin|sh|import)?|ariadb)\b"
        r"[^\n|;&]{0,200}?[ \t]-p(?P<secret>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)",
        "mysql",
        "mariadb",
        judge=_quoted_flag_value,
        boundary="_-",
    ),
    _token(
        "cli_password",
        r"sshpass[ \t]+-p[ \t]*(?P<secret>'[^'\n]*'|\"[^\"\n]*\"|\S+)",
        "sshpass",
        judge=_quoted_flag_value,
        boundary="_-",
    ),
    _token(
        "encoded_secret",
        r"(?:LS0t|ey|ew)[A-Za-z0-9+/]{60,}={0,2}(?![A-Za-z0-9+/=])",
        "ls0t",
        "ey",
        "ew",
        judge=_encoded,
        boundary="+/=",
    ),
    Rule(
        "secret",
        re.compile(
            r"(?i)(?:pass|pwd|secret|token|key|auth|credential|cookie)"
            r"(?P<rest>[\w.-]{0,60})(?P<close>\\?[\"'`]\]?|)"
            r"(?P<sep>[ \t]*(?::=|=>|=(?!=)|:)[ \t]*|[ \t]+(?:is|was|are)[ \t]+|[ \t]+)"
            r"(?P<value>\\?[\"'`][^\"'`\\\n]{1,8192}|[^\s\"'`]{1,8192})"
        ),
        ("pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie"),
        _keyword,
        None,  # the key is read backwards from the keyword: DB_PASSWORD, dbPassword
        re.compile("pass|pwd|secret|token|key|auth|credential|cookie"),
    ),
)
