"""The README's promises, checked against what they describe: its sample config passes
`config check`, its CLI section names every command, its test command is what CI runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from nano_brain.cli._app import COMMANDS

from .test_cli import EXE

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _section(heading: str) -> str:
    """The README's text from `heading` (a `## ` line) to the next heading of that level."""
    start = README.index(f"\n{heading}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else len(README)]


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def test_the_sample_config_passes_its_own_check(tmp_path: Path) -> None:
    """The ```yaml block under "Where things are kept", as the user's config.yml."""
    sample = _fenced(_section("## Where things are kept"), "yaml")[0]
    assert "consolidate:" in sample and "embedding:" in sample  # the block meant
    config = tmp_path / "config.yml"
    config.write_text(sample, encoding="utf-8")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    assert EXE
    out = subprocess.run(
        [EXE, "config", "check", "--workspace", str(workspace)],
        capture_output=True,
        text=True,
        env={**os.environ, "NANO_BRAIN_CONFIG": str(config)},
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning" not in (out.stdout + out.stderr).lower(), out.stdout + out.stderr
    assert out.stdout.strip() == "config ok"


def test_the_cli_section_names_every_command() -> None:
    """Every command `nano-brain --help` lists has a row in the README's command table, with
    the same one-line help (so the two cannot drift apart)."""
    cli = _section("## Using the CLI")
    rows = dict(re.findall(r"^\| `nano-brain ([a-z-]+)[^`]*` \| (.+?) \|$", cli, re.MULTILINE))
    assert sorted(rows) == sorted(COMMANDS)
    for name, (_, text) in COMMANDS.items():
        assert rows[name] == text.replace("|", "\\|"), name


def test_the_readme_test_command_is_what_ci_runs() -> None:
    """The README's one test command is what `.ci/run` runs too; that script sets up
    (scripts/setup-dev, Chromium included), lints, type-checks and tests."""
    blocks = _fenced(_section("## Run the tests"), "sh")
    assert len(blocks) == 1, blocks
    commands = [line for line in blocks[0].splitlines() if line and not line.startswith("#")]
    assert len(commands) == 1, commands
    script = shlex.split(commands[0].split("#")[0])[0]
    assert (REPO / script).is_file() and os.access(REPO / script, os.X_OK), script

    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    ci_lines = [  # the commands it runs, not its comments or what it prints
        line.strip() for line in ci.splitlines() if not line.strip().startswith(("#", "echo "))
    ]
    assert any(re.match(rf"^(bash )?{re.escape(script)}( |$)", line) for line in ci_lines), ci
    for step in ("pytest", "ruff check", "mypy", "--require-suite"):
        assert step not in "\n".join(ci_lines), f"{step} belongs to {script}, not .ci/run"

    body = (REPO / script).read_text(encoding="utf-8")
    for step in ("scripts/setup-dev", "ruff check server tests benchmarks", "mypy", "pytest"):
        assert step in body, step
    setup = (REPO / "scripts/setup-dev").read_text(encoding="utf-8")
    assert "chromium" in setup, "the browser tests' Chromium is set up with the rest"
