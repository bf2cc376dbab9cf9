"""Every CLI filter option, fuzzed through click's runner (in process, so NUL and the lone
surrogates Python makes of undecodable argv bytes can be passed too).

Allowed outcomes: exit 0, or a documented error exit (2 bad input or usage, 3 not found) with
one error line on stderr (`nano-brain: error: ...`, or click's usage text ending in one
`Error: ...` line); never a traceback. The store passes integrity_check after each command's run.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nano_brain import paths
from nano_brain.cli import main
from nano_brain.store.sqlite._driver import sqlite_module

ARGV_CHAR = st.characters(codec="utf-8") | st.sampled_from(["\udcff", "\udc80", "\x00"])
"""Any text a shell could pass, as Python sees it (undecodable bytes become \\udc80-\\udcff)."""

TIMES = [
    "7d", "24h", "1y", "0s", "9998y", "99999999999d", "1e3d", "-7d", "7 d", "7D", "\u0667d",
    "2024-05-01", "2024-05-01T12:00:00Z", "2024-05-01T12:00:00+25:00", "2024-13-45",
    "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00",
    "10000-01-01", "now", "", " ", "7" * 70 + "d",
]  # fmt: skip
NAMES = [
    "memory", "decisions", "seed", "a,b", "two words", "\x00", "nul\x00", "\ufeffbom", "x" * 65,
    "memory\n", "-", "--", "*", "%", "'", '"', "\\", "ünï", "\udcff",
]  # fmt: skip
INTS = ["1", "0", "-1", "200", "201", "2147483648", "9223372036854775808", str(10**30), "true",
        "10.5", "1e3", "", " 5", "0x10", "\u0663", "-0", "+7"]  # fmt: skip


def text_or(samples: list[str], max_size: int = 40) -> st.SearchStrategy[str]:
    return st.sampled_from(samples) | st.text(ARGV_CHAR, max_size=max_size)


# option -> values; every option takes a value, passed as --option=value so a value that
# starts with '-' is still a value.
TIME_OPTIONS = ("--created-after", "--created-before", "--updated-after", "--updated-before")
SEARCH_OPTIONS: dict[str, st.SearchStrategy[str]] = {
    **{o: text_or(TIMES) for o in TIME_OPTIONS},
    "--as-of": text_or(TIMES),
    "--tag": text_or(NAMES),
    "--collection": text_or(NAMES),
    "--kind": text_or(["note", "session", "code", "poem", "NOTE", ""]),
    "--status": text_or(["active", "superseded", "retracted", "unreviewed", "deleted"]),
    "--limit": text_or(INTS),
}
FLAGS = ["--include-superseded", "--content", "--explain", "--json"]
LIMIT = text_or(INTS)
COMMANDS: dict[str, tuple[dict[str, st.SearchStrategy[str]], list[str], int]] = {
    # command: (options, flags, examples per option); query and vsearch load the model on
    # every valid run, so they get few: their filters are parsed by the code search uses.
    "search": (SEARCH_OPTIONS, FLAGS, 30),
    "query": (SEARCH_OPTIONS, FLAGS, 4),
    "vsearch": (SEARCH_OPTIONS, FLAGS, 4),
    "list": (
        {
            "--limit": LIMIT,
            "--offset": text_or(INTS),
            "--collection": text_or(NAMES),
            "--tag": text_or(NAMES),
            "--kind": text_or(["note", "session", "code", "poem"]),
            "--status": text_or(["active", "superseded", "retracted", "unreviewed", "x"]),
        },
        ["--include-superseded", "--json"],
        30,
    ),
    "log": ({"--limit": LIMIT, "--doc": text_or(NAMES)}, ["--json"], 30),
    "review": ({"--limit": LIMIT}, ["--json"], 30),
    "wake-up": ({"--budget": text_or(INTS)}, ["--json"], 40),
    "symbols": ({"--limit": LIMIT, "--kind": text_or(["function", "class", "x"])}, ["--json"], 30),
    "sessions": ({"--limit": LIMIT, "--ticket": text_or(NAMES)}, ["--json"], 30),
}
CASES = [(command, option) for command, (options, _, _) in COMMANDS.items() for option in options]
SEARCHES = {"search", "query", "vsearch"}
ARGUMENT = {"symbols": text_or(["parse", "load", "", "-x", "a" * 2000])}
"""Commands with one positional argument (searches take words, see `invocation`)."""
ALLOWED_EXITS = {0, 2, 3}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Path]:
    """A workspace with a few notes (the autouse fixture keeps the XDG dirs private)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    runner = CliRunner()
    for i, text in enumerate(["Decision: use SQLite", "Parser notes on YAML", "Session recap"]):
        args = ["write", text, "--tag", "seed", "-c", "decisions" if i == 0 else "memory"]
        result = runner.invoke(main, [*args, "--workspace", str(workspace)])
        assert result.exit_code == 0, result.output
    yield workspace


def invocation(command: str, focus: str) -> st.SearchStrategy[list[str]]:
    """argv for `command` with `focus` set, maybe other options and flags, then `--` and
    the positional words."""
    options, flags, _ = COMMANDS[command]

    def pair(name: str) -> st.SearchStrategy[str]:
        return options[name].map(lambda value: f"{name}={value}")

    others = st.lists(st.sampled_from(sorted(options)).flatmap(pair), max_size=2)
    chosen_flags = st.lists(st.sampled_from(flags), max_size=2, unique=True)
    if command in SEARCHES:
        words = ["sqlite", "parser", "decision", "", "-x", "NEAR(", "a OR b"]
        positional = st.lists(text_or(words), min_size=1, max_size=3)
    elif command in ARGUMENT:
        positional = ARGUMENT[command].map(lambda word: [word])
    else:
        positional = st.just([])
    return st.builds(
        lambda f, o, fl, pos: [command, f, *o, *fl, "--", *pos],
        pair(focus),
        others,
        chosen_flags,
        positional,
    )


@pytest.mark.parametrize(("command", "option"), CASES)
def test_cli_filter_options_fuzz(store: Path, command: str, option: str) -> None:
    runner = CliRunner()
    strategy = invocation(command, option)
    outcomes: collections.Counter[str] = collections.Counter()
    options_seen: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=COMMANDS[command][2],
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(strategy)
    def run(argv: list[str]) -> None:
        cut = argv.index("--")
        full = [*argv[:cut], "--workspace", str(store), *argv[cut:]]
        result = runner.invoke(main, full)
        options_seen.update(a.split("=", 1)[0] for a in argv[:cut] if "=" in a)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            full,
            result.exception,
            result.output,
        )
        assert result.exit_code in ALLOWED_EXITS, (full, result.exit_code, result.output)
        output = result.stdout + result.stderr
        assert "Traceback" not in output, (full, output)
        if result.exit_code == 0:
            outcomes["ok"] += 1
            return
        outcomes[f"exit {result.exit_code}"] += 1
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert lines, (full, result.output)
        if lines[-1].startswith("nano-brain: error:"):
            assert len(lines) == 1, (full, lines)
        else:  # click's usage error: usage, a hint, then one Error line
            assert lines[-1].startswith("Error:") and lines[0].startswith("Usage:"), (full, lines)

    run()
    print(f"\nCLI fuzz {command} {option}: {dict(outcomes)}; options used: {dict(options_seen)}")
    assert sum(outcomes.values()) >= 0.9 * COMMANDS[command][2]
    db = sqlite_module().connect(f"file:{paths.default_db_path(store.resolve())}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        db.close()
