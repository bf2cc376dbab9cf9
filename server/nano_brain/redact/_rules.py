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
Verdict = Span | int | None
"""A span to replace; or, for a rejected candidate, None (search on from the next
character) or where to search on from."""

Judge = Callable[["Rule", re.Match[str]], Verdict]


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...] = ()
    """Lower-case strings one of which the text must contain for the rule to run."""
    judge: Judge | None = None
    """Decides a candidate; default: replace the `secret` group, or the whole match."""
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


_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----")
_PEM_OPEN_BODY = re.compile(r"[A-Za-z0-9+/=\s\\]*")
_PEM_MAX = 20_000


def _pem(rule: Rule, match: re.Match[str]) -> Span | None:
    """The key's body between its BEGIN and END lines (both kept: the note says what it was).

    Without an END line (a cut or pasted-in-part key) the body is the base64 that follows."""
    text = match.string
    start = match.end()
    end_line = _PEM_END.search(text, start, start + _PEM_MAX)
    next_begin = text.find("-----BEGIN", start, end_line.start() if end_line else start + _PEM_MAX)
    if end_line is not None and next_begin == -1:
        end = end_line.start()
    else:
        opened = _PEM_OPEN_BODY.match(text, start, start + _PEM_MAX)
        end = opened.end() if opened else start
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

_PREV_WORD = re.compile(r"([A-Za-z]+)[ \t]+\Z")
_KEY_TAIL = re.compile(r"[A-Za-z0-9_.-]+\Z")
_CODE_END = re.compile(r"[,;<>(){}\[\]&|\\]")
_TRAILING = ".,:;!?)"
# A value is matched up to this length (so a run of keywords costs little to reject); an
# accepted one is then followed to its real end.
_VALUE_MAX = 512
_QUOTED_END = re.compile(r"[\"'`\\\n]")
_UNQUOTED_END = re.compile(r"[\s\"'`]")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_OPERATOR = re.compile(r"\.[A-Za-z_]|[ \t]*(?:\?|&&|\|\||\||\+|=(?!=)|\()")
_JSON_ESCAPE = re.compile(r"\\[nrt\"\\]")


def _key_start(text: str, pos: int) -> int:
    head = _KEY_TAIL.search(text, max(0, pos - 64), pos)
    return head.start() if head else pos


_BARE_KEYS = frozenset({"password", "passwd", "passphrase", "pwd", "token", "secret"})


def _bare_key(text: str, key_start: int, key: str) -> bool:
    """A key followed by its value after a space: a `--token X` flag, `password X` as in
    a .netrc file or a sentence, SQL's `PASSWORD 'X'`."""
    return text.startswith("-", max(0, key_start)) or key.lower() in _BARE_KEYS


def _keyword(rule: Rule, match: re.Match[str]) -> Verdict:
    """A key naming a secret, and a value that is one. A rejected value is searched on
    from its start (a secret may stand inside it), not from inside the key again."""
    verdict = _judge_keyword(rule, match)
    return match.start("value") if verdict is None else verdict


def _judge_keyword(rule: Rule, match: re.Match[str]) -> Span | None:
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
    if prose and verb and strength != "strong":  # "the api key is X": two words
        word = _PREV_WORD.search(text, max(0, key_start - 24), key_start)
        strength = key_strength(f"{word.group(1)}_{key}")[0] if word else None
    if strength is None or (
        prose and (strength != "strong" or (not verb and not _bare_key(text, key_start, key)))
    ):
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
    if verb == ">" and not (
        text.startswith("<", key_start - 1) and text.startswith("</", start + len(value))
    ):
        return None  # only an element: <password>X</password>
    if not value or value == key or not is_secret_value(value, strength, loose=env, prose=prose):
        return None
    end = start + len(value)
    if end == match.end("value") and len(raw) >= _VALUE_MAX:  # a long value: find its end
        stop = (_QUOTED_END if quoted else _UNQUOTED_END).search(text, end)
        end = stop.start() if stop else len(text)
    return rule.kind, start, end


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


def _token(
    kind: str, pattern: str, *needles: str, judge: Judge | None = None, finder: str | None = None
) -> Rule:
    return Rule(kind, re.compile(pattern), needles, judge, re.compile(finder) if finder else None)


def _prefixed(
    kind: str, rest: str, *prefixes: str, glue: str = "", judge: Judge | None = None
) -> list[Rule]:
    """A rule per literal prefix: each searches for its own, longer literal (one pattern
    with alternatives after a common `gh` or `gl` stops at every `github` or `global`)."""
    return [
        _token(kind, _lead(prefix, glue=glue) + rest, prefix.lower(), judge=judge)
        for prefix in prefixes
    ]


def _lead(*literals: str, glue: str = "") -> str:
    """A token's literal prefix (or alternatives), not matched inside a longer word (letters,
    digits, `_` or `glue` right before it). The look-behind stands after the literal: the
    pattern keeps its fast literal search, and a run such as `eyJeyJeyJ...` is rejected at
    each place in constant time instead of being scanned again from each."""
    before = r"[\w" + re.escape(glue) + "]"
    parts = [f"{re.escape(lit)}(?<!{before}{re.escape(lit)})" for lit in literals]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


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


_URL_SAFE = re.compile(r"[A-Za-z0-9%+/=_.~-]+")
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]+")
_FLAG_VALUE = r"(?P<secret>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)"


def _flag_rule(flag: str, *tools: str, sub: str = "", attached: bool = False) -> list[Rule]:
    """`tool [sub ...] flag VALUE`: a password given on a command line (`sub`: only in that
    sub-command, as `docker login -p` but not `docker run -p 8080:80`)."""
    before = rf"\b[^\n|;&]{{0,200}}?[ \t]{sub}[^\n|;&]{{0,200}}?" if sub else r"\b[^\n|;&]{0,200}?"
    rest = before + rf"[ \t]{flag}[ \t]{'*' if attached else '+'}" + _FLAG_VALUE
    return _prefixed("cli_password", rest, *tools, glue="-", judge=_quoted_flag_value)


def _signature(rule: Rule, match: re.Match[str]) -> Span | None:
    """A URL's or a signed header's signature: URL-safe and random, or a long hex digest
    (not `signature=parsed_signature` in code)."""
    safe = _URL_SAFE.match(match.group("secret"))  # up to a `;` or `)` after it
    value = safe.group(0) if safe else ""
    if looks_random(value) or (len(value) >= 32 and _HEX_DIGEST.fullmatch(value)):
        start = match.start("secret")
        return rule.kind, start, start + len(value)
    return None


def _strong_value(rule: Rule, match: re.Match[str]) -> Span | None:
    return default_span(rule, match) if is_secret_value(match.group("secret"), "strong") else None


def _pgpass(rule: Rule, match: re.Match[str]) -> Span | None:
    """A ~/.pgpass line `host:port:database:user:password`, where the file is named."""
    value = match.group("secret")
    if value.isdigit() or is_placeholder(value) or _inside_word(match.string, match.start()):
        return None
    return rule.kind, *match.span("secret")


def _inside_word(text: str, pos: int) -> bool:
    return pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "_.:")


_PEM_LINE = r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"

RULES: tuple[Rule, ...] = (
    Rule("private_key", re.compile(_PEM_LINE), ("private key",), _pem),
    _token("anthropic_key", _lead("sk-ant-", glue="-") + r"[A-Za-z0-9_-]{20,}+", "sk-ant-"),
    _token(
        "openai_key",
        _lead("sk-", glue="-") + r"(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}+",
        "sk-",
        judge=_random,
    ),
    *_prefixed("github_token", r"[A-Za-z0-9]{36,255}+", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    *_prefixed("github_token", r"\w{22,255}+", "github_pat_"),
    *_prefixed(
        "gitlab_token",
        r"[A-Za-z0-9_-]{20,}+",
        *("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-"),
        *("glagent-", "gloas-", "glffct-", "GR1348941"),
    ),
    _token("slack_token", _lead("x") + r"(?:ox[abposre]|app)-[A-Za-z0-9-]{10,}+", "xox", "xapp-"),
    _token(
        "slack_webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]{20,}+)",
        "hooks.slack.com",
    ),
    *_prefixed("stripe_key", r"[A-Za-z0-9]{16,}+", "sk_live_", "rk_live_", "sk_test_", "rk_test_"),
    *_prefixed("stripe_key", r"[A-Za-z0-9]{24,}+", "whsec_"),
    *_prefixed("huggingface_token", r"[A-Za-z0-9]{30,}+", "hf_", "api_org_", judge=_random),
    _token(
        "sendgrid_key",
        _lead("SG.", glue=".") + r"[A-Za-z0-9_-]{16,32}+\.[A-Za-z0-9_-]{16,64}+",
        "sg.",
    ),
    _token("google_api_key", _lead("AIza", glue="-") + r"[0-9A-Za-z_-]{35}", "aiza"),
    *_prefixed("google_oauth", r"[A-Za-z0-9_-]{20,}+", "GOCSPX-", "ya29.", glue="-"),
    *_prefixed("google_oauth", r"[A-Za-z0-9_-]{30,}+", "1//0", glue="-"),
    _token(
        "aws_access_key",
        _lead("AKIA", "ASIA", "ABIA", "ACCA")
        + r"[A-Z0-9]{16}(?![A-Z0-9])|"
        + _lead("A3T")
        + r"[A-Z0-9]{17}(?![A-Z0-9])",
        "akia",
        "asia",
        "abia",
        "acca",
        "a3t",
    ),
    _token("npm_token", _lead("npm_") + r"[A-Za-z0-9]{36}(?!\w)", "npm_"),
    _token("pypi_token", _lead("pypi-") + r"AgE[A-Za-z0-9_-]{50,}+", "pypi-"),
    _token("docker_token", _lead("dckr_pat_") + r"[A-Za-z0-9_-]{20,}+", "dckr_pat_"),
    _token("digitalocean_token", _lead("do") + r"[por]_v1_[a-f0-9]{64}", "_v1_"),
    *_prefixed("shopify_token", r"[a-fA-F0-9]{32}", "shpat_", "shpca_", "shppa_", "shpss_"),
    _token(
        "vault_token", _lead("hv", glue=".") + r"[sbr]\.[A-Za-z0-9_-]{24,}+", "hvs.", "hvb.", "hvr."
    ),
    _token(
        "terraform_token",
        r"\.atlasv1\.(?<=[A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_=-]{60,}+",
        "atlasv1",
        judge=lambda rule, match: (rule.kind, match.start() - 14, match.end()),
    ),
    _token("databricks_token", _lead("dapi") + r"[a-f0-9]{32}(?:-\d)?(?!\w)", "dapi"),
    _token("telegram_token", r":AA[A-Za-z0-9_-]{33}(?![\w-])", ":aa", judge=_telegram),
    _token("twilio_key", _lead("SK") + r"[0-9a-f]{32}(?!\w)", "sk"),
    _token("mailgun_key", _lead("key-") + r"[0-9a-f]{32}(?!\w)", "key-"),
    _token(
        "square_token",
        _lead("sq0")
        + r"(?:csp-[A-Za-z0-9_-]{43}|atp-[A-Za-z0-9_-]{22})|"
        + _lead("EAAA", glue="+/=-")
        + r"[A-Za-z0-9_-]{60}",
        "sq0",
        "eaaa",
    ),
    _token("age_key", _lead("AGE-SECRET-KEY-1") + r"[0-9A-Z]{58}", "age-secret-key-"),
    _token("linear_key", _lead("lin_api_") + r"[A-Za-z0-9]{40}", "lin_api_"),
    _token("atlassian_token", _lead("ATATT3") + r"[A-Za-z0-9_=-]{100,}+", "atatt3"),
    _token(
        "jwt",
        _lead("eyJ", glue="-") + r"[A-Za-z0-9_-]{8,}+\.ey[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+",
        "eyj",
    ),
    # -- secrets recognised by where they stand -------------------------------------------
    _token(
        "aws_secret_key",
        r"(?i)secret_?(?:access_?)?(?P<key>key)[\"'\]]{0,2}(?:[ \t]*[:=][ \t]*|[ \t]+)"
        r"[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        "secret",
        judge=_aws_secret,
        finder=r"secret_?(?:access_?)?key",
    ),
    _token(
        "azure_key",
        r"(?i)(?<![A-Za-z0-9_])(?:AccountKey|SharedAccessKey|SharedSecretValue)[ \t]*=[ \t]*"
        r"(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
        "accountkey",
        "sharedaccesskey",
        "sharedsecretvalue",
        finder=r"accountkey|sharedaccesskey|sharedsecretvalue",
    ),
    _token(
        "url_signature",
        r"(?i)[?&, ](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)="
        r"(?P<secret>[^&\s\"'#<>,]{16,})",
        "sig=",
        "signature=",
        "x-amz-security-token=",
        judge=_signature,
        finder=r"[?&, ](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=",
    ),
    _token(
        "url_password",
        r"://(?P<user>[^\s/:@\"'<>\[\]]*):(?P<secret>[^\s/@\"'<>]+)@",
        "://",
        judge=_not_placeholder,
    ),
    Rule(
        "authorization",
        re.compile(
            r"(?i)(?<![A-Za-z0-9_])authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"(?:(?P<scheme>bearer|basic|token|bot|digest|apikey|api-key|sso-key|key|otp|dpop|aws4-hmac-sha256)"
            r"[ \t]+)?(?P<secret>[^\s\"',;]{8,})"
        ),
        ("authorization",),
        _authorization,
        finder=re.compile("authorization"),
    ),
    _token(
        "bearer_token",
        r"(?i)(?<![A-Za-z0-9_])bearer[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        "bearer",
        judge=_random,
        finder="bearer[ \t]",
    ),
    _token(
        "basic_auth",
        r"(?i)(?<![A-Za-z0-9_])basic[ \t]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
        "basic",
        judge=_basic,
        finder="basic[ \t]",
    ),
    _token(
        "basic_auth",
        _lead("-u", "--user", "--proxy-user", glue="-")
        + r"(?:[ \t]+|=)[\"']?(?P<user>[^\s:\"'@]*):(?P<secret>[^\s\"'@]+)",
        "-u",
        "--user",
        "--proxy-user",
        judge=_user_password,
    ),
    _token(
        "cli_password",
        _lead("m", glue="-") + r"(?:ysql(?:dump|admin|sh|import)?|ariadb)\b"
        r"[^\n|;&]{0,200}?[ \t]-p(?P<secret>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)",
        "mysql",
        "mariadb",
        judge=_quoted_flag_value,
    ),
    *_flag_rule("-p", "sshpass", attached=True),
    *_flag_rule("-p", "docker", "podman", "buildah", "skopeo", "helm", "oras", "az", sub="login"),
    *_flag_rule("-a", "redis-cli"),
    *_flag_rule("-k", "openssl"),
    *_flag_rule("-P", "zip", "unzip"),
    _token(
        "cli_password",
        r"(?i)identified[ \t]+by[ \t]+(?:password[ \t]+)?'(?P<secret>[^'\n]+)'",
        "identified",
        judge=_strong_value,
        finder="identified",
    ),
    _token(
        "cli_password",
        r"(?<![\w.:-])(?P<host>[A-Za-z0-9][\w.-]*+):(?:\d+|\*):[^\s:]++:[^\s:]++:"
        r"(?P<secret>[^\s'\"]+)",
        ".pgpass",
        judge=_pgpass,
    ),
    _token(
        "encoded_secret",
        _lead("LS0t", "ey", "ew", glue="+/=") + r"[A-Za-z0-9+/]{60,}+={0,2}(?![A-Za-z0-9+/=])",
        "ls0t",
        "ey",
        "ew",
        judge=_encoded,
    ),
    Rule(
        "secret",
        re.compile(
            r"(?i)(?:pass|pwd|secret|token|key|auth|credential|cookie)"
            r"(?P<rest>[\w.-]{0,60}+)(?P<close>\\?[\"'`]\]?|)"
            r"(?P<sep>[ \t]*(?::=|=>|=(?!=)|:)[ \t]*|[ \t]+(?:is|was|are)[ \t]+|[ \t]+|>)"
            rf"(?P<value>\\?[\"'`][^\"'`\\\n]{{1,{_VALUE_MAX}}}+|[^\s\"'`]{{1,{_VALUE_MAX}}}+)"
        ),
        ("pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie"),
        _keyword,  # reads the key backwards from the keyword: DB_PASSWORD, dbPassword
        re.compile("pass|pwd|secret|token|key|auth|credential|cookie"),
    ),
)
