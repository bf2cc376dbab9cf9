"""Every transcript parser against generated input: records with fields of any type, torn
lines, binary garbage, nesting thousands deep, over-long lines, non-objects, and files that
change between discovery and parsing.

The only outcomes allowed are a well-formed session that still holds the one good user
request every generated transcript carries (each bad line skipped and counted), or
`TranscriptError` with a one-line message. Seeds are fixed (`derandomize`), so CI sees the
same examples every run.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nano_brain.harvest import (
    HarvestLocations,
    ReadLimits,
    Session,
    TranscriptError,
    discover_sessions,
    load_session,
)

from . import _synthetic as syn

LIMITS = ReadLimits(max_line_bytes=4096, max_file_bytes=1 << 20)
REASONS = {"malformed", "too-deep", "too-long", "unusable", "truncated", "unreadable"}
REQUEST = "please keep this request"
PARSER_EXAMPLES = 150
FUZZ = settings(
    derandomize=True,
    max_examples=PARSER_EXAMPLES,
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


def _one_source(loc: HarvestLocations, ws: Path, agent: str) -> Any:
    sources = discover_sessions(ws, loc, [agent], limits=LIMITS)  # type: ignore[list-item]
    assert len(sources) == 1, sources
    return sources[0]


# -- JSONL agents: Claude Code, Codex, Pi -----------------------------------------------


@pytest.mark.parametrize("agent", sorted(syn.JSONL_AGENTS))
@FUZZ
@given(data=st.data())
def test_jsonl_transcript_keeps_good_lines_and_counts_bad_ones(agent: str, data: Any) -> None:
    spec = syn.JSONL_AGENTS[agent]
    lines = data.draw(body(spec.templates))
    with home() as (loc, ws):
        spec.write(loc, ws, "sid-1", [line for _, line in lines], REQUEST)
        session = load_session(_one_source(loc, ws, agent), limits=LIMITS)
    assert_well_formed(session)
    assert REQUEST in requests(session)
    assert session.warnings >= sum(1 for good, _ in lines if not good)


AFTER_DISCOVERY = ["none", "truncate", "delete", "fifo", "dev-zero", "grow-garbage"]


@pytest.mark.parametrize("agent", sorted(syn.JSONL_AGENTS))
@settings(FUZZ, max_examples=60)
@given(data=st.data())
def test_jsonl_transcript_changed_between_discovery_and_parse(agent: str, data: Any) -> None:
    spec = syn.JSONL_AGENTS[agent]
    lines = data.draw(body(spec.templates))
    change = data.draw(st.sampled_from(AFTER_DISCOVERY))
    with home() as (loc, ws):
        path = spec.write(loc, ws, "sid-1", [line for _, line in lines], REQUEST)
        source = _one_source(loc, ws, agent)
        if change == "truncate":
            size = path.stat().st_size
            os.truncate(path, data.draw(st.integers(0, size)))
        elif change in ("delete", "fifo", "dev-zero"):
            path.unlink()
            if change == "fifo":
                os.mkfifo(path)
            elif change == "dev-zero":
                path.symlink_to("/dev/zero")
        elif change == "grow-garbage":
            with path.open("ab") as handle:
                handle.write(data.draw(st.binary(max_size=5000)))
        try:
            session = load_session(source, limits=LIMITS)
        except TranscriptError as exc:
            assert change in ("delete", "fifo", "dev-zero"), exc
            assert_one_line(exc)
            return
    assert change not in ("delete", "fifo", "dev-zero")
    assert_well_formed(session)
    if change != "truncate":
        assert REQUEST in requests(session)


# -- Gemini: one JSON document per session ---------------------------------------------


@st.composite
def gemini_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """("valid", a session document) or (how it is broken, its bytes)."""
    messages = draw(st.lists(records(syn.GEMINI_TEMPLATES) | json_value, max_size=8))
    doc = _dumps(syn.gemini_document("sid-1", messages, REQUEST))
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


@FUZZ
@given(case=gemini_file())
def test_gemini_session_file(case: tuple[str, bytes]) -> None:
    kind, raw = case
    with home() as (loc, ws):
        syn.write_gemini(loc, ws, "sid-1", raw)
        try:
            session = load_session(_one_source(loc, ws, "gemini"), limits=LIMITS)
        except TranscriptError as exc:
            assert kind != "valid", exc
            assert_one_line(exc)
            return
    assert kind in ("valid", "deep")  # nesting just under the interpreter's limit decodes
    assert_well_formed(session)
    assert (REQUEST in requests(session)) == (kind == "valid")


# -- OpenCode: legacy JSON files and the SQLite database --------------------------------


@st.composite
def opencode_file(draw: st.DrawFn, templates: list[dict[str, Any]]) -> tuple[bool, Any]:
    """(True, a record) or (False, bytes no parser can use)."""
    if draw(st.booleans()):
        return True, draw(records(templates))
    line = draw(bad_line(templates))
    if line.startswith(b"\xff"):  # the database column is TEXT: keep it undecodable as JSON
        line = b"\x00" + line[1:]
    return False, line


def opencode_messages() -> st.SearchStrategy[list[tuple[tuple[bool, Any], list[Any]]]]:
    message = opencode_file([syn.OPENCODE_MESSAGE])
    parts = st.lists(opencode_file(syn.OPENCODE_PARTS), max_size=4)
    return st.lists(st.tuples(message, parts), max_size=6)


def _bad_count(messages: list[tuple[tuple[bool, Any], list[Any]]]) -> int:
    """Bad messages, and bad parts of good messages (those of a bad one are never used)."""
    bad = 0
    for (good, _), parts in messages:
        bad += sum(1 for ok, _ in parts if not ok) if good else 1
    return bad


def _files(messages: list[tuple[tuple[bool, Any], list[Any]]]) -> list[tuple[Any, list[Any]]]:
    return [(message, [part for _, part in parts]) for (_, message), parts in messages]


@pytest.mark.parametrize("storage", ["legacy", "database"])
@FUZZ
@given(messages=opencode_messages())
def test_opencode_session(storage: str, messages: Any) -> None:
    with home() as (loc, ws):
        write = syn.write_opencode_legacy if storage == "legacy" else syn.write_opencode_db
        write(loc, ws, "ses-1", _files(messages), REQUEST)
        session = load_session(_one_source(loc, ws, "opencode"), limits=LIMITS)
    assert_well_formed(session)
    assert REQUEST in requests(session)
    assert session.warnings >= _bad_count(messages)


@settings(FUZZ, max_examples=60)
@given(info=opencode_file([{"id": "ses-1", "directory": "WS", "title": "t", "time": {}}]))
def test_opencode_legacy_session_file_of_any_shape(info: tuple[bool, Any]) -> None:
    good, raw = info
    with home() as (loc, ws):
        if isinstance(raw, dict):
            raw = {**raw, "directory": str(ws)}  # only sessions of this workspace are found
        syn.write_opencode_legacy(loc, ws, "ses-1", [], REQUEST, session=raw)
        sources = discover_sessions(ws, loc, ["opencode"], limits=LIMITS)
        for source in sources:
            session = load_session(source, limits=LIMITS)
            assert_well_formed(session)
    assert good or not sources
