"""Secret redaction, applied to every text derived from a transcript before it is stored
or sent to a summarising endpoint. A secret becomes `[REDACTED:<kind>]`.

What is redacted: provider API keys (OpenAI `sk-`, Anthropic `sk-ant-`, GitHub `ghp_` /
`gho_` / `ghu_` / `ghs_` / `ghr_` / `github_pat_`, AWS `AKIA`/`ASIA` key ids, Slack `xox*`
tokens and webhook URLs, Google `AIza`), `Bearer` tokens, JWTs, PEM private key blocks,
passwords in URLs (`scheme://user:pass@host`, the user name is kept), values of
`password` / `secret` / `token` / `api_key` / ... assignments and of env lines whose
name says it is a secret (`DB_PASSWORD=...`, `export OPENAI_API_KEY=...`), and long
base64 blobs (120+ characters mixing upper case, lower case and digits).

What is deliberately kept: hex digests such as git SHAs (40 hex) and sha256 sums (64
hex). They identify commits and files that notes refer to, and are not credentials;
mixed-case base64 of that length is. Ordinary `KEY=value` env lines whose name does not
suggest a secret (`NODE_ENV=production`) are kept. Placeholder values (`$TOKEN`,
`${TOKEN}`, `<your-token>`, `process.env.X`, `os.environ[...]`, `***`) are kept.
Code assignments whose value is an expression (`token = get_token()`,
`password=self.password`) are kept; unquoted lower-case words are kept too, which misses
a weak password like `password=hunter`: the quoted and digit-bearing cases are the ones
that occur in transcripts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_SECRET_NAME = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?|session[_-]?key)"
)

# (kind, pattern, group to replace or 0 for the whole match); order matters: specific
# shapes first so a GitHub token inside `token=...` is reported as github, not assignment.
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\n]*)",
            re.DOTALL,
        ),
        0,
    ),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), 0),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), 0),
    (
        "github_token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        0,
    ),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    (
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
        0,
    ),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)"), 1),
    (
        "url_password",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@\"'<>]*:([^\s/@\"'<>]+)@"),
        1,
    ),
    (
        "env_secret",
        re.compile(
            rf"(?m)^(?:\s*export\s+)?\s*[A-Z0-9_]*{_SECRET_NAME.upper()}[A-Z0-9_]*"
            r"\s*=\s*([\"']?)((?!\$|<|\*{3})[^\s\"'#]+)\1"
        ),
        2,
    ),
    (
        "assignment",
        re.compile(
            rf"(?i)\b[A-Za-z0-9_.-]*{_SECRET_NAME}[A-Za-z0-9_]*[\"']?\s*(?:=|:)\s*"
            r"(?:\"((?!\$|<|\*{3})[^\"\s]{4,})\"|'((?!\$|<|\*{3})[^'\s]{4,})'|"
            r"((?![a-z_.]+\b(?![(\[\w]))(?!\$|<|\*{3}|process\.env|os\.environ)"
            r"[^\s\"'`,;()\[\]{}]{6,}+(?![(\[])))"
        ),
        -1,
    ),
    (
        "base64_blob",
        re.compile(
            r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])"
            r"(?=[A-Za-z0-9+/]*[0-9])[A-Za-z0-9+/]{120,}={0,2}"
        ),
        0,
    ),
]


@dataclass(slots=True)
class Redaction:
    """Redacted text and how many secrets of each kind were replaced."""

    text: str
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _replace(kind: str, group: int, counts: Counter[str]):  # type: ignore[no-untyped-def]
    def sub(match: re.Match[str]) -> str:
        if group == 0:
            target = 0
        elif group == -1:  # first alternative group that matched
            target = next(i for i in range(1, (match.lastindex or 0) + 1) if match.group(i))
        else:
            target = group
        value = match.group(target)
        if not value or "[REDACTED:" in match.group(0):
            return match.group(0)  # already redacted by a more specific pattern
        counts[kind] += 1
        start, end = match.start(target) - match.start(0), match.end(target) - match.start(0)
        whole = match.group(0)
        return whole[:start] + f"[REDACTED:{kind}]" + whole[end:]

    return sub


def redact(text: str) -> Redaction:
    """Replace every secret in `text`; deterministic, idempotent on its own output."""
    counts: Counter[str] = Counter()
    for kind, pattern, group in _PATTERNS:
        text = pattern.sub(_replace(kind, group, counts), text)
    return Redaction(text=text, counts=counts)


def redact_text(text: str) -> str:
    return redact(text).text
