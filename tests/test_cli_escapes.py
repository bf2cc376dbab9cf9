"""Text from memory never reaches a terminal as control characters (issue 31, defect 5).

A commit message and an author name come from whoever made the commit, a note's content from
whoever wrote it: the real `nano-brain` prints them with every control character made visible,
to a pipe and to a terminal (a pseudo-terminal here), and its `--json` strings escape them while
still parsing back to the very text stored.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .mcp.conftest import nano_brain_command

pytestmark = pytest.mark.timeout(300)

SUBJECT = "pay: fix rounding for NB-7 \x1b]0;pwned\x07\x1b[2J done"
AUTHOR = "Mallory \x1b[31mRed"
NOTE = (
    "Retrypolicy for payments: \x1b[31mred\x1b[0m, a C1 CSI \x9b31m, bidi \u202eevil\u202c, "
    "isolate \u2066x\u2069, bell \x07, delete \x7f, carriage\roverwritten, escape \x1b.\n"
    "Second line\twith a tab.\n"
)
PAY = "def pay(amount):\n    return round(amount, 2)\n"
#: What a terminal must never receive from memory: C0 controls but tab and newline, DEL, C1
#: controls (UTF-8 C2 80..C2 9F) and the bidi embedding, override and isolate controls.
_RAW_CONTROL = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


@dataclass
class Store:
    root: Path
    env: dict[str, str]
    commit_id: str
    note_id: str

    def command(self, *args: str) -> list[str]:
        return [*nano_brain_command(), *args, "--workspace", str(self.root)]


def _raw_controls(data: bytes) -> list[bytes]:
    # a pipe gets no carriage returns at all; a raw-mode terminal none either
    return _RAW_CONTROL.findall(data)


def run_pipe(store: Store, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        store.command(*args),
        capture_output=True,
        env=store.env,
        cwd=store.root,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def run_tty(store: Store, *args: str) -> tuple[int, bytes]:
    """The command with stdin, stdout and stderr on a pseudo-terminal (raw mode: no newline
    translation, so the bytes read are the bytes written); (exit code, everything it wrote)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        proc = subprocess.Popen(
            store.command(*args),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**store.env, "TERM": "xterm-256color", "COLUMNS": "120"},
            cwd=store.root,
            start_new_session=True,
        )
    finally:
        os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # EIO: every holder of the terminal's other end has closed it
                break
            if not data:
                break
            out += data
        code = proc.wait(timeout=30)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, bytes(out)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A git workspace whose one commit has a hostile subject and author, indexed, and a note
    with every kind of control character, anchored to the commit's function."""
    base = tmp_path_factory.mktemp("escapes")
    root = base / "ws"
    root.mkdir()
    (base / "gitconfig").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANO_BRAIN_", "GIT_"))}
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(base / var.lower())
    env |= {
        "NANO_BRAIN_EMBEDDING__PROVIDER": "none",
        "GIT_CONFIG_GLOBAL": str(base / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
        "GIT_AUTHOR_DATE": "1700000000 +0000",
        "GIT_COMMITTER_DATE": "1700000000 +0000",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (root / "pay.py").write_text(PAY)
    git("add", "-A")
    git("commit", "-q", "-m", SUBJECT, f"--author={AUTHOR} <mallory@example.com>")
    made = Store(root, env, "", "")
    indexed = run_pipe(made, "index", "--no-embed", "--json")
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["history"]["commits"] == 1
    commits = json.loads(run_pipe(made, "list", "--kind", "commit", "--json").stdout)
    assert [c["metadata"]["author"] for c in commits] == [AUTHOR]
    written = subprocess.run(
        made.command("write", "--title", "Retry policy", "--anchor", "pay.py::pay", "--json"),
        input=NOTE.encode(),
        capture_output=True,
        env=env,
        cwd=root,
        timeout=120,
    )
    assert written.returncode == 0, written.stderr
    made.commit_id = commits[0]["id"]
    made.note_id = json.loads(written.stdout)["document"]["id"]
    yield made


def _commands(store: Store) -> list[tuple[tuple[str, ...], int, list[bytes]]]:
    """Each command, its exit code, and what it must show of the hostile text, made visible."""
    subject = rb"pay: fix rounding for NB-7 \x1b]0;pwned\x07\x1b[2J done"
    return [
        (("get", store.commit_id), 0, [subject, rb"Author: Mallory \x1b[31mRed <"]),
        (("get", store.note_id), 0, [rb"\x1b[31mred\x1b[0m", rb"\u202eevil\u202c"]),
        (("search", "rounding"), 0, [subject]),
        (("search", "retrypolicy", "--content"), 0, [rb"a C1 CSI \x9b31m"]),
        (("query", "retrypolicy"), 0, [rb"Retry policy"]),
        (("list",), 0, [rb"Retry policy"]),
        (("list", "--kind", "commit"), 0, [subject]),
        # `why` writes Markdown (which may escape the escape): the text is there, shown
        (("why", "pay.py::pay"), 0, [rb"x1b", rb"0;pwned", rb"Mallory ", rb"31mRed"]),
        (("impact", "pay.py::pay"), 0, [rb"Retry policy"]),
        (("history", store.commit_id), 0, [subject]),
        (("log",), 0, []),
        (("wake-up",), 0, []),
        (("sessions", "--ticket", "NB-7"), 0, [subject]),
        (("review",), 0, []),
        (("get", "#\x1b]0;argv\x07"), 3, [rb"#\x1b]0;argv\x07"]),  # an error line
    ]


def _check(args: tuple[str, ...], output: bytes, shown: list[bytes]) -> None:
    assert _raw_controls(output) == [], (args, output[:3000])
    for part in shown:
        assert part in output, (args, part, output[:3000])


def test_every_command_shows_control_characters_visibly_on_a_pipe(store: Store) -> None:
    for args, code, shown in _commands(store):
        done = run_pipe(store, *args)
        assert done.returncode == code, (args, done.stderr)
        _check(args, done.stdout + done.stderr, shown)
    note = run_pipe(store, "get", store.note_id).stdout
    assert rb"isolate \u2066x\u2069, bell \x07, delete \x7f, carriage\x0doverwritten" in note
    assert rb"escape \x1b." in note and b"Second line\twith a tab.\n" in note


def test_every_command_shows_control_characters_visibly_on_a_terminal(store: Store) -> None:
    for args, code, shown in _commands(store):
        exit_code, output = run_tty(store, *args)
        assert exit_code == code, (args, output)
        _check(args, output, shown)


def test_the_progress_bar_still_draws_on_a_terminal(store: Store) -> None:
    code, output = run_tty(store, "index", "--no-embed")
    assert code == 0, output
    # rich hides the cursor and redraws the bar with its own escape sequences, on the
    # terminal's stream itself; the report after it went through the filter
    assert b"\x1b[?25l" in output and b"scanning" in output
    assert b"indexed 1 files" in output.split(b"\x1b[?25h")[-1]


def _json_of(store: Store, *args: str) -> object:
    done = run_pipe(store, *args, "--json")
    assert done.returncode == 0, done.stderr
    assert _raw_controls(done.stdout) == [], done.stdout[:2000]
    assert _raw_controls(done.stderr) == [], done.stderr[:2000]
    return json.loads(done.stdout)


def test_json_escapes_control_characters_and_parses_back_to_the_stored_text(
    store: Store,
) -> None:
    note = _json_of(store, "get", store.note_id)
    assert isinstance(note, dict) and note["content"] == NOTE
    commit = _json_of(store, "get", store.commit_id)
    assert isinstance(commit, dict)
    assert commit["title"] == SUBJECT and commit["metadata"]["author"] == AUTHOR
    assert f"Author: {AUTHOR} <mallory@example.com>" in commit["content"]
    found = _json_of(store, "search", "retrypolicy", "--content")
    assert isinstance(found, dict)
    assert [r["content"] for r in found["results"]] == [note["content"]]
    listed = _json_of(store, "list", "--kind", "commit")
    assert isinstance(listed, list) and [d["title"] for d in listed] == [SUBJECT]
    why = _json_of(store, "why", "pay.py::pay")
    assert any(SUBJECT in text for text in _strings(why))
    assert any(AUTHOR in text for text in _strings(why))
    sessions = _json_of(store, "sessions", "--ticket", "NB-7")
    assert isinstance(sessions, list) and [s["title"] for s in sessions] == [SUBJECT]


def _strings(data: object) -> Iterator[str]:
    """Every string in parsed JSON."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)
