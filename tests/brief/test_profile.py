"""The hook profile's own spelling of the config file names agrees with the config's."""

from __future__ import annotations

from pathlib import Path

from nano_brain import paths
from nano_brain.brief import profile
from nano_brain.config import WORKSPACE_CONFIG_NAME
from nano_brain.trust import TRUST_FILE


def test_the_signature_watches_the_files_the_config_reads(workspace: Path) -> None:
    assert profile._WORKSPACE_FILE == WORKSPACE_CONFIG_NAME
    assert profile._TRUST_FILE == TRUST_FILE
    watched = {entry[0] for entry in profile.signature(workspace)[:-1]}
    assert str(workspace / WORKSPACE_CONFIG_NAME) in watched
    assert str(paths.state_dir() / TRUST_FILE) in watched
    assert str(paths.config_dir() / "config.yml") in watched


def test_a_written_profile_holds_until_an_input_changes(workspace: Path) -> None:
    built = profile.build_profile(workspace)
    assert profile.read_profile(workspace) == built
    (workspace / WORKSPACE_CONFIG_NAME).write_text("hooks:\n  promptChars: 500\n")
    assert profile.read_profile(workspace) is None
    rebuilt = profile.build_profile(workspace)
    assert rebuilt.budgets.prompt == 500 and profile.read_profile(workspace) == rebuilt
