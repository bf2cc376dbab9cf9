"""Redaction: every credential shape of the corpus is caught in its surroundings, ordinary
text (code, logs, transcripts) comes through unchanged, and the text around a secret stays."""

from __future__ import annotations

import pytest

from nano_brain.redact import KINDS, redact, redact_text

from ._credentials import ORDINARY, Shape, command_line_shapes, credential_shapes, fragments
from .harvest._util import TRANSCRIPTS

SHAPES = credential_shapes()


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_credential_shape_is_redacted(shape: Shape) -> None:
    result = redact(shape.text)
    leaked = [f for secret in shape.secrets for f in fragments(secret) if f in result.text]
    assert not leaked, result.text
    assert result.counts[shape.kind] >= 1, dict(result.counts)
    assert f"[REDACTED:{shape.kind}]" in result.text
    # Lines that held no secret are kept as they were: the note stays readable.
    secret_lines = [
        line
        for line in shape.text.splitlines()
        if any(f in line for s in shape.secrets for f in fragments(s))
    ]
    for line in shape.text.splitlines():
        if line not in secret_lines:
            assert line in result.text


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_redaction_is_idempotent(shape: Shape) -> None:
    once = redact_text(shape.text)
    again = redact(once)
    assert again.text == once and again.total == 0


@pytest.mark.parametrize("text", ORDINARY, ids=[f"ordinary-{i}" for i in range(len(ORDINARY))])
def test_ordinary_text_is_kept(text: str) -> None:
    result = redact(text)
    assert result.text == text, dict(result.counts)
    assert result.total == 0


def test_the_recorded_transcripts_hold_no_credential() -> None:
    """The fixtures are real sessions (about secret redaction, too: they mention `sk-ant-...`,
    `apiKey: 'proxy-handled'` and `input_tokens: 128896`); none of it is a credential."""
    files = [p for p in sorted(TRANSCRIPTS.rglob("*")) if p.suffix in (".jsonl", ".json")]
    assert len(files) >= 20
    found = {p.name: dict(redact(p.read_text(encoding="utf-8")).counts) for p in files}
    assert {name: counts for name, counts in found.items() if counts} == {}


@pytest.mark.parametrize(
    ("text", "secret"),
    [(text, secret) for _, text, secret in command_line_shapes()],
    ids=[shape_id for shape_id, _, _ in command_line_shapes()],
)
def test_command_line_and_config_shapes(text: str, secret: str) -> None:
    out = redact_text(text)
    assert not [f for f in fragments(secret) if f in out], out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the three misses: any letters in the value, not only lower case
        ("aws_secret_access_key = wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_key"),
        ("token=AbCdEfGh-12345678", "secret"),
        ("api_key = AbcDEFghiJKL+mn0pq", "secret"),
        ("DB_PASSWORD=correcthorse", "secret"),  # an env line: a plain word is a password
        ("login(password='pa55word')", "secret"),
        ('ENV["DEPLOY_TOKEN"] = "x9Y8z7W6v5"', "secret"),
        ("--token 7f3c9e1d2b4a6f80", "secret"),
        ("Proxy-Authorization: Basic " + "ZGV2OnMzY3IzdA==", "basic_auth"),
        ("s3.pdf?X-Amz-Signature=" + "b497f9ce" * 8 + "; next", "url_signature"),  # hypothesis
    ],
)
def test_secret_values_by_key(text: str, expected: str) -> None:
    result = redact(text)
    assert result.counts == {expected: 1}
    assert f"[REDACTED:{expected}]" in result.text


@pytest.mark.parametrize(
    "text",
    [
        "password: hunter",  # one dictionary word in YAML: documented miss
        "self._cache_values[key] = supports_http2",  # x[key] is an index, not a key name
        "_token=_token, _stoken=_stoken",
        'publicKeyToken="1fc8b3b9a1e18e3b"',
        "key: PKCS12PrivateKeyTypes | None",
        "litellmApiKey: isLiteLLM ? env.CODEMIE_API_KEY : undefined",
        "detect-secrets = detect_secrets.main:main",
        "Pygments: Token: '#f8f8f2'",
        'build_hf_headers(token="hf_***")',
        "const apiKey = 'sk-ant-' + 'a'.repeat(95);",
        "export ANTHROPIC_API_KEY=sk-ant-...",
        "sk-short",
        "docker run -u www-data:www-data app",
    ],
)
def test_code_and_placeholders_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_marker_names_a_known_kind_and_keeps_surroundings() -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = f"Use {secret} with user bob, then\nDB_PASSWORD=hunter22 ."
    once = redact_text(text)
    assert (
        once == "Use [REDACTED:github_token] with user bob, then\nDB_PASSWORD=[REDACTED:secret] ."
    )
    assert {"github_token", "secret", "private_key", "url_password"} <= KINDS


def test_a_pem_key_keeps_its_begin_and_end_lines() -> None:
    [shape] = [s for s in SHAPES if s.id == "pem-rsa-private-key"]
    out = redact_text(shape.text)
    assert out.splitlines() == [
        "$ cat ~/.ssh/deploy_rsa",
        "-----BEGIN RSA PRIVATE KEY-----",
        "[REDACTED:private_key]",
        "-----END RSA PRIVATE KEY-----",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "eyJ" * 70_000,  # a prefix repeated inside one long word
        "ey" * 100_000,
        "token=$" * 30_000,  # a keyword every few characters, each value rejected
        "token" * 40_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" * 6_000,  # no END line anywhere
        "mysql " * 30_000 + " -p",
        "://a:" * 40_000,
        "~/.pgpass " + "a" * 200_000,
        "docker " * 30_000 + "login -p",
    ],
    ids=["eyJ", "ey", "token=$", "token", "pem-begin", "mysql", "url", "pgpass", "docker"],
)
def test_pathological_inputs_take_linear_time(text: str) -> None:
    """Each of these took quadratic time in an earlier version (minutes for 1 MB); pytest's
    timeout would stop a regression."""
    once = redact_text(text)
    assert redact_text(once) == once


def test_empty_and_huge_inputs() -> None:
    assert redact("").text == ""
    blob = "A" * 2_000_000  # one long "word": no quadratic scan
    assert redact_text(blob) == blob
