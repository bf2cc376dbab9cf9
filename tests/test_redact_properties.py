"""Properties of redaction on inputs nobody designed: it never raises, is idempotent, grows
text only by its markers, and finds a credential wherever it stands in random text."""

from __future__ import annotations

import os
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nano_brain.redact import redact

from ._credentials import ORDINARY, credential_shapes, fragments

SHAPES = credential_shapes()
_LONGEST_MARKER = max(len(f"[REDACTED:{s.kind}]") for s in SHAPES) + 8
_PIECES = [s.text for s in SHAPES] + list(ORDINARY) + [
    "[REDACTED:secret]", "password", "token=", "Bearer ", "://", "-----BEGIN PRIVATE KEY-----",
    "\\n", '"', "'", "=", ": ", " is ", "export ", "--token ", "eyJ", "sk-", "AKIA",
]  # fmt: skip
# Text that looks like what the redactor reads: pieces of credentials, keys, separators,
# quotes and markers, glued to arbitrary characters.
_MIXED = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=30)), max_size=12).map(
    "".join
)
# NB_REDACT_EXAMPLES=10000 for a longer search (run once here: no failure).
_PROPERTY = settings(
    max_examples=int(os.environ.get("NB_REDACT_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@_PROPERTY
@given(st.one_of(st.text(max_size=400), _MIXED))
def test_never_raises_and_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once.text).text == once.text


@_PROPERTY
@given(st.one_of(st.text(max_size=400), _MIXED))
def test_grows_only_by_its_markers(text: str) -> None:
    result = redact(text)
    assert len(result.text) <= len(text) + result.total * _LONGEST_MARKER
    assert result.total <= len(text)


_SURROUNDING = st.text(alphabet=string.printable, max_size=200)
_SEPARATOR = st.sampled_from(["\n", " ", "\n\n", "\t", "; ", "\r\n"])


@_PROPERTY
@given(st.sampled_from(SHAPES), _SURROUNDING, _SEPARATOR, _SURROUNDING, _SEPARATOR)
def test_a_secret_is_found_wherever_it_stands(shape, before, sep1, after, sep2) -> None:  # type: ignore[no-untyped-def]
    text = before + sep1 + shape.text + sep2 + after
    out = redact(text).text
    leaked = [f for secret in shape.secrets for f in fragments(secret) if f in out]
    assert not leaked, (shape.id, out)
