"""A workspace's code does not push its notes out (issue 32).

A real code tree (222 files of five libraries, copied from the installed wheels) and a team's
32 notes and decisions about it; each question is worded like the code and names the note it
should find (tests/_code_tree_notes.py). Through every front end a person or agent uses
(`nano-brain search`, `nano-brain query`, the memory page's search, MCP `memory_query`), the
note is in the top 3; a question about the notes shows no unrelated code; a question that asks
for code gets code first.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from nano_brain import Brain
from nano_brain.config import load_config

from ._code_tree_notes import NOTES, PACKAGES
from .mcp.conftest import Env, make_env, nano_brain_command, stdio_client
from .ui.conftest import UiServer, start_ui

TOP = 3


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    env = make_env(tmp_path_factory.mktemp("notes-and-code"))
    for name in PACKAGES:
        source = Path(importlib.import_module(name).__file__ or "").parent
        shutil.copytree(source, env.workspace / name, ignore=shutil.ignore_patterns("__pycache__"))
    assert sum(1 for _ in env.workspace.rglob("*.py")) >= 200
    with pytest.MonkeyPatch.context() as patch:
        for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            patch.setenv(var, env.vars[var])
        with Brain(env.workspace, config=load_config(env.workspace), actor="cli") as brain:
            for note in NOTES:
                brain.write(note.text, title=note.title, tags=["decision"] if note.decision else [])
    indexed = _cli(env, "index")
    assert "symbols" in indexed, indexed
    yield env


def _cli(env: Env, *args: str) -> str:
    proc = subprocess.run(
        [*nano_brain_command(), *args, "--workspace", str(env.workspace)],
        capture_output=True, text=True, env=env.vars, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _titles(results: list[dict[str, Any]]) -> list[str]:
    return [r["title"] for r in results]


@pytest.mark.parametrize("command", ["search", "query"])
def test_the_cli_finds_each_note_in_the_top_3(env: Env, command: str) -> None:
    missed = []
    for note in NOTES:
        results = json.loads(_cli(env, command, note.question, "--json", "-n", "10"))["results"]
        if note.title not in _titles(results)[:TOP]:
            missed.append((note.question, _titles(results)[:TOP]))
    assert missed == [], missed


def test_memory_query_finds_each_note_in_the_top_3(env: Env) -> None:
    async def run() -> list[tuple[str, list[str]]]:
        missed = []
        async with stdio_client(env) as client:
            for note in NOTES:
                result = await client.call_tool("memory_query", {"query": note.question})
                assert not result.is_error, result.content
                titles = _titles((result.structured_content or {})["results"])
                if note.title not in titles[:TOP]:
                    missed.append((note.question, titles[:TOP]))
        return missed

    assert anyio.run(run) == []


@pytest.fixture(scope="module")
def page(env: Env) -> Iterator[UiServer]:
    server = start_ui(env)
    try:
        yield server
    finally:
        server.stop()


def test_the_page_finds_each_note_in_the_top_3(page: UiServer) -> None:
    missed = []
    with page.http() as client:
        for note in NOTES:
            answer = client.post("/api/search", json={"query": note.question, "limit": 20})
            assert answer.status_code == 200, answer.text
            titles = _titles(answer.json()["results"])
            if note.title not in titles[:TOP]:
                missed.append((note.question, titles[:TOP]))
    assert missed == [], missed


def test_a_question_about_notes_shows_no_unrelated_code(env: Env, page: UiServer) -> None:
    results = json.loads(_cli(env, "query", "refund window", "--json"))["results"]
    assert _titles(results)[:1] == ["Refund window"]
    assert [r["kind"] for r in results if r["kind"] == "code"] == [], _titles(results)
    with page.http() as client:
        found = client.post("/api/search", json={"query": "refund window", "limit": 20}).json()
    assert [r["title"] for r in found["results"] if r["kind"] == "code"] == []


def test_a_question_that_asks_for_code_gets_code_first(env: Env) -> None:
    results = json.loads(_cli(env, "query", "UvicornWorker class", "--json", "--explain"))[
        "results"
    ]
    # code first; the class named, or its subclass (whose text names it as its base), on top
    assert results[0]["kind"] == "code" and results[0]["title"].startswith("uvicorn/workers.py::")
    assert "uvicorn/workers.py::UvicornWorker" in [r["title"] for r in results[:3]]
    assert results[0]["explain"]["order"].startswith("code first")
