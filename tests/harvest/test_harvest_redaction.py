"""Harvested text is redacted before it is cut, and a cut never splits a redaction marker
(`My key is [REDACTE…` in a session's title); a secret in a session's git branch reaches no
tag (issue 31)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from nano_brain import Brain
from nano_brain.filters import Filters
from nano_brain.harvest import (
    HarvestConfig,
    Harvester,
    HarvestLocations,
    Message,
    Session,
    SourceInfo,
    build_digest,
)

from ._layout import append_claude_turn, claude

OPENAI = "sk-proj-Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
GITHUB = "ghp_4Fq7Zr2Lw9Xc1Vb8Nm3Kp6Tj0Hs5Gd7Ya2Qe"
REQUEST = "create hello.py, md and js"
MARKER = re.compile(r"\[REDACTED:[a-z0-9_]+\]")


def _half_marker(text: str) -> bool:
    """Whether a cut left a piece of a marker (`[REDACTE…`) in `text`."""
    return "[RED" in MARKER.sub("", text)


def _texts(brain: Brain) -> str:
    docs = [brain.get(d.id) for d in brain.list(Filters(kinds=("session", "note")))]
    return json.dumps([d.model_dump() for d in docs])


def test_a_session_title_is_cut_before_a_marker_not_through_it(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = claude(home, workspace)
    # the title is the first request clipped to 80 characters: the cut falls in the marker
    request = "x" * 60 + f" my key is {OPENAI} please rotate it"
    main.write_text(main.read_text().replace(f'"{REQUEST}"', json.dumps(request)))
    item = Harvester(hbrain, home, config=HarvestConfig()).run_once().items[0]
    assert item.action == "added"
    doc = hbrain.get(f"#{item.doc_id}")
    assert doc.title == "x" * 60 + " my key is…"
    assert OPENAI not in _texts(hbrain) and not _half_marker(_texts(hbrain))


def test_a_decision_title_is_cut_before_a_marker_not_through_it(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = claude(home, workspace)
    # "Decision: " + 185 characters, then the token: the 200-character title ends in it
    append_claude_turn(main, workspace, "how?", "Decision: " + "y" * 185 + f" {GITHUB} ok")
    item = Harvester(hbrain, home, config=HarvestConfig()).run_once().items[0]
    assert item.decisions == 1
    (note,) = hbrain.list(Filters(tags=("decision",)))
    assert note.title.startswith("Decision: yyy") and len(note.title) <= 200
    assert "[REDACTED:github_token]" in (hbrain.get(note.id).content or "")
    assert GITHUB not in _texts(hbrain) and not _half_marker(_texts(hbrain))


def test_a_secret_in_the_git_branch_reaches_no_tag(
    hbrain: Brain, home: HarvestLocations, workspace: Path
) -> None:
    main = claude(home, workspace)
    main.write_text(main.read_text().replace('"analytics-v2"', json.dumps(f"fix/{GITHUB}")))
    config = HarvestConfig(ticket_patterns=[r"fix/\S+"])
    item = Harvester(hbrain, home, config=config).run_once().items[0]
    assert item.action == "added"
    doc = hbrain.get(f"#{item.doc_id}")
    assert GITHUB not in json.dumps(doc.tags) and GITHUB not in _texts(hbrain)
    assert doc.metadata["harvest"]["git_branch"] == "fix/[REDACTED:github_token]"


def test_a_long_session_title_is_one_line_redacted_then_cut(hbrain: Brain) -> None:
    title = "y" * 170 + f" {GITHUB}\nand a second line"
    session = Session(
        agent="pi",
        session_id="s-1",
        messages=[Message(role="user", text="hi"), Message(role="assistant", text="done")],
        title=title,
        source=SourceInfo(paths=["/tmp/s-1.jsonl"], version="v1"),
    )
    digest = build_digest(session)
    assert digest.title == "y" * 170 + " [REDACTED:github_token] and…"
    assert len(digest.title) <= 200
    written = hbrain.write_derived(
        digest.markdown, title=digest.title, kind="session", source_path="pi:/tmp/s-1.jsonl:s-1"
    )
    assert written.document.title == digest.title
