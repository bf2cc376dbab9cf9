"""Every transcript parser against generated input: records with fields of any type, torn
lines, binary garbage, nesting thousands deep, over-long lines, non-objects, and files that
change between discovery and parsing.

The only outcomes allowed are a well-formed session that still holds the one good user
request every generated transcript carries (each bad line skipped and counted), or
`TranscriptError` with a one-line message. Seeds are fixed (`derandomize`), so CI sees the
same examples every run.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nano_brain.harvest import TranscriptError, discover_sessions, load_session

from . import _synthetic as syn
from ._strategies import (
    FUZZ,
    LIMITS,
    REQUEST,
    assert_one_line,
    assert_well_formed,
    bad_count,
    body,
    gemini_file,
    home,
    opencode_file,
    opencode_messages,
    opencode_rows,
    requests,
)


def _one_source(loc: Any, ws: Any, agent: str) -> Any:
    sources = discover_sessions(ws, loc, [agent], limits=LIMITS)
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


@pytest.mark.parametrize("storage", ["legacy", "database"])
@FUZZ
@given(messages=opencode_messages())
def test_opencode_session(storage: str, messages: Any) -> None:
    with home() as (loc, ws):
        write = syn.write_opencode_legacy if storage == "legacy" else syn.write_opencode_db
        write(loc, ws, "ses-1", opencode_rows(messages), REQUEST)
        session = load_session(_one_source(loc, ws, "opencode"), limits=LIMITS)
    assert_well_formed(session)
    assert REQUEST in requests(session)
    assert session.warnings >= bad_count(messages)


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
