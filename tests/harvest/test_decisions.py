"""Decisions and lessons harvested from sessions into notes of their own.

The expected decisions of each real transcript were read off the fixture text: two of them
state decisions under a decisions heading (a plan's "Technical Decisions", a compaction
summary's "Key Decisions Made"); the others state none (their "Decision tree", "Decision
Matrix" and tool output that mentions decisions are not decisions).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.filters import Filters
from nano_brain.harvest import (
    Harvester,
    HarvestLocations,
    Message,
    Session,
    claude_code,
    codex,
    gemini,
    opencode,
    pi,
)
from nano_brain.harvest.decisions import extract, extract_text, symbol_names
from nano_brain.harvest.pi import encode_cwd as pi_folder

from .._credentials import credential_shapes, fragments
from ..conftest import TinyEmbedder
from ._layout import append_claude_turn, claude
from ._util import TRANSCRIPTS

T = TRANSCRIPTS
PI_BEFORE = T / "pi" / "before-compaction.jsonl"
PI_CWD = "/Users/badlogic/workspaces/pi-mono"

CODEX_SPEC = [
    "Object-based watermarking (track record IDs)",
    "Multi-source model detection (session_meta + turn_context)",
    "Timestamp-based user prompt correlation",
    "JSONL parsing using existing utilities",
]
PI_REFACTOR = [
    "Keep old code for reference - Create new files (`main-new.ts`, `cli-new.ts`) instead of "
    "modifying existing ones, allowing parallel comparison",
    "AgentSession is the core abstraction - All agent/session logic lives here, modes are thin "
    "I/O layers on top",
    "Listeners persist across operations - `_disconnectFromAgent()` and `_reconnectToAgent()` "
    "are private; listeners survive reset/compact/switchSession. Only `dispose()` clears them.",
    "No `tokensAfter` in CompactionEntry - The existing type only has `tokensBefore`, so "
    "`CompactionResult` reflects that",
]
CLAUDE_PRIVATE = T / "claude-code" / "-tmp-private"
INCREMENTAL = T / "claude-code" / "incremental-subagents"
OPENCODE = T / "opencode" / "codemie-synthetic" / "opencode" / "storage" / "session"

CC = T / "claude-code"
FIXTURES: dict[str, tuple[Callable[[], Session], list[str]]] = {
    "claude-code/session-196820da": (lambda: claude_code.parse(CC / "session-196820da.jsonl"), []),
    "claude-code/session-3fe1b6bc": (
        lambda: claude_code.parse(CC / "session-3fe1b6bc.jsonl"),
        CODEX_SPEC,
    ),
    "claude-code/session-9eda1058": (lambda: claude_code.parse(CC / "session-9eda1058.jsonl"), []),
    "claude-code/-tmp-private": (
        lambda: claude_code.parse(sorted(CLAUDE_PRIVATE.glob("*.jsonl"))),
        [],
    ),
    "claude-code/incremental-subagents": (
        lambda: claude_code.parse(
            [INCREMENTAL / "turn-2.jsonl", INCREMENTAL / "turn-2/subagents/agent-a485154.jsonl"]
        ),
        [],
    ),
    "codex/codemie-turn-1": (lambda: codex.parse(T / "codex" / "codemie-turn-1.jsonl"), []),
    "codex/codemie-turn-2": (lambda: codex.parse(T / "codex" / "codemie-turn-2.jsonl"), []),
    "codex/rollout-11-26": (lambda: codex.parse(next((T / "codex").glob("rollout-*T11-26-*"))), []),
    "codex/rollout-13-28": (lambda: codex.parse(next((T / "codex").glob("rollout-*T13-28-*"))), []),
    "pi/before-compaction": (lambda: pi.parse(PI_BEFORE), PI_REFACTOR),
    "pi/large-session": (lambda: pi.parse(T / "pi" / "large-session.jsonl"), []),
    "gemini/file-ops": (lambda: gemini.parse(next((T / "gemini").glob("*.json"))), []),
    "opencode/codemie-synthetic": (lambda: opencode.parse(next(OPENCODE.rglob("*.json"))), []),
}


def test_every_transcript_fixture_is_covered() -> None:
    files = {p for p in T.rglob("*") if p.suffix in (".jsonl", ".json")}
    assert len(files) == 23  # a new fixture needs its expected decisions here
    assert len(FIXTURES) == 13


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_decisions_of_each_transcript(name: str) -> None:
    load, expected = FIXTURES[name]
    session = load()
    found = extract(session)
    assert [item.text for item in found] == expected
    assert all(item.kind == "decision" for item in found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Decision: use SQLite for the job queue", [("decision", "use SQLite for the job queue")]),
        ("- **DECISION:** keep the API v1 frozen", [("decision", "keep the API v1 frozen")]),
        ("Lesson learned: measure before tuning", [("lesson", "measure before tuning")]),
        ("LESSON: pin the grammar wheels", [("lesson", "pin the grammar wheels")]),
        ("## Decision: Postgres over MySQL", [("decision", "Postgres over MySQL")]),
        ("# ADR-0007: Use WAL mode", [("decision", "Use WAL mode")]),
        (
            "I read the code. We decided to drop the cache. Tests pass.",
            [("decision", "We decided to drop the cache.")],
        ),
        ("We chose WAL mode too.", [("decision", "We chose WAL mode too.")]),
        ("Should we go with Redis? Have we decided?", []),
        ("### Decision tree:\n- if A then B\n- else C", []),
        ("**Decision Matrix**\n- speed\n- cost", []),
        (
            "## Lessons Learned\n\n1. Flaky tests hide races\n   under load\n2. Retry is no fix\n"
            "\nAnd then more prose.",
            [("lesson", "Flaky tests hide races under load"), ("lesson", "Retry is no fix")],
        ),
        (
            "## Context\nWe need a queue.\n\n## Decision\nWe use SQLite with WAL.\nIt is enough."
            "\n\n## Consequences\nOne writer.",
            [("decision", "We use SQLite with WAL. It is enough.")],
        ),
        ("```\nDecision: not in code\n```\n| Decision: | in a table |", []),
        (
            "**Key decisions:**\n- one store per workspace\n  - sub-point\n- no daemon",
            [("decision", "one store per workspace sub-point"), ("decision", "no daemon")],
        ),
    ],
)
def test_the_rules(text: str, expected: list[tuple[str, str]]) -> None:
    assert extract_text(text) == expected


def test_only_the_person_and_the_agent_are_read() -> None:
    line = "Decision: rewrite everything in Rust"
    session = Session(
        agent="claude-code",
        session_id="s1",
        messages=[
            Message(role="user", text=line, kind="meta"),  # injected instructions
            Message(role="user", text=line, kind="command"),
            Message(role="tool", text=line),
            Message(role="assistant", text=line, sidechain=True),
            Message(role="user", text="Decision: keep Python"),
            Message(role="assistant", text="decision: keep python!"),  # the same, said again
            Message(role="system", text="## Decisions\n- ship on Fridays", kind="summary"),
        ],
    )
    assert [(i.text, i.role) for i in extract(session)] == [
        ("keep Python", "user"),
        ("ship on Fridays", "system"),
    ]


def test_symbol_names_are_those_written_as_code() -> None:
    text = "Listeners persist: `_disconnect()` is private; call dispose() and `a/b.py::C.m`."
    assert symbol_names(text) == ["_disconnect", "a/b.py::C.m", "dispose"]


def _lay_pi(home: HarvestLocations, ws: Path) -> Path:
    target = home.pi_sessions / pi_folder(ws) / PI_BEFORE.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(PI_BEFORE.read_text(encoding="utf-8").replace(PI_CWD, str(ws)))
    return target


def _decision_notes(brain: Brain) -> list:
    return brain.list(Filters(tags=("harvested",), statuses=("active", "unreviewed")), limit=500)


def test_harvest_writes_decisions_as_linked_unreviewed_notes(
    workspace: Path, home: HarvestLocations
) -> None:
    _lay_pi(home, workspace)
    (workspace / "src").mkdir()
    (workspace / "src" / "session.ts").write_text(
        "export class AgentSession {\n  dispose() {}\n  _reconnectToAgent() {}\n}\n"
    )
    config = load_config(workspace, overrides={"review": {"enabled": True}})
    with Brain(workspace, config=config, provider=TinyEmbedder(), actor="harvest") as brain:
        CodeIndex(brain).index()
        report = Harvester(brain, home).run_once()
        (item,) = report.items
        assert item.action == "added" and item.decisions == 4
        notes = _decision_notes(brain)
        assert sorted(n.title.removeprefix("Decision: ") for n in notes) == sorted(PI_REFACTOR)
        for note in notes:
            assert note.status == "unreviewed" and "decision" in note.tags
            doc = brain.get(note.id)
            assert doc.metadata["decision"]["session"] == item.doc_id
            assert f"(#{item.doc_id})" in (doc.content or "")
        listeners = next(n for n in notes if "Listeners persist" in n.title)
        anchored = {a.qualified_name for a in CodeIndex(brain).anchors(note=listeners.id)}
        assert anchored == {
            "src/session.ts::AgentSession._reconnectToAgent",
            "src/session.ts::AgentSession.dispose",
        }


def test_a_grown_session_adds_only_new_decisions_and_forgotten_ones_stay_forgotten(
    workspace: Path, home: HarvestLocations, hbrain: Brain
) -> None:
    main = claude(home, workspace)
    harvester = Harvester(hbrain, home)
    assert harvester.run_once().items[0].decisions == 0
    append_claude_turn(main, workspace, "which queue?", "Decision: use SQLite for the queue.")
    assert harvester.run_once().items[0].decisions == 1
    append_claude_turn(
        main, workspace, "and retries?", "Decision: use SQLite for the queue.\nLesson: retry less."
    )
    item = harvester.run_once().items[0]
    assert item.action == "updated" and item.decisions == 1
    notes = _decision_notes(hbrain)
    assert sorted(n.title for n in notes) == ["Decision: use SQLite for the queue.",
                                              "Lesson: retry less."]  # fmt: skip
    lesson = next(n for n in notes if n.title.startswith("Lesson"))
    assert "lesson" in lesson.tags
    hbrain.forget(lesson.id)
    append_claude_turn(main, workspace, "ok", "Noted.")
    assert harvester.run_once().items[0].decisions == 0
    assert [n.title for n in _decision_notes(hbrain)] == ["Decision: use SQLite for the queue."]


def test_no_secret_reaches_a_decision_note(workspace: Path, home: HarvestLocations) -> None:
    main = claude(home, workspace)
    shapes = credential_shapes()
    answer = "\n".join(f"Decision: deploy with {' '.join(s.text.split())}" for s in shapes)
    append_claude_turn(main, workspace, "how do we deploy?", answer)
    with Brain(workspace, provider=TinyEmbedder(), actor="harvest") as brain:
        assert Harvester(brain, home).run_once().items[0].decisions > 0
        notes = _decision_notes(brain)
        stored = "\n".join(
            (brain.get(n.id).content or "") + n.title + str(brain.get(n.id).metadata) for n in notes
        )
        store_file = brain.store.path
    leaked = [
        s.id
        for s in shapes
        for secret in s.secrets
        for piece in fragments(secret, 12)
        if len(piece) == 12 and piece in stored
    ]
    assert notes and not leaked
    raw = store_file.read_bytes()  # the closed store's file, not only what reads return
    assert not [s.id for s in shapes for secret in s.secrets if secret.encode() in raw]
