"""Secret redaction: every note written to the store, every harvested digest and every text
sent to a summarising endpoint goes through `redact` first. A secret becomes
`[REDACTED:<kind>]`; the text around it stays (`export OPENAI_API_KEY=[REDACTED:openai_key]`).

What is found (rules in `_rules`, most specific first):
- provider tokens by their documented shapes: OpenAI, Anthropic, GitHub, GitLab, Slack,
  Stripe, Hugging Face, SendGrid, Google (API keys, OAuth client secrets and tokens), AWS
  key ids, npm, PyPI, Docker Hub, DigitalOcean, Shopify, Vault, Terraform Cloud,
  Databricks, Telegram, Twilio, Mailgun, Square, age, Linear, Atlassian; JWTs; PEM private
  key bodies (also JSON-escaped, as in a GCP service-account file);
- secrets by where they stand: AWS secret keys, Azure `AccountKey=`, signatures in
  presigned URLs, passwords in URLs (`scheme://user:pass@host`), `Authorization:` header
  values, `Bearer` tokens, `Basic` credentials, passwords on command lines (`curl -u`,
  `mysql -p`, `docker login -p`, `redis-cli -a`, ...), `.pgpass` lines, SQL passwords, and
  base64 that decodes to any of these (a kubeconfig's `client-key-data`);
- values of keys that name a secret (`password`, `token`, `api_key`, `client_secret`, ...)
  in env lines, YAML, JSON, INI, XML, code, CLI flags, `.netrc` and prose ("the password
  is X"), judged by `_values`: placeholders, numbers, paths, URLs and code references are
  kept, so are settings about a secret (`password_min_length: 8`, `token_url: ...`).

Deliberately kept: hex digests (git SHAs, sha256 sums), UUIDs, base64 that decodes to no
secret (images, certificates, integrity hashes), public keys, and a password that is one
lower-case dictionary word in YAML or code (`password: hunter`; `DB_PASSWORD=hunter` in an
env line is redacted).

`redact` is deterministic and idempotent: its own output comes back unchanged.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._rules import MARKER, RULES, Rule, default_span

__all__ = ["KINDS", "Redaction", "count_markers", "redact", "redact_json", "redact_text"]

KINDS: frozenset[str] = frozenset(rule.kind for rule in RULES)
"""Every kind a marker can name."""


@dataclass(slots=True)
class Redaction:
    """Redacted text and how many secrets of each kind were replaced."""

    text: str
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _inside_marker(text: str, pos: int) -> bool:
    start = text.rfind(MARKER, max(0, pos - 48), pos + len(MARKER))
    if start == -1 or start > pos:
        return False
    close = text.find("]", start)
    return close == -1 or close >= pos


def _candidates(rule: Rule, text: str, lowered: str | None) -> Generator[re.Match[str], int, None]:
    """Matches of `rule` in `text`, the search resuming where `_apply` sends: after a
    replaced secret, or one character on from a rejected candidate (a secret inside it is
    still seen), or where the judge said."""
    pos = 0
    while pos <= len(text):
        if rule.finder is not None and lowered is not None:
            found = rule.finder.search(lowered, pos)
            if found is None:
                return
            match = rule.pattern.match(text, found.start())
            if match is None:
                pos = found.start() + 1
                continue
        else:
            match = rule.pattern.search(text, pos)
            if match is None:
                return
        pos = yield match


def _apply(rule: Rule, text: str, lowered: str | None, counts: Counter[str]) -> str:
    """Replace every secret `rule` finds in `text`."""
    judge = rule.judge or default_span
    parts: list[str] = []
    last = 0
    candidates = _candidates(rule, text, lowered)
    match = next(candidates, None)
    while match is not None:
        start = match.start()
        span = None if _inside_marker(text, start) else judge(rule, match)
        resume = start + 1
        if isinstance(span, int):
            resume, span = max(span, resume), None
        if span is not None and span[1] >= last and MARKER not in text[span[1] : span[2]]:
            kind, begin, end = span
            parts += (text[last:begin], f"{MARKER}{kind}]")
            counts[kind] += 1
            last = end
            resume = max(end, resume)
        try:
            match = candidates.send(resume)
        except StopIteration:
            break
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def _scan(text: str, *, nested: bool = False) -> tuple[str, Counter[str]]:
    counts: Counter[str] = Counter()
    lowered = text.lower()
    # Finders index the lower-cased text by position: only valid if lowering kept lengths.
    aligned: str | None = lowered if len(lowered) == len(text) else None
    for rule in RULES:
        if nested and rule.kind == "encoded_secret":
            continue
        if rule.needles and not any(needle in lowered for needle in rule.needles):
            continue
        before = sum(counts.values())
        text = _apply(rule, text, aligned, counts)
        if aligned is not None and sum(counts.values()) != before:
            aligned = text.lower()
            if len(aligned) != len(text):
                aligned = None
    return text, counts


def redact(text: str) -> Redaction:
    """Replace every secret in `text`; deterministic, idempotent on its own output."""
    if not text:
        return Redaction(text=text)
    clean, counts = _scan(text)
    return Redaction(text=clean, counts=counts)


def redact_text(text: str) -> str:
    return redact(text).text


def redact_json(value: Any) -> Any:
    """A JSON value with every string in it redacted, object keys included.

    Each string is redacted alone (a token after a line break), then the whole as JSON
    text, where a value is seen beside its key (`{"password": "..."}`). When the second
    pass would change the value's shape (a replacement across strings), the first is kept.
    """
    clean = _leaves(value)
    try:
        text = json.dumps(clean, ensure_ascii=False)
    except (TypeError, ValueError):
        return clean
    redacted = redact(text).text
    if redacted == text:
        return clean
    try:
        again = json.loads(redacted)
    except ValueError:
        return clean
    return again if _same_shape(clean, again) else clean


def _leaves(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value).text
    if isinstance(value, Mapping):
        # two keys that differ only by their secret become one: the later value wins
        return {_leaves(k) if isinstance(k, str) else k: _leaves(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_leaves(item) for item in value]
    return value


def _same_shape(a: Any, b: Any) -> bool:
    """Same containers, keys counts and lengths; strings may differ (they were redacted)."""
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and len(a) == len(b)
            and all(_same_shape(x, y) for x, y in zip(a.values(), b.values(), strict=True))
        )
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(_same_shape(x, y) for x, y in zip(a, b, strict=True))
        )
    return isinstance(b, str) if isinstance(a, str) else a == b


_MARKER = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")


def count_markers(text: str) -> Counter[str]:
    """How many secrets of each kind a redacted text had replaced (its markers)."""
    return Counter(_MARKER.findall(text))
