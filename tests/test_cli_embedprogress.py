"""The CLI shows how far embedding is: `index` with an estimate, `status` per space, and a
search made before every chunk has its vector says it is partial."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .test_cli import run

#: More chunks than one batch (embedding.batch_size 32): the first line comes mid-way.
FUNCTIONS = 100


def _module(workspace: Path) -> None:
    body = "".join(
        f'\n\ndef handler_{i}(request):\n    """Answer request {i}."""\n    return {i}\n'
        for i in range(FUNCTIONS)
    )
    (workspace / "handlers.py").write_text(body, encoding="utf-8")


def test_index_shows_the_embedding_estimate_and_its_json_the_progress(workspace: Path) -> None:
    _module(workspace)
    out = run(workspace, "index", "--json", lexical=False)  # stderr is a pipe: plain lines
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stderr.decode().splitlines() if "embedding" in ln]
    estimate = re.compile(
        r"nano-brain: embedding \d+/\d+ \(\d+%\): code vectors: [\d,]+ of [\d,]+ \(\d+%\), "
        r"about \d+ (s|min) left"
    )
    assert any(estimate.fullmatch(ln) for ln in lines), lines
    progress = json.loads(out.stdout)["embedding_progress"]
    assert progress["code"]["embedded"] == FUNCTIONS and progress["code"]["pending"] == 0
    assert progress["code"]["fraction"] == 1.0 and set(progress) == {"text", "code"}


def test_status_shows_each_space_that_waits(workspace: Path) -> None:
    _module(workspace)
    assert run(workspace, "index", "--no-embed", lexical=False).returncode == 0
    text = run(workspace, "status", lexical=False).stdout.decode()
    assert f"embedding  code vectors: 0 of {FUNCTIONS} (0%)" in text.splitlines(), text
    data = json.loads(run(workspace, "status", "--json", lexical=False).stdout)
    code = data["embedding_progress"]["code"]
    assert (code["embedded"], code["pending"], code["fraction"]) == (0, FUNCTIONS, 0.0)
    assert code["eta_s"] is None  # no batch measured in this process: no estimate


def test_a_search_before_the_code_has_vectors_says_it_is_partial(workspace: Path) -> None:
    _module(workspace)
    assert run(workspace, "index", "--no-embed", lexical=False).returncode == 0
    out = run(workspace, "query", "answer", "request", "--kind", "code", lexical=False)
    assert out.returncode == 0, out.stderr
    last = out.stdout.decode().splitlines()[-1]
    assert last == (
        "note: code search is partial: 0% of code has vectors; results found by meaning "
        "may be missing"
    )
    data = json.loads(run(workspace, "query", "answer", "--json", lexical=False).stdout)
    assert data["partial"].startswith("code search is partial: 0% of code has vectors")
    # lexical search never asks for vectors; with vectors off nothing is said either
    assert json.loads(run(workspace, "search", "answer", "--json").stdout)["partial"] == ""
    assert json.loads(run(workspace, "query", "answer", "--json").stdout)["partial"] == ""
    assert run(workspace, "index", lexical=False).returncode == 0
    data = json.loads(run(workspace, "query", "answer", "--json", lexical=False).stdout)
    assert data["partial"] == ""
