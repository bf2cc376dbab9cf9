"""`Brain.write` redacts every text field it stores, not only the content: title, tags,
metadata (keys and string values, at any depth) and the source path (issue 31)."""

from __future__ import annotations

import json
from pathlib import Path

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.fields import MAX_TAG_CHARS, MAX_TITLE_CHARS, is_tag
from nano_brain.filters import Filters
from nano_brain.search import validate_request

GITHUB = "ghp_4Fq7Zr2Lw9Xc1Vb8Nm3Kp6Tj0Hs5Gd7Ya2Qe"
AWS_ID = "AKIAQYLPMN5HFIQR7XZA"
PASSWORD = "Tr0ub4dor-Horse-9"
URL_PASSWORD = "s3cr3t-Pw"
OPENAI = "sk-proj-Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
SECRETS = (GITHUB, AWS_ID, PASSWORD, URL_PASSWORD, OPENAI)

SOURCE = f"https://deploy:{URL_PASSWORD}@wiki.internal/runbooks/backups"


def _leaks(value: object) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return [s for s in SECRETS if s in text]


def _write(brain: Brain, content: str = "How we restore the nightly backups.") -> object:
    return brain.write(
        content,
        title=f"Backups: the {GITHUB} token",
        tags=["backups", GITHUB, f"password={PASSWORD}"],
        metadata={
            "password": PASSWORD,
            "owner": {"notes": [f"line one\n{AWS_ID}", "plain"], "url": SOURCE},
            f"key {OPENAI}": "a key that is a secret",
            "count": 3,
        },
        source_path=SOURCE,
    )


def test_every_field_of_a_note_is_redacted(tiny_brain: Brain) -> None:
    result = _write(tiny_brain)
    doc = tiny_brain.get(result.document.id)  # type: ignore[attr-defined]
    assert _leaks(doc.model_dump()) == []
    assert doc.title == "Backups: the [REDACTED:github_token] token"
    assert "[REDACTED:github_token]" in doc.tags and "password=[REDACTED:secret]" in doc.tags
    assert all(is_tag(t) for t in doc.tags)
    assert doc.metadata["password"] == "[REDACTED:secret]"
    assert doc.metadata["owner"]["notes"] == ["line one\n[REDACTED:aws_access_key]", "plain"]
    assert doc.metadata["count"] == 3
    assert "key [REDACTED:openai_key]" in doc.metadata
    assert (
        doc.source_path == "https://deploy:[REDACTED:url_password]@wiki.internal/runbooks/backups"
    )
    # nor in what else is kept about the write: the audit log, listings, search
    assert _leaks([e.model_dump() for e in tiny_brain.log()]) == []
    assert _leaks([d.model_dump() for d in tiny_brain.list(Filters())]) == []
    hits = tiny_brain.search(validate_request(query="restore nightly backups"))
    assert hits.results and _leaks(hits.model_dump()) == []
    assert tiny_brain.tags(Filters()) and _leaks(tiny_brain.tags(Filters())) == []


def test_a_redacted_source_path_is_still_the_same_key(tiny_brain: Brain) -> None:
    first = _write(tiny_brain).document  # type: ignore[attr-defined]
    again = _write(tiny_brain, "How we restore the nightly backups, now hourly.")
    assert again.updated and again.document.id == first.id  # type: ignore[attr-defined]
    assert again.document.version == 2  # type: ignore[attr-defined]
    assert tiny_brain.get(SOURCE).id == first.id  # looked up by what the caller knows
    tiny_brain.delete(first.id, tombstone=True)
    assert _leaks(tiny_brain.tombstones()) == [] and len(tiny_brain.tombstones()) == 1
    assert tiny_brain.unforget(SOURCE) and tiny_brain.tombstones() == []
    assert _leaks([e.model_dump() for e in tiny_brain.log()]) == []


def test_long_title_and_tag_stay_valid_after_redaction(tiny_brain: Brain) -> None:
    # the marker ([REDACTED:aws_access_key]) is longer than the key id it replaces
    title = "t" * (MAX_TITLE_CHARS - len(AWS_ID) - 1) + f" {AWS_ID}"
    tag = "x" * (MAX_TAG_CHARS - len(AWS_ID) - 1) + f"-{AWS_ID}"
    assert len(title) == MAX_TITLE_CHARS and len(tag) == MAX_TAG_CHARS and is_tag(tag)
    doc = tiny_brain.write("a note", title=title, tags=[tag]).document
    assert _leaks(doc.model_dump()) == []
    assert len(doc.title) <= MAX_TITLE_CHARS and "[REDACTE" not in doc.title
    assert doc.title == title[: -len(AWS_ID) - 1] + "…"
    assert [t for t in doc.tags if t.startswith("x")] == [tag[: -len(AWS_ID)] + "…"]
    assert all(is_tag(t) for t in doc.tags)


def test_redaction_off_keeps_every_field_as_written(workspace: Path) -> None:
    config = load_config(
        workspace, overrides={"embedding": {"provider": "none"}, "redact": {"enabled": False}}
    )
    with Brain(workspace, config=config) as brain:
        doc = brain.get(_write(brain, f"token {GITHUB}").document.id)  # type: ignore[attr-defined]
    assert GITHUB in (doc.content or "") and GITHUB in doc.title and GITHUB in doc.tags
    assert doc.metadata["password"] == PASSWORD and doc.source_path == SOURCE


def test_a_derived_title_is_cut_after_redaction(tiny_brain: Brain) -> None:
    # cut first, `ghp_4Fq7…` shrinks below a token's length and is kept as plain text
    title = tiny_brain.title_from(f"Note: deploy with {GITHUB} then restart", 30)
    assert len(title) <= 30 and "ghp_" not in title and GITHUB[4:12] not in title
    assert title.startswith("Note: deploy with")
