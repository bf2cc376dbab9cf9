"""The real `nano-brain` console script, run as a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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


@pytest.fixture
def seeded(workspace: Path) -> Path:
    """A workspace whose store exists (errors about documents need one)."""
    assert run(workspace, "write", "a note so that the store exists").returncode == 0
    return workspace


@pytest.mark.parametrize(
    "args,stdin,code,message",
    [
        (["write", ""], None, 2, "content is empty"),
        (["write"], b"\xff\xfe\xfa", 2, "not valid UTF-8"),
        (["write", "x", "--metadata", "{bad"], None, 2, "not JSON"),
        (["get", "#0123456789ab"], None, 3, "no document"),
        (["delete", "nope.md"], None, 3, "no document"),
        (["search", "x", "--created-after", "whenever"], None, 2, "invalid time"),
        (["search", "x", "--limit", "0"], None, 2, "'--limit' / '-n': 0 is not in the range"),
        (["search", "x", "-n", "0"], None, 2, "'--limit' / '-n': 0 is not in the range"),
        (["list", "-n", "0"], None, 2, "'--limit' / '-n': 0 is not in the range"),
        (["bogus"], None, 2, "no such command 'bogus' (see nano-brain --help)"),
        (["search", "x", "--nope"], None, 2, "no such option '--nope' (see nano-brain search"),
        (["get"], None, 2, "missing argument 'REF'"),
        (["write", "x", "--kind", "bogus"], None, 2, "'--kind': 'bogus' is not one of"),
        (["write", "--file", "/dev/zero"], None, 2, "not a regular file (a character device)"),
        (["write", "--file", "/nonexistent/n.md"], None, 2, "cannot read /nonexistent/n.md"),
        (["write"], b"x" * (5 * 1024 * 1024 + 1), 2, "more than the 5242880-byte cap"),
    ],
)
def test_errors_are_one_line_and_nonzero(
    seeded: Path, args: list[str], stdin: bytes | None, code: int, message: str
) -> None:
    out = run(seeded, *args, stdin=stdin if stdin is not None else b"")
    assert_one_line_error(out, code, message)


def assert_one_line_error(out: subprocess.CompletedProcess, code: int, message: str) -> None:
    err = out.stderr.decode().strip()
    assert out.returncode == code, err
    assert err.startswith("nano-brain: error:") and message in err and "\n" not in err, err
    assert "Traceback" not in err and "Usage:" not in err and out.stdout == b""


def test_workspace_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = run(afile, "list")
    assert_one_line_error(out, 2, "'--workspace' / '-w': Directory")


def test_file_option_on_a_folder_is_one_line(seeded: Path, tmp_path: Path) -> None:
    out = run(seeded, "write", "--file", str(tmp_path))
    assert_one_line_error(out, 2, "'--file' / '-f'")
    assert "is a directory" in out.stderr.decode()


def test_write_file_refuses_a_fifo_without_blocking(seeded: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = run(seeded, "write", "--file", str(fifo))  # run()'s timeout fails a hang
    assert_one_line_error(out, 2, "not a regular file (a FIFO)")


def test_write_file_over_the_cap_writes_nothing(seeded: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"a" * (5 * 1024 * 1024 + 1))
    before = json.loads(run(seeded, "status", "--json").stdout)["documents"]
    out = run(seeded, "write", "--file", str(big))
    assert_one_line_error(out, 2, "over the 5242880-byte cap")
    assert json.loads(run(seeded, "status", "--json").stdout)["documents"] == before


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["get", "#0123456789ab"],
        ["list"],
        ["tags"],
        ["search", "x"],
        ["query", "x"],
        ["history", "#0123456789ab"],
        ["log"],
        ["wake-up"],
        ["symbols", "x"],
    ],
)
def test_read_commands_on_a_missing_store_create_nothing(
    workspace: Path, tmp_path: Path, args: list[str]
) -> None:
    data = Path(os.environ["XDG_DATA_HOME"])
    out = run(workspace, *args)
    assert_one_line_error(out, 4, "no store for workspace")
    assert not data.exists() or not any(data.iterdir())
    db = tmp_path / "nonexistent" / "dir" / "x.db"
    out = run(workspace, *args, "--db", str(db))
    assert_one_line_error(out, 4, f"no store at {db} does not exist")
    assert not (tmp_path / "nonexistent").exists()


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
        # (the shipped model puts "outage caused by thundering herd" at cosine 0.24 from the
        # incident: below the relevance floor, an honest "nothing relates")
        "API",
        "outage",
        "from",
        "the",
        "cache",
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


# -- start-up: what each command imports ---------------------------------------------------

_DUMP_MODULES = """
import atexit, os, sys
out, args = sys.argv[1], sys.argv[2:]
def dump():
    open(out, "w").write("\\n".join(sorted(sys.modules)))
atexit.register(dump)
exit_now = os._exit  # the CLI skips atexit on success: dump there too
os._exit = lambda code: (dump(), exit_now(code))
sys.argv = ["nano-brain", *args]
from nano_brain.cli import main
main()
"""
#: Heavy packages a call that needs none of them must not import (top-level names).
HEAVY = {"numpy", "onnxruntime", "tokenizers", "httpx", "mcp", "mcp_types", "pygls", "lsprotocol",
         "tree_sitter", "watchdog", "uvicorn", "starlette", "rich", "sqlite_vec"}  # fmt: skip


def imported(workspace: Path | None, tmp_path: Path, *args: str, lexical: bool = True) -> set[str]:
    """Top-level packages in sys.modules at the end of one real CLI call."""
    out = tmp_path / "modules.txt"
    env = dict(os.environ)
    if lexical:
        env["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    where = ["--workspace", str(workspace)] if workspace else []
    done = subprocess.run(
        [sys.executable, "-c", _DUMP_MODULES, str(out), *args, *where],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return {name.split(".")[0] for name in out.read_text().split()}


def test_help_and_version_import_nothing_heavy(workspace: Path, tmp_path: Path) -> None:
    for args in (["--help"], ["--version"], ["get", "--help"]):
        mods = imported(None, tmp_path, *args)
        assert not mods & HEAVY, (args, mods & HEAVY)
        assert "pydantic" not in mods or args[0] == "get", args


def test_read_commands_import_no_embedding_runtime(seeded: Path, tmp_path: Path) -> None:
    # The store was written with the real model: status must still not load it.
    run(seeded, "write", "vectors for this one", lexical=False)
    doc = json.loads(run(seeded, "list", "--json").stdout)[0]["id"]
    for args in (["get", f"#{doc}"], ["list"], ["tags"], ["status"], ["search", "vectors"]):
        mods = imported(seeded, tmp_path, *args, lexical=False)
        assert not mods & HEAVY, (args, mods & HEAVY)
    status = json.loads(run(seeded, "status", "--json", lexical=False).stdout)
    assert status["legs"]["vector"] == "ok"
    assert status["embedding"]["model"] == status["embedding"]["store_model"]


def test_query_loads_the_model_only_for_the_vector_leg(seeded: Path, tmp_path: Path) -> None:
    lexical = imported(seeded, tmp_path, "query", "note", lexical=True)
    assert not lexical & {"onnxruntime", "tokenizers", "numpy"}
    hybrid = imported(seeded, tmp_path, "query", "note", lexical=False)
    assert {"onnxruntime", "tokenizers", "numpy"} <= hybrid  # the check above can fail


def test_help_lists_every_command_with_its_own_summary() -> None:
    from click.testing import CliRunner

    from nano_brain.cli import main

    runner = CliRunner()
    listing = runner.invoke(main, ["--help"]).output
    rows = listing.split("Commands:\n", 1)[1].strip().splitlines()
    listed = {line.split()[0]: " ".join(line.split()[1:]) for line in rows}
    assert {"write", "get", "query", "index", "lsp", "mcp", "harvest", "wake-up"} <= set(listed)
    for name, summary in listed.items():
        page = runner.invoke(main, [name, "--help"])
        assert page.exit_code == 0, (name, page.output)
        text = " ".join(page.output.split())
        # A docstring changed without its line in nano_brain/cli/_app.py:_MODULES (or back).
        assert summary.removesuffix("...") in text, (name, summary)
    # Every command a module registers is in the listing: a new command needs its line in
    # nano_brain/cli/_app.py:_MODULES, or `nano-brain` cannot find it.
    assert set(main.commands) == set(listed)


def test_index_progress_is_visible_without_a_terminal(workspace: Path) -> None:
    for i in range(3):
        (workspace / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    out = run(workspace, "index", "--json")  # stderr is a pipe here, as in CI
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == 3
    lines = out.stderr.decode().splitlines()
    assert "nano-brain: indexing 3/3 (100%)" in lines, lines
    assert all(line.startswith("nano-brain: ") for line in lines), lines


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_status_names_a_remote_model_without_calling_it(seeded: Path, provider: str) -> None:
    from nano_brain.config import EmbeddingConfig
    from nano_brain.embedding import create_provider

    env = {
        "NANO_BRAIN_EMBEDDING__PROVIDER": provider,
        "NANO_BRAIN_EMBEDDING__BASE_URL": "http://127.0.0.1:9",
    }
    os.environ.update(env)
    try:
        out = run(seeded, "status", "--json", lexical=False)  # port 9: nothing listens
    finally:
        for key in env:
            del os.environ[key]
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)
    expected = create_provider(EmbeddingConfig(provider=provider))  # built, never called
    assert expected is not None and status["embedding"]["model"] == expected.name


def test_bare_group_prints_help_and_a_bad_subcommand_is_one_line(workspace: Path) -> None:
    for args in ([], ["config"]):
        out = subprocess.run([EXE, *args], capture_output=True, timeout=60)
        assert out.returncode == 0 and out.stdout.startswith(b"Usage: nano-brain"), out
    out = subprocess.run([EXE, "config", "bogus"], capture_output=True, timeout=60)
    assert_one_line_error(out, 2, "no such command 'bogus' (see nano-brain config --help)")


def test_reembed_code_touches_only_the_code_index(workspace: Path) -> None:
    (workspace / "app.py").write_text("def retry_request(url):\n    return url\n")
    assert run(workspace, "index", lexical=False).returncode == 0
    assert run(workspace, "write", "a note about retries", lexical=False).returncode == 0
    out = run(workspace, "reembed", "--code", "--json", lexical=False)
    data = json.loads(out.stdout)
    # one function, one symbol chunk; the note keeps its vector
    assert data["embedded"] == 1 and list(data["models"]) == ["code"]
    status = json.loads(run(workspace, "status", "--json", lexical=False).stdout)
    assert status["embedding"]["code_store_model"] == "local/all-minilm-l6-v2-int8"
    assert status["pending_embeddings"] == 0 and status["legs"]["code_vector"] == "ok"
