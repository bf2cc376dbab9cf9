"""`nano-brain-hook` driven as the agents drive it: one process per event, the documented JSON
on stdin, the documented JSON (or nothing) on stdout, exit 0 whatever happens."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain, paths
from nano_brain.anchoring import anchor
from nano_brain.codeindex import CodeIndex
from tests.conftest import TinyEmbedder
from tests.hooks._events import BILLING, CHARGE_LINE, DECISION, REFUND_LINE, event, run_hook


@pytest.fixture
def billing(workspace: Path) -> Iterator[dict[str, str]]:
    (workspace / "billing.py").write_text(BILLING)
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        CodeIndex(brain).index()
        ids = {
            "decision": brain.write(
                DECISION, title="Charge in integer cents", tags=["decision"]
            ).document.id,
            "deploy": brain.write(
                "The deploy runs on Fridays after the freeze.", title="Deploy day"
            ).document.id,
        }
        anchor(brain, ids["decision"], "billing.py::charge")
    yield ids


def _context(done, event_name: str) -> str:
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    specific = output["hookSpecificOutput"]
    assert specific["hookEventName"] == event_name
    assert (
        isinstance(specific["additionalContext"], str)
        and len(specific["additionalContext"]) <= 10_000
    )
    return specific["additionalContext"]


def _nothing(done) -> None:
    assert done.returncode == 0 and done.stdout == b"", (done.stdout, done.stderr)


@pytest.mark.parametrize("fixture", ["pre-edit-edit", "pre-edit-multiedit", "pre-edit-write"])
def test_claude_code_edits_of_charge_get_its_decision(billing, workspace, fixture) -> None:
    done = run_hook(
        "claude-code",
        "pre-edit",
        event("claude-code", fixture, WORKSPACE=str(workspace), OLD=CHARGE_LINE),
    )
    text = _context(done, "PreToolUse")
    assert f"#{billing['decision']}" in text and "decision by a person" in text


def test_an_edit_of_an_unrelated_function_adds_nothing(billing, workspace) -> None:
    _nothing(
        run_hook(
            "claude-code",
            "pre-edit",
            event("claude-code", "pre-edit-edit", WORKSPACE=str(workspace), OLD=REFUND_LINE),
        )
    )


def test_codex_apply_patch_of_charge_gets_its_decision(billing, workspace) -> None:
    payload = event("codex", "pre-edit", WORKSPACE=str(workspace), PATCH_OLD="-" + CHARGE_LINE)
    assert f"#{billing['decision']}" in _context(
        run_hook("codex", "pre-edit", payload), "PreToolUse"
    )


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_session_start_and_prompt(billing, workspace, agent) -> None:
    start = run_hook(
        agent, "session-start", event(agent, "session-start", WORKSPACE=str(workspace))
    )
    assert f"#{billing['decision']}" in _context(start, "SessionStart")
    prompt = event(
        agent, "prompt", WORKSPACE=str(workspace), PROMPT="which day does the deploy run?"
    )
    assert f"#{billing['deploy']}" in _context(
        run_hook(agent, "prompt", prompt), "UserPromptSubmit"
    )
    unrelated = event(
        agent, "prompt", WORKSPACE=str(workspace), PROMPT="quantum chromodynamics lattice gauge"
    )
    _nothing(run_hook(agent, "prompt", unrelated))


def test_stop_and_session_end_print_nothing_and_harvest_in_the_background(
    billing, workspace
) -> None:
    for name in ("stop", "session-end"):
        _nothing(
            run_hook("claude-code", name, event("claude-code", name, WORKSPACE=str(workspace)))
        )
    lock = paths.state_dir() / "workspaces" / paths.workspace_id(workspace) / "hook-harvest.lock"
    deadline = time.monotonic() + 30
    while not lock.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lock.exists()  # the detached harvest ran


@pytest.mark.parametrize(
    "raw",
    [b"", b"{not json", b"[]", b'{"cwd": 12}', b"{" * 50_000, b" " * (2 * 1024 * 1024)],
    ids=["empty", "not-json", "array", "wrong-types", "deep", "oversized"],
)
def test_malformed_and_oversized_input_exit_0_with_nothing_and_one_log_line(
    billing, workspace, raw
) -> None:
    done = run_hook("claude-code", "pre-edit", raw, cwd=workspace)
    _nothing(done)
    assert len(done.stderr.decode().strip().splitlines()) <= 1


def test_no_store_and_bad_arguments_add_nothing(tmp_path) -> None:
    empty = tmp_path / "no-store"
    empty.mkdir()
    _nothing(
        run_hook(
            "claude-code",
            "session-start",
            event("claude-code", "session-start", WORKSPACE=str(empty)),
        )
    )
    done = run_hook("claude-code", "no-such-event", b"{}")
    _nothing(done)
    assert b"not a hook event" in done.stderr


def test_a_store_of_another_workspace_is_refused(billing, workspace, tmp_path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    with Brain(other, provider=TinyEmbedder()) as brain:
        brain.write("Another workspace's secret decision.", title="Other", tags=["decision"])
    config = paths.config_dir() / "config.yml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"storage:\n  db_path: {paths.default_db_path(other)}\n")
    done = run_hook(
        "claude-code",
        "session-start",
        event("claude-code", "session-start", WORKSPACE=str(workspace)),
    )
    _nothing(done)
    assert b"another workspace" in done.stderr


def test_a_config_change_reaches_the_next_hook(billing, workspace) -> None:
    payload = event("claude-code", "pre-edit-edit", WORKSPACE=str(workspace), OLD=CHARGE_LINE)
    assert (
        "permissionDecision"
        not in json.loads(run_hook("claude-code", "pre-edit", payload).stdout)["hookSpecificOutput"]
    )
    with Brain(workspace, provider=TinyEmbedder()) as brain:
        brain.pin(billing["decision"])
    config = paths.config_dir() / "config.yml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("hooks:\n  pinnedDecisions: ask\n")
    asked = json.loads(run_hook("claude-code", "pre-edit", payload).stdout)["hookSpecificOutput"]
    assert (
        asked["permissionDecision"] == "ask"
        and billing["decision"] in asked["permissionDecisionReason"]
    )
    config.write_text("hooks:\n  enabled: false\n")
    _nothing(run_hook("claude-code", "pre-edit", payload))


def test_gemini_cli_gets_context_as_its_docs_say_and_an_empty_object_otherwise(
    billing, workspace
) -> None:
    start = run_hook(
        "gemini", "session-start", event("gemini", "session-start", WORKSPACE=str(workspace))
    )
    assert f"#{billing['decision']}" in _context(start, "SessionStart")
    prompt = event(
        "gemini", "prompt", WORKSPACE=str(workspace), PROMPT="which day does the deploy run?"
    )
    assert f"#{billing['deploy']}" in _context(run_hook("gemini", "prompt", prompt), "BeforeAgent")
    # Gemini CLI shows any other stdout to the user: "nothing" is an empty JSON object
    unrelated = event("gemini", "prompt", WORKSPACE=str(workspace), PROMPT="quantum chromodynamics")
    for name, payload in (
        ("prompt", unrelated),
        ("stop", event("gemini", "stop", WORKSPACE=str(workspace))),
        ("session-end", event("gemini", "session-end", WORKSPACE=str(workspace))),
        ("prompt", b"{not json"),
    ):
        done = run_hook("gemini", name, payload)
        assert done.returncode == 0 and json.loads(done.stdout) == {}, (name, done.stdout)


def test_a_store_of_the_previous_schema_is_migrated_once_then_read(billing, workspace) -> None:
    from nano_brain.store.sqlite._driver import sqlite_module
    from nano_brain.store.sqlite.migrations import SCHEMA_VERSION

    db = sqlite_module().connect(str(paths.default_db_path(workspace)))
    for name in ("documents_brief_updated", "documents_brief_created", "documents_brief_accessed"):
        db.execute(f"DROP INDEX {name}")  # what migration 14 adds
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    db.commit()
    db.close()
    payload = event("claude-code", "pre-edit-edit", WORKSPACE=str(workspace), OLD=CHARGE_LINE)
    assert f"#{billing['decision']}" in _context(
        run_hook("claude-code", "pre-edit", payload), "PreToolUse"
    )
    db = sqlite_module().connect(str(paths.default_db_path(workspace)))
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()
