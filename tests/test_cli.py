"""The real `nano-brain` console script, run as a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXE = shutil.which("nano-brain")


def run(
    workspace: Path, *args: str, stdin: bytes | None = None, lexical: bool = True
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if lexical:
        env["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    assert EXE, "nano-brain is not installed"
    return subprocess.run(
        [EXE, *args, "--workspace", str(workspace)],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )


def test_write_get_search_tags_delete_roundtrip(workspace: Path) -> None:
    out = run(
        workspace,
        "write",
        "We pin numpy below 3 until the ABI settles.",
        "--tag",
        "deps",
        "--title",
        "numpy pin",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)["document"]
    assert doc["title"] == "numpy pin" and doc["tags"] == ["deps"]

    got = json.loads(run(workspace, "get", f"#{doc['id']}", "--json").stdout)
    assert got["content"] == "We pin numpy below 3 until the ABI settles."

    found = json.loads(run(workspace, "search", "numpy", "ABI", "--json").stdout)
    assert [h["id"] for h in found["results"]] == [doc["id"]]
    text = run(workspace, "search", "numpy").stdout.decode()
    assert f"#{doc['id']}" in text and "numpy pin" in text

    assert json.loads(run(workspace, "tags", "--json").stdout) == [{"tag": "deps", "count": 1}]
    assert run(workspace, "delete", doc["id"]).returncode == 0
    assert json.loads(run(workspace, "search", "numpy", "--json").stdout)["results"] == []


def test_write_from_stdin_and_file(workspace: Path, tmp_path: Path) -> None:
    assert run(workspace, "write", stdin=b"from stdin\n").returncode == 0
    note = tmp_path / "n.md"
    note.write_text("# From a file\n\nbody")
    out = run(workspace, "write", "--file", str(note), "--json")
    assert json.loads(out.stdout)["document"]["title"] == "From a file"
    status = json.loads(run(workspace, "status", "--json").stdout)
    assert status["documents"] == 2


@pytest.mark.parametrize(
    "args,stdin,code,message",
    [
        (["write", ""], None, 2, "content is empty"),
        (["write"], b"\xff\xfe\xfa", 2, "not valid UTF-8"),
        (["write", "x", "--metadata", "{bad"], None, 2, "not JSON"),
        (["get", "#0123456789ab"], None, 3, "no document"),
        (["delete", "nope.md"], None, 3, "no document"),
        (["search", "x", "--created-after", "whenever"], None, 2, "invalid time"),
        (["search", "x", "--limit", "0"], None, 2, "limit"),
    ],
)
def test_errors_are_one_line_and_nonzero(
    workspace: Path, args: list[str], stdin: bytes | None, code: int, message: str
) -> None:
    out = run(workspace, *args, stdin=stdin if stdin is not None else b"")
    assert out.returncode == code
    err = out.stderr.decode().strip()
    assert err.startswith("nano-brain: error:") and message in err and "\n" not in err
    assert "Traceback" not in err


def test_corrupt_store_is_reported_and_left_alone(workspace: Path, tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    db.write_bytes(b"garbage" * 1000)
    out = run(workspace, "status", "--db", str(db))
    assert out.returncode == 4 and b"cannot open the store" in out.stderr
    assert db.read_bytes() == b"garbage" * 1000


def test_hybrid_query_with_the_real_model(workspace: Path) -> None:
    run(
        workspace,
        "write",
        "Incident 42: the cache stampede took the API down for ten minutes.",
        lexical=False,
    )
    run(workspace, "write", "Style guide: prefer dataclasses over dicts.", lexical=False)
    out = run(
        workspace,
        "query",
        "outage",
        "caused",
        "by",
        "thundering",
        "herd",
        "--json",
        "--explain",
        lexical=False,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["legs"]["vector"] == "ok"
    assert data["results"][0]["title"].startswith("Incident 42")
    status = json.loads(run(workspace, "status", "--json", lexical=False).stdout)
    assert (
        status["vectors"] == 2
        and status["embedding"]["model"] == status["embedding"]["store_model"]
    )


def test_list_newest_first_with_filters(workspace: Path) -> None:
    run(workspace, "write", "first note", "--collection", "a")
    run(workspace, "write", "second note", "--collection", "b")
    listed = json.loads(run(workspace, "list", "--json").stdout)
    assert [d["title"] for d in listed] == ["second note", "first note"]
    only_a = json.loads(run(workspace, "list", "--collection", "a", "--json").stdout)
    assert [d["title"] for d in only_a] == ["first note"]


def test_missing_model_is_a_clear_error(workspace: Path) -> None:
    env_model = {"NANO_BRAIN_EMBEDDING__MODEL": "no-such-model"}
    os.environ.update(env_model)
    try:
        run(workspace, "write", "a note about gRPC deadlines", lexical=False)
        out = run(workspace, "query", "grpc deadlines", "--json", lexical=False)
        data = json.loads(out.stdout)
        assert "unknown local model 'no-such-model'" in data["legs"]["vector"]
        assert data["results"] and data["results"][0]["title"] == "a note about gRPC deadlines"
        out = run(workspace, "reembed", lexical=False)
        assert out.returncode == 5 and b"unknown local model" in out.stderr
    finally:
        del os.environ["NANO_BRAIN_EMBEDDING__MODEL"]
