"""Hypothesis strategies for hostile transcripts, and what every parsed session must be.

Shared by the parser-level and the store-level fuzz tests.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from nano_brain.harvest import HarvestLocations, ReadLimits, Session, TranscriptError

from . import _synthetic as syn

LIMITS = ReadLimits(max_line_bytes=4096, max_file_bytes=1 << 20)
REASONS = {"malformed", "too-deep", "too-long", "unusable", "truncated", "unreadable"}
REQUEST = "please keep this request"
FUZZ = settings(
    derandomize=True,
    database=None,  # the same examples every run, in CI and here
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- values and records ------------------------------------------------------------------

_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
)
json_value = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
non_object = _leaf | st.lists(json_value, max_size=4)


def _object(template: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {key: shaped(value) for key, value in template.items()},
        optional={"extra": json_value},
    )


def shaped(template: Any) -> st.SearchStrategy[Any]:
    """Values shaped like `template`, any part of which may be a value of another type."""
    if isinstance(template, dict):
        return _object(template) | non_object
    if isinstance(template, list) and template:
        return st.lists(st.one_of([shaped(item) for item in template]), max_size=4) | json_value
    return st.just(template) | json_value


def records(templates: list[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects shaped like one of `templates` (their fields may hold anything)."""
    return st.one_of([_object(t) for t in templates])


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


@st.composite
def bad_line(draw: st.DrawFn, templates: list[dict[str, Any]]) -> bytes:
    """One line no parser can use, of a kind drawn at random; never contains a newline."""
    kind = draw(st.sampled_from(["torn", "binary", "deep", "deep-object", "not-object", "long"]))
    if kind == "torn":
        whole = _dumps(draw(records(templates))).replace(b"\n", b" ")
        return whole[: draw(st.integers(1, max(1, len(whole) - 1)))]
    if kind == "binary":
        return b"\xff" + draw(st.binary(max_size=200)).replace(b"\n", b"")
    if kind == "deep":
        depth = draw(st.integers(1_000, 20_000))
        return b"[" * depth + b"]" * depth
    if kind == "deep-object":
        depth = draw(st.integers(1_000, 5_000))
        return b'{"a":' * depth + b"1" + b"}" * depth
    if kind == "not-object":
        return _dumps(draw(non_object))
    size = draw(st.integers(LIMITS.max_line_bytes + 1, 4 * LIMITS.max_line_bytes))
    return b'{"type": "user", "pad": "' + b"x" * size + b'"}'


def body(templates: list[dict[str, Any]]) -> st.SearchStrategy[list[tuple[bool, Any]]]:
    """Lines of a transcript body: (True, record) or (False, bad line)."""
    good = records(templates).map(lambda r: (True, r))
    bad = bad_line(templates).map(lambda b: (False, b))
    return st.lists(good | bad, max_size=10)


# -- what every parsed session must look like -------------------------------------------


def _opt(value: Any, kind: type | tuple[type, ...]) -> bool:
    return value is None or isinstance(value, kind)


def _time(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isfinite(value))


def assert_well_formed(session: Session) -> None:
    """Types a digest and a store can rely on, whatever the transcript held."""
    assert isinstance(session.session_id, str) and session.session_id
    for name in ("cwd", "title", "git_branch", "model"):
        assert _opt(getattr(session, name), str), name
    assert _time(session.started) and _time(session.ended)
    assert session.warnings == sum(session.skipped.values())
    assert set(session.skipped) <= REASONS, session.skipped
    assert isinstance(session.source.version, str) and session.source.version
    for message in session.messages:
        assert message.role in ("user", "assistant", "system", "tool")
        assert isinstance(message.text, str) and isinstance(message.kind, str)
        assert _time(message.time)
        assert _opt(message.id, str) and _opt(message.tool_call_id, str)
        assert _opt(message.agent_id, str)
        assert all(isinstance(e, str) for e in message.errors)
        for call in message.tool_calls:
            assert isinstance(call.name, str) and isinstance(call.summary, str)
            assert _opt(call.call_id, str) and _opt(call.command, str) and _opt(call.error, str)
            for files in (call.files_read, call.files_written, call.files_edited):
                assert all(isinstance(f, str) for f in files)


def requests(session: Session) -> list[str]:
    return [m.text for m in session.messages if m.role == "user"]


def assert_one_line(exc: TranscriptError) -> None:
    text = str(exc)
    assert text and "\n" not in text and len(text) < 2000


@contextmanager
def home() -> Iterator[tuple[HarvestLocations, Path]]:
    """A temporary home and workspace (hypothesis runs many examples in one test call)."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        yield HarvestLocations.under_home(Path(tmp) / "home"), ws


@st.composite
def gemini_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """("valid", a session document) or (how it is broken, its bytes)."""
    messages = draw(st.lists(records(syn.GEMINI_TEMPLATES) | json_value, max_size=8))
    doc = _dumps(syn.gemini_document("gemini-1", messages, REQUEST))
    kind = draw(
        st.sampled_from(["valid", "valid", "torn", "binary", "deep", "long", "not-session"])
    )
    if kind == "torn":
        return kind, doc[: draw(st.integers(0, len(doc) - 1))]
    if kind == "binary":
        return kind, b"\xff" + draw(st.binary(max_size=300))
    if kind == "deep":
        depth = draw(st.integers(1_000, 20_000))
        return kind, b'{"messages": ' + b"[" * depth + b"]" * depth + b"}"
    if kind == "long":
        return kind, doc[:-1] + b', "pad": "' + b"x" * (LIMITS.max_line_bytes + 1) + b'"}'
    if kind == "not-session":
        return kind, _dumps(draw(non_object))
    return kind, doc


@st.composite
def opencode_file(draw: st.DrawFn, templates: list[dict[str, Any]]) -> tuple[bool, Any]:
    """(True, a record) or (False, bytes no parser can use)."""
    if draw(st.booleans()):
        return True, draw(records(templates))
    line = draw(bad_line(templates))
    if line.startswith(b"\xff"):  # the database column is TEXT: keep it undecodable as JSON
        line = b"\x00" + line[1:]
    return False, line


OpenCodeMessages = list[tuple[tuple[bool, Any], list[tuple[bool, Any]]]]
"""Messages of an OpenCode session: ((good?, message), [(good?, part), ...])."""


def opencode_messages() -> st.SearchStrategy[OpenCodeMessages]:
    message = opencode_file([syn.OPENCODE_MESSAGE])
    parts = st.lists(opencode_file(syn.OPENCODE_PARTS), max_size=4)
    return st.lists(st.tuples(message, parts), max_size=6)


def bad_count(messages: OpenCodeMessages) -> int:
    """Bad messages, and bad parts of good messages (those of a bad one are never used)."""
    bad = 0
    for (good, _), parts in messages:
        bad += sum(1 for ok, _ in parts if not ok) if good else 1
    return bad


def opencode_rows(messages: OpenCodeMessages) -> list[tuple[Any, list[Any]]]:
    return [(message, [part for _, part in parts]) for (_, message), parts in messages]
