"""Token and endpoint files: 0600 in a 0700 folder, atomic, never through a symlink."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from nano_brain.errors import InvalidInputError
from nano_brain.serving.security import load_or_create_token
from nano_brain.serving.statefiles import (
    Endpoint,
    endpoint_path,
    read_endpoint,
    read_private,
    remove_endpoint,
    token_path,
    workspace_state_dir,
    write_endpoint,
    write_private,
)

WID = "0123456789abcdef"


def endpoint(pid: int | None = None) -> Endpoint:
    return Endpoint(
        url="http://127.0.0.1:8765/mcp",
        socket=None,
        auth=True,
        token_file="/x/mcp-token",
        pid=os.getpid() if pid is None else pid,
        workspace="/ws",
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_files_are_0600_in_a_0700_folder_even_under_a_loose_umask() -> None:
    old = os.umask(0)
    try:
        path = write_endpoint(WID, endpoint())
        token = load_or_create_token(WID)
    finally:
        os.umask(old)
    assert mode(path) == 0o600 and mode(token_path(WID)) == 0o600
    assert mode(path.parent) == 0o700
    assert read_endpoint(WID) == endpoint()
    assert load_or_create_token(WID) == token, "the token is made once, then reused"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_loose_folder_or_token_file_is_tightened() -> None:
    folder = workspace_state_dir(WID)
    os.chmod(folder, 0o755)
    token = load_or_create_token(WID)
    os.chmod(token_path(WID), 0o644)
    assert load_or_create_token(WID) == token
    assert mode(token_path(WID)) == 0o600 and mode(folder) == 0o700


def test_symlinks_are_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("do not touch")
    path = endpoint_path(WID)
    path.symlink_to(secret)
    assert read_endpoint(WID) is None, "a symlinked endpoint file is not read"
    with pytest.raises(OSError):
        read_private(path)
    write_endpoint(WID, endpoint())  # replaces the link itself, not its target
    assert secret.read_text() == "do not touch"
    assert not path.is_symlink() and read_endpoint(WID) == endpoint()

    token_path(WID).symlink_to(secret)
    with pytest.raises(InvalidInputError, match="cannot read token file"):
        load_or_create_token(WID)
    assert secret.read_text() == "do not touch"


def test_a_symlinked_state_folder_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "attacker-controlled"
    target.mkdir()
    folder = workspace_state_dir(WID)
    folder.rmdir()
    folder.symlink_to(target, target_is_directory=True)
    with pytest.raises(InvalidInputError, match="not a directory"):
        workspace_state_dir(WID)


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{not json",
        "[]",
        json.dumps({**endpoint()._asdict(), "pid": 0}),  # kill(0, 0) would signal our group
        json.dumps({**endpoint()._asdict(), "pid": -1}),
        json.dumps({**endpoint()._asdict(), "pid": True}),
        json.dumps({**endpoint()._asdict(), "pid": 2**40}),  # no such process
        json.dumps({**endpoint()._asdict(), "auth": "yes"}),
        json.dumps({**endpoint()._asdict(), "extra": 1}),
        json.dumps({"url": "http://x"}),
        "x" * (70 * 1024),
    ],
)
def test_a_damaged_or_stale_endpoint_file_reads_as_no_server(content: str) -> None:
    write_private(endpoint_path(WID), content)
    assert read_endpoint(WID) is None


def test_an_endpoint_file_is_removed_only_by_the_process_that_wrote_it() -> None:
    write_endpoint(WID, endpoint(pid=1))  # another (live) process owns it now
    remove_endpoint(WID)
    assert endpoint_path(WID).exists()
    write_endpoint(WID, endpoint())
    remove_endpoint(WID)
    assert not endpoint_path(WID).exists()


def test_a_damaged_token_file_is_a_clear_error() -> None:
    write_private(token_path(WID), "short\n")
    with pytest.raises(InvalidInputError, match="damaged; delete it"):
        load_or_create_token(WID)
    write_private(token_path(WID), "x" * 5000)
    with pytest.raises(InvalidInputError, match="larger than"):
        load_or_create_token(WID)
