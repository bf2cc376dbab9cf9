"""Harvesting generated hostile transcripts of every agent into a real store at once.

Whatever the transcripts hold, a harvest tick finishes; each session is added (its good
request searchable) or fails with a one-line error; a clean session beside them is added
as usual; and the store passes SQLite's and FTS5's integrity checks afterwards.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nano_brain import Brain, SearchRequest
from nano_brain.harvest import HarvestConfig, Harvester

from ..conftest import TinyEmbedder
from . import _layout
from . import _synthetic as syn
from ._strategies import FUZZ, LIMITS, REQUEST, body, gemini_file, home, opencode_messages
from ._strategies import opencode_rows as rows

HARVEST_EXAMPLES = 40
WITH_REQUEST = ["claude-code-1", "codex-1", "pi-1", "ses-db"]
CONFIG = HarvestConfig(max_line_bytes=LIMITS.max_line_bytes, max_file_bytes=LIMITS.max_file_bytes)


@settings(FUZZ, max_examples=HARVEST_EXAMPLES)
@given(data=st.data())
def test_hostile_transcripts_of_every_agent_leave_a_healthy_store(data: Any) -> None:
    with home() as (loc, ws):
        for agent in ("claude-code", "codex", "pi"):
            spec = syn.JSONL_AGENTS[agent]
            lines = data.draw(body(spec.templates), label=agent)
            spec.write(loc, ws, f"{agent}-1", [line for _, line in lines], REQUEST)
        kind, raw = data.draw(gemini_file(), label="gemini")
        syn.write_gemini(loc, ws, "gemini-1", raw)
        messages = data.draw(opencode_messages(), label="opencode")
        syn.write_opencode_db(loc, ws, "ses-db", rows(messages), REQUEST)
        _layout.opencode_legacy(loc, ws)  # the clean session
        with Brain(
            ws, db_path=ws.parent / "brain.db", provider=TinyEmbedder(), actor="harvest"
        ) as brain:
            report = Harvester(brain, loc, config=CONFIG).run_once()
            failed = [item for item in report.items if item.action == "failed"]
            assert all(item.error and "\n" not in item.error for item in failed)
            added = {i.session_id: i.doc_id for i in report.items if i.action == "added"}
            assert set(WITH_REQUEST) | {"test-session-1"} <= set(added)
            (gemini,) = [item for item in report.items if item.agent == "gemini"]
            if kind == "valid":
                assert gemini.action == "added"
            elif kind == "deep":  # nesting just under the interpreter's limit decodes
                assert gemini.action in ("added", "empty", "failed")
            else:
                assert gemini.action == "failed"
            assert len(report.items) == 6
            assert brain.store.integrity_errors() == []
            hits = brain.search(SearchRequest(query=REQUEST, mode="lexical", limit=20))
            found = {hit.id for hit in hits.results}
            expected = [*WITH_REQUEST, "gemini-1"] if kind == "valid" else WITH_REQUEST
            assert {added[sid] for sid in expected} <= found


def test_integrity_errors_name_a_broken_full_text_index(tmp_path: Path) -> None:
    """The check the fuzz tests rely on does see a damaged index."""
    ws = tmp_path / "ws"
    ws.mkdir()
    with Brain(ws, db_path=tmp_path / "brain.db", provider=TinyEmbedder()) as brain:
        brain.write("a note about parsers")
        assert brain.store.integrity_errors() == []
        # an index row without a chunk: what a writer that bypassed the triggers leaves
        other = sqlite3.connect(tmp_path / "brain.db")
        other.execute("INSERT INTO chunks_fts (rowid, title, body) VALUES (999, 'x', 'y')")
        other.commit()
        other.close()
        errors = brain.store.integrity_errors()
    assert len(errors) == 1 and errors[0].startswith("chunks_fts:")
