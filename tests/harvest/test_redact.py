from __future__ import annotations

import pytest

from nano_brain.harvest.redact import redact, redact_text

# Built by concatenation so no scanner mistakes the test data for leaked credentials.
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0abcdefghijklmn_opqrstuvwxyz0123456789ABCDEF"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
SLACK = "xoxb-" + "123456789012-abcdefGHIJKLmnop"
GOOGLE = "AIza" + "SyA-1234567890abcdefghijklmnopqrstu"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9Pl"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4\nq83Hd==\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"export OPENAI_API_KEY={OPENAI}", OPENAI, "openai_key"),
        (f"key: {ANTHROPIC} ok", ANTHROPIC, "anthropic_key"),
        (f"git push https://{GITHUB}@github.com/x/y", GITHUB, "github_token"),
        (f"GH={GITHUB_PAT}", GITHUB_PAT, "github_token"),
        (f"aws_access_key_id = {AWS}", AWS, "aws_access_key"),
        (f"slack {SLACK}", SLACK, "slack_token"),
        (f"maps?key={GOOGLE}", GOOGLE, "google_api_key"),
        (f"curl -H 'Authorization: Bearer {OPENAI[3:]}xyz'", OPENAI[3:], "bearer_token"),
        (f"cookie={JWT}", JWT, "jwt"),
        (f"here:\n{PEM}\nthere", "MIIEowIBAAKCAQEAx4", "private_key"),
        ("postgres://admin:s3cr3tPass@db:5432/app", "s3cr3tPass", "url_password"),
        ("DB_PASSWORD=correcthorse", "correcthorse", "env_secret"),
        ('client_secret: "x9y8z7w6"', "x9y8z7w6", "assignment"),
        ("login(password='pa55word')", "pa55word", "assignment"),
        ("token=abc123def456", "abc123def456", "assignment"),
    ],
)
def test_secret_is_replaced(text: str, secret: str, kind: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert result.counts[kind] >= 1


def test_base64_blob() -> None:
    blob = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 3
    result = redact(f"image: data:image/png;base64,{blob}")
    assert blob not in result.text and result.counts["base64_blob"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",  # git SHA: kept
        "sha256 " + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "NODE_ENV=production",
        "TOKEN=$GITHUB_TOKEN and SECRET=${SECRET}",
        "password: <your-password>",
        "def f(token: str) -> None:",
        "token = get_token()",
        "password=self.password",
        "the token is expired, ask for a new password",
        "http://localhost:8080/api and https://user@example.com/x",
        "sk-short",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    result = redact(text)
    assert result.text == text
    assert result.total == 0


def test_idempotent_and_keeps_surroundings() -> None:
    text = f"Use {OPENAI} with user bob, then\nDB_PASSWORD=hunter22 ."
    once = redact_text(text)
    assert redact_text(once) == once
    assert once.startswith("Use [REDACTED:openai_key] with user bob")
    assert once.endswith("DB_PASSWORD=[REDACTED:env_secret] .")
