"""`nano-brain hooks install|uninstall|status`: our entries merged into agents' settings files."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nano_brain.errors import InvalidInputError
from nano_brain.hooks import install as hooks

EXE = shutil.which("nano-brain")
OLD = "/old/venv/bin/nano-brain-hook"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    return folder


@pytest.fixture
def program(tmp_path: Path) -> Path:
    """A runner that exists and is executable, in a folder whose name needs quoting."""
    path = tmp_path / "my venv" / "bin" / "nano-brain-hook"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def ours(command: str, timeout: int = 10) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": timeout}


def theirs(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command}


def write_json(path: Path, data: Any) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = (json.dumps(data, indent=2) + "\n").encode()
    path.write_bytes(raw)
    return raw


def claude_expected(runner: str) -> dict[str, Any]:
    """The contract, written out: what an install puts into an empty Claude settings file."""
    return {
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup|resume|clear|compact",
                    "hooks": [ours(f"{runner} claude-code session-start")],
                }
            ],
            "UserPromptSubmit": [{"hooks": [ours(f"{runner} claude-code prompt")]}],
            "PreToolUse": [
                {
                    "matcher": "Edit|MultiEdit|Write|NotebookEdit",
                    "hooks": [ours(f"{runner} claude-code pre-edit")],
                }
            ],
            "Stop": [{"hooks": [ours(f"{runner} claude-code stop")]}],
            "SessionEnd": [{"hooks": [ours(f"{runner} claude-code session-end", 5)]}],
        }
    }


# -- install into missing, empty and shared files --------------------------------------------


def test_install_creates_the_missing_file_with_the_contract_entries(
    home: Path, root: Path, program: Path
) -> None:
    outcome = hooks.install("claude-code", "user", root, program=program, home=home)
    path = home / ".claude" / "settings.json"
    assert outcome.path == path and outcome.written
    assert [(c.event, c.action) for c in outcome.changes] == [
        ("SessionStart", "added"),
        ("UserPromptSubmit", "added"),
        ("PreToolUse", "added"),
        ("Stop", "added"),
        ("SessionEnd", "added"),
    ]
    runner = f"'{program}'"  # the folder's space: quoted for the shell
    text = path.read_text()
    assert json.loads(text) == claude_expected(runner)
    assert text == json.dumps(claude_expected(runner), indent=2) + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left


def test_an_empty_file_is_treated_as_missing(home: Path, root: Path) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("")
    hooks.install("claude-code", "user", root, program="/v/bin/nano-brain-hook", home=home)
    assert json.loads(path.read_text()) == claude_expected("/v/bin/nano-brain-hook")


def test_install_twice_leaves_the_file_byte_identical(home: Path, root: Path) -> None:
    first = hooks.install("claude-code", "user", root, program=OLD, home=home)
    path = first.path
    before = path.read_bytes()
    os.utime(path, (1, 1))
    again = hooks.install("claude-code", "user", root, program=OLD, home=home)
    assert not again.written
    assert {c.action for c in again.changes} == {"unchanged"}
    assert path.read_bytes() == before and path.stat().st_mtime == 1


def shared_settings() -> dict[str, Any]:
    """Settings another tool and the user wrote, with an old install of ours mixed in."""
    return {
        "model": "opus",
        "hooks": {
            "Notification": [{"hooks": [theirs("notify-send hi")]}],
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [theirs("guard-bash")]},
                {
                    "matcher": "Edit|MultiEdit|Write|NotebookEdit",
                    "hooks": [theirs("fmt-check"), ours(f"{OLD} claude-code pre-edit")],
                },
            ],
            "Stop": [{"hooks": [theirs("say done")]}],
        },
        "permissions": {"allow": ["Bash(ls)"]},
    }


def test_install_keeps_every_other_hook_and_key_in_place(
    home: Path, root: Path, program: Path
) -> None:
    path = home / ".claude" / "settings.json"
    write_json(path, shared_settings())
    outcome = hooks.install("claude-code", "user", root, program=program, home=home)
    actions = {c.event: c.action for c in outcome.changes}
    assert actions == {
        "SessionStart": "added",
        "UserPromptSubmit": "added",
        "PreToolUse": "replaced",
        "Stop": "added",
        "SessionEnd": "added",
    }
    data = json.loads(path.read_text())
    assert list(data) == ["model", "hooks", "permissions"]
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    assert list(data["hooks"]) == [
        "Notification",
        "PreToolUse",
        "Stop",
        "SessionStart",
        "UserPromptSubmit",
        "SessionEnd",
    ]
    assert data["hooks"]["Notification"] == [{"hooks": [theirs("notify-send hi")]}]
    runner = f"'{program}'"
    # ours replaced in its place, next to someone else's handler in the same group
    assert data["hooks"]["PreToolUse"] == [
        {"matcher": "Bash", "hooks": [theirs("guard-bash")]},
        {
            "matcher": "Edit|MultiEdit|Write|NotebookEdit",
            "hooks": [theirs("fmt-check"), ours(f"{runner} claude-code pre-edit")],
        },
    ]
    # a group of our own beside theirs, never inside it
    assert data["hooks"]["Stop"] == [
        {"hooks": [theirs("say done")]},
        {"hooks": [ours(f"{runner} claude-code stop")]},
    ]


def test_uninstall_removes_only_ours(home: Path, root: Path) -> None:
    path = home / ".claude" / "settings.json"
    original = shared_settings()
    write_json(path, original)
    hooks.install("claude-code", "user", root, program="/new/nano-brain-hook", home=home)
    outcome = hooks.uninstall("claude-code", "user", root, home=home)
    assert outcome.written and {c.action for c in outcome.changes} == {"removed"}
    expected = shared_settings()
    expected["hooks"]["PreToolUse"][1]["hooks"] = [theirs("fmt-check")]
    assert json.loads(path.read_text()) == expected
    again = hooks.uninstall("claude-code", "user", root, home=home)
    assert not again.written and {c.action for c in again.changes} == {"unchanged"}


def test_uninstall_after_install_gives_back_the_same_bytes(home: Path, root: Path) -> None:
    path = home / ".claude" / "settings.json"
    original = shared_settings()
    original["hooks"]["PreToolUse"][1]["hooks"].pop()  # no old install this time
    raw = write_json(path, original)
    hooks.install("claude-code", "user", root, program=OLD, home=home)
    assert path.read_bytes() != raw
    hooks.uninstall("claude-code", "user", root, home=home)
    assert path.read_bytes() == raw


def test_uninstall_drops_the_hooks_key_it_emptied_and_creates_no_file(
    home: Path, root: Path
) -> None:
    path = home / ".claude" / "settings.json"
    write_json(path, {"model": "opus"})
    hooks.install("claude-code", "user", root, program=OLD, home=home)
    hooks.uninstall("claude-code", "user", root, home=home)
    assert json.loads(path.read_text()) == {"model": "opus"}
    missing = hooks.uninstall("codex", "user", root, home=home)
    assert not missing.written and not missing.path.exists()


def test_reinstall_from_another_path_replaces_ours_and_stale_events_go(
    home: Path, root: Path
) -> None:
    path = home / ".claude" / "settings.json"
    write_json(path, {"hooks": {"PostToolUse": [{"hooks": [ours(f"{OLD} claude-code post")]}]}})
    hooks.install("claude-code", "user", root, program=OLD, home=home)
    outcome = hooks.install("claude-code", "user", root, program="/new/nano-brain-hook", home=home)
    assert outcome.written
    assert {c.action for c in outcome.changes} == {"replaced"}
    data = json.loads(path.read_text())
    assert data == claude_expected("/new/nano-brain-hook")
    # the stale PostToolUse entry went with the first install
    first = hooks.install_into(
        {"hooks": {"PostToolUse": [{"hooks": [ours(f"{OLD} claude-code post")]}]}}, []
    )
    assert first == ({"hooks": {}}, [hooks.Change("PostToolUse", "removed")])


def test_ours_under_another_matcher_moves_to_a_group_of_its_own() -> None:
    spec = hooks.specs("claude-code")[2]  # PreToolUse
    new = ours("/v/nano-brain-hook claude-code pre-edit")
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Edit", "hooks": [theirs("x"), ours("nano-brain-hook claude-code e")]},
                {"matcher": "Write", "hooks": [ours("nano-brain-hook claude-code w")]},
            ]
        }
    }
    result, changes = hooks.install_into(settings, [(spec, new)])
    assert changes == [hooks.Change("PreToolUse", "replaced")]
    assert result["hooks"]["PreToolUse"] == [
        {"matcher": "Edit", "hooks": [theirs("x")]},
        {"matcher": "Edit|MultiEdit|Write|NotebookEdit", "hooks": [new]},
    ]
    assert settings["hooks"]["PreToolUse"][1]["hooks"]  # the input is not modified


@pytest.mark.parametrize(
    ("command", "mine"),
    [
        ("nano-brain-hook claude-code stop", True),
        ("/a/bin/nano-brain-hook codex prompt", True),
        ("'/a b/nano-brain-hook' codex prompt", True),
        ("nano-brain-hooks x", False),
        ("echo nano-brain-hook", False),
        ("nano-brain hook claude stop", False),
        ("'unbalanced nano-brain-hook", False),
        ("", False),
    ],
)
def test_ours_is_recognised_by_the_program_name(command: str, mine: bool) -> None:
    assert hooks.is_ours({"type": "command", "command": command}) is mine


# -- scopes and agents ----------------------------------------------------------------------


def test_project_scope_writes_the_bare_program_and_local_the_path(home: Path, root: Path) -> None:
    project = hooks.install("claude-code", "project", root, program=OLD, home=home)
    assert project.path == root / ".claude" / "settings.json"
    data = json.loads(project.path.read_text())
    assert data == claude_expected("nano-brain-hook")
    local = hooks.install("claude-code", "local", root, program=OLD, home=home)
    assert local.path == root / ".claude" / "settings.local.json"
    assert json.loads(local.path.read_text()) == claude_expected(OLD)
    assert not (home / ".claude").exists()


def test_codex_gets_its_own_events_and_no_session_end(home: Path, root: Path) -> None:
    outcome = hooks.install("codex", "user", root, program=OLD, home=home)
    assert outcome.path == home / ".codex" / "hooks.json"
    assert json.loads(outcome.path.read_text()) == {
        "hooks": {
            "SessionStart": [
                {"matcher": "startup|resume", "hooks": [ours(f"{OLD} codex session-start")]}
            ],
            "UserPromptSubmit": [{"hooks": [ours(f"{OLD} codex prompt")]}],
            "PreToolUse": [
                {"matcher": "apply_patch|Edit|Write", "hooks": [ours(f"{OLD} codex pre-edit")]}
            ],
            "Stop": [{"hooks": [ours(f"{OLD} codex stop")]}],
        }
    }
    project = hooks.install("codex", "project", root, program=OLD, home=home)
    assert project.path == root / ".codex" / "hooks.json"
    assert "SessionEnd" not in json.loads(project.path.read_text())["hooks"]


def test_the_environment_names_the_program(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(hooks.PROGRAM_ENV, "/env/bin/nano-brain-hook")
    outcome = hooks.install("codex", "local", root, home=home)
    assert "/env/bin/nano-brain-hook codex stop" in outcome.path.read_text()
    monkeypatch.delenv(hooks.PROGRAM_ENV)
    assert hooks.program_path().endswith("/nano-brain-hook")


def test_a_symlinked_settings_file_is_written_through_the_link(home: Path, root: Path) -> None:
    dotfiles = home / "dotfiles" / "claude.json"
    write_json(dotfiles, {"model": "opus"})
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    hooks.install("claude-code", "user", root, program=OLD, home=home)
    assert link.is_symlink()
    assert json.loads(dotfiles.read_text())["model"] == "opus"
    assert "SessionEnd" in json.loads(dotfiles.read_text())["hooks"]


# -- files we refuse to rewrite -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hooks": {', "is not valid JSON"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ('{"a": NaN}', "is not valid JSON"),
        ("[1, 2]", "holds a list, not a JSON object"),
        ('{"hooks": []}', '"hooks" is a list, not an object'),
        ('{"hooks": {"Stop": {"hooks": []}}}', '"hooks.Stop" is an object, not a list'),
        ('{"hooks": {"SessionStart": "x"}}', '"hooks.SessionStart" is a string, not a list'),
        ("\xff", "not UTF-8"),
    ],
)
def test_a_file_we_cannot_read_faithfully_is_an_error_and_stays(
    home: Path, root: Path, text: str, message: str
) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    raw = text.encode("latin-1")
    path.write_bytes(raw)
    with pytest.raises(InvalidInputError, match=message.replace("(", r"\(")) as caught:
        hooks.install("claude-code", "user", root, program=OLD, home=home)
    assert str(caught.value).startswith(str(path))
    assert path.read_bytes() == raw
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_a_file_changed_meanwhile_is_not_overwritten(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = home / ".claude" / "settings.json"
    write_json(path, {"model": "opus"})
    merge = hooks.install_into

    def racing(*args: Any) -> Any:
        path.write_text('{"model": "haiku"}\n')  # the agent saves its settings meanwhile
        return merge(*args)

    monkeypatch.setattr(hooks, "install_into", racing)
    with pytest.raises(InvalidInputError, match="changed while it was being edited"):
        hooks.install("claude-code", "user", root, program=OLD, home=home)
    assert path.read_text() == '{"model": "haiku"}\n'
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_a_settings_file_over_the_bound_is_refused(home: Path, root: Path) -> None:
    path = home / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"x": "' + "a" * hooks.MAX_SETTINGS_BYTES + '"}')
    with pytest.raises(InvalidInputError, match="larger than"):
        hooks.install("codex", "user", root, program=OLD, home=home)


def test_an_unknown_agent_or_scope_is_refused(root: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown agent 'cursor'"):
        hooks.settings_path("cursor", "user", root)
    with pytest.raises(InvalidInputError, match="unknown scope 'team'"):
        hooks.settings_path("codex", "team", root)


# -- status ---------------------------------------------------------------------------------


def test_status_reports_each_event_its_command_and_whether_it_runs(
    home: Path, root: Path, program: Path
) -> None:
    hooks.install("claude-code", "user", root, program=program, home=home)
    path = home / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    data["hooks"]["Stop"][0]["hooks"][0]["command"] = "/gone/nano-brain-hook claude-code stop"
    data["hooks"]["PostToolUse"] = [{"hooks": [ours("nano-brain-hook claude-code old")]}]
    write_json(path, data)
    (user, project, local) = hooks.status("claude-code", root, program=program, home=home)
    assert (user.path, user.scopes, user.exists) == (path, ("user",), True)
    by_event = {e.event: e for e in user.events}
    assert by_event["SessionStart"] == hooks.EventStatus(
        "SessionStart",
        True,
        f"'{program}' claude-code session-start",
        str(program),
        True,
        True,
    )
    stop = by_event["Stop"]
    assert (stop.installed, stop.program_ok, stop.current) == (True, False, False)
    assert [o.command for o in user.others] == ["nano-brain-hook claude-code old"]
    assert not project.exists and not any(e.installed for e in project.events)
    assert local.path == root / ".claude" / "settings.local.json"


def test_codex_status_shows_its_shared_project_file_once(home: Path, root: Path) -> None:
    hooks.install("codex", "local", root, program=OLD, home=home)
    files = hooks.status("codex", root, program=OLD, home=home)
    assert [f.scopes for f in files] == [("user",), ("project", "local")]
    assert [e.event for e in files[1].events] == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "Stop",
    ]
    assert all(e.installed and e.current and not e.program_ok for e in files[1].events)


# -- Gemini CLI -----------------------------------------------------------------------------


def gemini_ours(runner: str, arg: str, timeout: int, description: str) -> dict[str, Any]:
    return {
        "name": f"nano-brain-{arg}",
        "type": "command",
        "command": f"{runner} gemini {arg}",
        "timeout": timeout,
        "description": description,
    }


def gemini_entries(runner: str) -> dict[str, Any]:
    """The contract, written out: our events in Gemini CLI's settings, timeouts in ms."""
    start = "nano-brain: adds the project's decisions and recent work at session start"
    prompt = "nano-brain: adds the decisions and notes relevant to each prompt"
    stop = "nano-brain: adds the finished turn to the project's memory"
    end = "nano-brain: adds the ended session to the project's memory"
    return {
        "SessionStart": [
            {"matcher": "*", "hooks": [gemini_ours(runner, "session-start", 10000, start)]}
        ],
        "BeforeAgent": [{"matcher": "*", "hooks": [gemini_ours(runner, "prompt", 10000, prompt)]}],
        "AfterAgent": [{"matcher": "*", "hooks": [gemini_ours(runner, "stop", 10000, stop)]}],
        "SessionEnd": [{"matcher": "*", "hooks": [gemini_ours(runner, "session-end", 5000, end)]}],
    }


def gemini_settings() -> dict[str, Any]:
    """A Gemini CLI settings file: all of its settings, one hook of another tool's."""
    guard = {"name": "guard", "type": "command", "command": "guard.sh", "timeout": 3000}
    return {
        "theme": "GitHub",
        "mcpServers": {"docs": {"command": "docs-mcp", "args": ["--port", "0"], "trust": False}},
        "hooksConfig": {"enabled": True, "disabled": ["guard"]},
        "hooks": {
            "BeforeTool": [{"matcher": "write_file|replace", "sequential": True, "hooks": [guard]}],
            "SessionStart": [{"matcher": "startup", "hooks": [theirs("say hi")]}],
        },
        "general": {"vimMode": True, "preferredEditor": "vim"},
    }


def test_gemini_install_keeps_its_other_settings_and_hooks(home: Path, root: Path) -> None:
    path = home / ".gemini" / "settings.json"
    original = gemini_settings()
    raw = write_json(path, original)
    outcome = hooks.install("gemini", "user", root, program=OLD, home=home)
    assert outcome.path == path and outcome.written
    assert [(c.event, c.action) for c in outcome.changes] == [
        ("SessionStart", "added"),
        ("BeforeAgent", "added"),
        ("AfterAgent", "added"),
        ("SessionEnd", "added"),
    ]
    data = json.loads(path.read_text())
    assert list(data) == ["theme", "mcpServers", "hooksConfig", "hooks", "general"]
    for key in ("theme", "mcpServers", "hooksConfig", "general"):
        assert data[key] == original[key], key
    ours_ = gemini_entries(OLD)
    assert data["hooks"] == {
        "BeforeTool": original["hooks"]["BeforeTool"],  # no before-edit hook of ours
        "SessionStart": original["hooks"]["SessionStart"] + ours_["SessionStart"],
        "BeforeAgent": ours_["BeforeAgent"],
        "AfterAgent": ours_["AfterAgent"],
        "SessionEnd": ours_["SessionEnd"],
    }
    before = path.read_bytes()
    os.utime(path, (1, 1))
    again = hooks.install("gemini", "user", root, program=OLD, home=home)
    assert not again.written and {c.action for c in again.changes} == {"unchanged"}
    assert path.read_bytes() == before and path.stat().st_mtime == 1
    gone = hooks.uninstall("gemini", "user", root, home=home)
    assert gone.written and {c.action for c in gone.changes} == {"removed"}
    assert path.read_bytes() == raw


def test_gemini_has_one_project_file_and_status_lists_its_events(home: Path, root: Path) -> None:
    project = hooks.install("gemini", "project", root, program=OLD, home=home)
    assert project.path == root / ".gemini" / "settings.json"
    assert json.loads(project.path.read_text()) == {"hooks": gemini_entries("nano-brain-hook")}
    local = hooks.install("gemini", "local", root, program=OLD, home=home)
    assert local.path == project.path
    assert json.loads(local.path.read_text()) == {"hooks": gemini_entries(OLD)}
    assert {c.action for c in local.changes} == {"replaced"}
    files = hooks.status("gemini", root, program=OLD, home=home)
    assert [(f.path, f.scopes, f.exists) for f in files] == [
        (home / ".gemini" / "settings.json", ("user",), False),
        (project.path, ("project", "local"), True),
    ]
    assert [e.event for e in files[1].events] == [
        "SessionStart",
        "BeforeAgent",
        "AfterAgent",
        "SessionEnd",
    ]
    assert all(e.installed and e.current and not e.program_ok for e in files[1].events)
    assert files[1].events[3].command == f"{OLD} gemini session-end"
    assert not any(e.installed for e in files[0].events)


def test_gemini_timeouts_are_in_the_agent_table_unit() -> None:
    for agent, scale in (("claude-code", 1), ("codex", 1), ("gemini", 1000)):
        for spec in hooks.specs(agent):
            handler = hooks.handler_for(agent, spec, "project")
            assert handler["timeout"] == spec.timeout * scale, (agent, spec)
            assert ("name" in handler) is (agent == "gemini")


def test_gemini_settings_with_comments_are_refused_and_stay(home: Path, root: Path) -> None:
    # Gemini CLI accepts comments in settings.json; writing it back would lose them
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    text = '{\n  // dark, please\n  "theme": "GitHub"\n}\n'
    path.write_text(text)
    with pytest.raises(InvalidInputError, match="is not valid JSON"):
        hooks.install("gemini", "user", root, program=OLD, home=home)
    assert path.read_text() == text


# -- the command line -----------------------------------------------------------------------


def cli(home: Path, root: Path, *args: str, program: str = OLD) -> subprocess.CompletedProcess[str]:
    assert EXE, "nano-brain is not installed"
    env = dict(os.environ, HOME=str(home), NANO_BRAIN_HOOK_PROGRAM=program)
    return subprocess.run(
        [EXE, "hooks", *args, "--workspace", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_cli_install_status_uninstall(home: Path, root: Path, program: Path) -> None:
    out = cli(home, root, "install", "--agent", "claude-code", program=str(program))
    assert out.returncode == 0, out.stderr
    path = home / ".claude" / "settings.json"
    assert out.stdout.splitlines() == [
        f"claude-code, user scope: {path}",
        "  SessionStart      added",
        "  UserPromptSubmit  added",
        "  PreToolUse        added",
        "  Stop              added",
        "  SessionEnd        added",
        f"each runs: '{program}' claude-code <event>",
    ]
    before = path.read_bytes()
    again = cli(home, root, "install", "--agent", "claude-code", "--json", program=str(program))
    assert again.returncode == 0 and path.read_bytes() == before
    data = json.loads(again.stdout)
    assert data["written"] is False and data["path"] == str(path)
    assert {c["action"] for c in data["changes"]} == {"unchanged"}
    status = cli(
        home, root, "status", "--agent", "claude-code", "--scope", "user", program=str(program)
    )
    assert status.returncode == 0, status.stderr
    assert (
        f"  PreToolUse        installed (current; program ok): '{program}' claude-code pre-edit"
        in status.stdout.splitlines()
    )
    moved = cli(home, root, "status", "--agent", "claude-code", "--scope", "user")
    assert moved.returncode == 0, moved.stderr
    assert "  Stop              installed (differs from this install; program ok)" in moved.stdout
    gone = cli(home, root, "uninstall", "--agent", "claude-code")
    assert gone.returncode == 0 and "  SessionEnd        removed" in gone.stdout
    assert json.loads(path.read_text()) == {}


def test_cli_notes_for_project_scope_and_codex(home: Path, root: Path) -> None:
    out = cli(home, root, "install", "--agent", "codex", "--scope", "project")
    assert out.returncode == 0, out.stderr
    assert "each runs: nano-brain-hook codex <event>" in out.stdout
    assert "must be on the PATH" in out.stdout
    assert "open /hooks in Codex" in out.stdout
    status = json.loads(cli(home, root, "status", "--agent", "codex", "--json").stdout)
    assert [f["scopes"] for f in status] == [["user"], ["project", "local"]]
    assert "SessionEnd" not in (root / ".codex" / "hooks.json").read_text()
    local = cli(home, root, "install", "--agent", "codex", "--scope", "local")
    assert local.returncode == 0 and "keep it out of git" in local.stdout
    assert f"{OLD} codex stop" in (root / ".codex" / "hooks.json").read_text()


def test_cli_refuses_a_broken_file_with_one_line_and_leaves_it(home: Path, root: Path) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": "none"}')
    out = cli(home, root, "install", "--agent", "claude-code")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f'nano-brain: error: {path}: "hooks" is a string, not an object'
    ]
    assert path.read_text() == '{"hooks": "none"}'


def test_cli_gemini_notes_and_status(home: Path, root: Path) -> None:
    out = cli(home, root, "install", "--agent", "gemini", "--scope", "project")
    assert out.returncode == 0, out.stderr
    path = root / ".gemini" / "settings.json"
    assert out.stdout.splitlines()[:6] == [
        f"gemini, project scope: {path}",
        "  SessionStart      added",
        "  BeforeAgent       added",
        "  AfterAgent        added",
        "  SessionEnd        added",
        "each runs: nano-brain-hook gemini <event>",
    ]
    assert "note: Gemini CLI fingerprints project hooks" in out.stdout
    assert (
        "note: Gemini CLI cannot add context before a tool runs: decisions anchored to code "
        "reach it at session start and with prompts"
    ) in out.stdout.splitlines()
    again = cli(home, root, "install", "--agent", "gemini", "--scope", "project")
    assert "nothing changed" in again.stdout and "fingerprints" not in again.stdout
    local = cli(home, root, "install", "--agent", "gemini", "--scope", "local")
    assert local.returncode == 0, local.stderr
    assert "Gemini CLI has one project file, .gemini/settings.json" in local.stdout
    status = cli(home, root, "status", "--agent", "gemini")  # the file of project and local
    assert (
        f"  AfterAgent        installed (current; program not found or not executable): "
        f"{OLD} gemini stop" in status.stdout.splitlines()
    )
    user = cli(home, root, "install", "--agent", "gemini")
    assert "fingerprints" not in user.stdout and "cannot add context" in user.stdout
    gone = cli(home, root, "uninstall", "--agent", "gemini", "--scope", "project")
    assert gone.returncode == 0 and "  BeforeAgent       removed" in gone.stdout
    assert json.loads(path.read_text()) == {}


# -- Claude Code's HTTP handlers (install --http) ---------------------------------------------

BASE = "http://127.0.0.1:8765"


def posts(event: str, timeout: int = 10) -> dict[str, Any]:
    return {
        "type": "http",
        "url": f"{BASE}/hooks/claude-code/{event}",
        "timeout": timeout,
        "headers": {"Authorization": "Bearer $NANO_BRAIN_HOOK_TOKEN"},
        "allowedEnvVars": ["NANO_BRAIN_HOOK_TOKEN"],
    }


def claude_http_expected(runner: str) -> dict[str, Any]:
    """The documented HTTP shape; SessionStart stays a command (Claude Code runs only those)."""
    expected = claude_expected(runner)
    hooks_ = expected["hooks"]
    hooks_["UserPromptSubmit"][0]["hooks"] = [posts("prompt")]
    hooks_["PreToolUse"][0]["hooks"] = [posts("pre-edit")]
    hooks_["Stop"][0]["hooks"] = [posts("stop")]
    hooks_["SessionEnd"][0]["hooks"] = [posts("session-end", 5)]
    return expected


def test_install_http_writes_the_documented_shape_once(home: Path, root: Path) -> None:
    outcome = hooks.install("claude-code", "user", root, program=OLD, home=home, http=BASE + "/")
    text = outcome.path.read_text()
    assert text == json.dumps(claude_http_expected(OLD), indent=2) + "\n"
    again = hooks.install("claude-code", "user", root, program=OLD, home=home, http=BASE)
    assert not again.written and {c.action for c in again.changes} == {"unchanged"}
    assert outcome.path.read_text() == text


def test_http_and_command_installs_replace_each_other(home: Path, root: Path) -> None:
    path = home / ".claude" / "settings.json"
    write_json(path, {"hooks": {"Stop": [{"hooks": [theirs("say done")]}]}})
    hooks.install("claude-code", "user", root, program=OLD, home=home, http=BASE)
    data = json.loads(path.read_text())
    assert data["hooks"]["Stop"] == [{"hooks": [theirs("say done")]}, {"hooks": [posts("stop")]}]
    back = hooks.install("claude-code", "user", root, program=OLD, home=home)
    changed = {c.event: c.action for c in back.changes}
    assert changed == {
        "SessionStart": "unchanged",
        "UserPromptSubmit": "replaced",
        "PreToolUse": "replaced",
        "Stop": "replaced",
        "SessionEnd": "replaced",
    }
    expected = claude_expected(OLD)
    expected["hooks"]["Stop"].insert(0, {"hooks": [theirs("say done")]})
    assert json.loads(path.read_text()) == expected
    hooks.install("claude-code", "user", root, program=OLD, home=home, http="http://[::1]:9000")
    stop = json.loads(path.read_text())["hooks"]["Stop"]
    assert stop[1]["hooks"][0]["url"] == "http://[::1]:9000/hooks/claude-code/stop"


def test_uninstall_removes_the_http_handlers(home: Path, root: Path) -> None:
    path = home / ".claude" / "settings.json"
    write_json(path, {"model": "opus"})
    hooks.install("claude-code", "user", root, program=OLD, home=home, http=BASE)
    gone = hooks.uninstall("claude-code", "user", root, home=home)
    assert {c.action for c in gone.changes} == {"removed"}
    assert json.loads(path.read_text()) == {"model": "opus"}


@pytest.mark.parametrize(
    ("handler", "mine"),
    [
        (posts("stop"), True),
        ({"type": "http", "url": "http://localhost/x/hooks/claude-code/prompt"}, True),
        ({"type": "http", "url": "http://127.0.0.1:1/hooks/claude-code/other"}, False),
        ({"type": "http", "url": "http://127.0.0.1:1/hooks/codex/stop"}, False),
        ({"type": "command", "url": "http://127.0.0.1:1/hooks/claude-code/stop"}, False),
        ({"type": "http", "url": 7}, False),
    ],
)
def test_an_http_handler_is_ours_by_its_route(handler: dict[str, Any], mine: bool) -> None:
    assert hooks.is_ours(handler) is mine


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://10.0.0.1:8765", "not a loopback host"),
        ("http://example.com:8765", "not a loopback host"),
        ("https://127.0.0.1:8765", "expected http://HOST:PORT"),
        ("127.0.0.1:8765", "expected http://HOST:PORT"),
        ("http://u@127.0.0.1:8765", "no user, query or fragment"),
        ("http://127.0.0.1:port", "is not a URL"),
    ],
)
def test_http_refuses_what_is_not_loopback_http_and_leaves_the_file(
    home: Path, root: Path, url: str, message: str
) -> None:
    path = home / ".claude" / "settings.json"
    raw = write_json(path, {"hooks": {}})
    with pytest.raises(InvalidInputError, match=message):
        hooks.install("claude-code", "user", root, program=OLD, home=home, http=url)
    assert path.read_bytes() == raw


def test_status_shows_http_handlers_with_their_url(home: Path, root: Path) -> None:
    hooks.install("claude-code", "user", root, program=OLD, home=home, http=BASE)
    (user,) = hooks.status("claude-code", root, ("user",), program=OLD, home=home)
    by_event = {e.event: e for e in user.events}
    assert by_event["Stop"] == hooks.EventStatus(
        "Stop", True, None, None, False, True, f"{BASE}/hooks/claude-code/stop"
    )
    assert by_event["SessionStart"].command == f"{OLD} claude-code session-start"


def test_cli_install_http_notes_status_and_refusals(home: Path, root: Path) -> None:
    out = cli(home, root, "install", "--agent", "claude-code", "--http", BASE, "--scope", "local")
    assert out.returncode == 0, out.stderr
    path = root / ".claude" / "settings.local.json"
    assert json.loads(path.read_text()) == claude_http_expected(OLD)
    lines = out.stdout.splitlines()
    assert f"SessionStart runs: {OLD} claude-code session-start" in lines
    assert f"the others post to: {BASE}/hooks/claude-code/<event>" in lines
    assert f"`nano-brain serve --workspace {root} --port 8765`" in out.stdout
    assert "non-blocking hook error" in out.stdout
    assert "export NANO_BRAIN_HOOK_TOKEN" in out.stdout and "mcp-config" in out.stdout
    status = cli(home, root, "status", "--agent", "claude-code", "--scope", "local")
    assert (
        f"  Stop              installed (current; http): POST {BASE}/hooks/claude-code/stop"
        in status.stdout.splitlines()
    )
    before = path.read_bytes()
    codex = cli(home, root, "install", "--agent", "codex", "--http", BASE)
    assert codex.returncode == 2 and "--http is for claude-code only" in codex.stderr
    assert not (home / ".codex").exists()
    remote = cli(home, root, "install", "--agent", "claude-code", "--http", "http://10.1.2.3:80")
    assert remote.returncode == 2 and "travel in clear" in remote.stderr
    assert not (home / ".claude").exists() and path.read_bytes() == before
