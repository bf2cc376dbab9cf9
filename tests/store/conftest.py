"""Running the real `nano-brain` console script on a store, as its owner or as another user;
Brains on a team store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import load_config

#: Root ignores file permissions; a reader run by root drops the capabilities that let it
#: (util-linux's setpriv), so a read-only folder is read-only to it as to anyone else.
_NO_OVERRIDE = ("--bounding-set=-dac_override,-dac_read_search,-fowner", "--")


def nano_brain_exe() -> str:
    script = Path(sys.executable).with_name("nano-brain")
    found = str(script) if script.exists() else shutil.which("nano-brain")
    assert found, "the nano-brain console script is not installed (pip install -e .)"
    return found


def run_cli(
    *args: str,
    home: Path,
    as_reader: bool = False,
    timeout: float = 120,
    env_extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`nano-brain ARGS` with the lexical leg only; ``as_reader`` runs it as a user who may
    read but not write the store (the same user unless the tests run as root); `env_extra`
    is added to its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    env["NANO_BRAIN_EMBEDDING__PROVIDER"] = "none"
    env.update(env_extra or {})
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    env["HOME"] = str(home)
    prefix: list[str] = []
    if as_reader and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot read as a plain user")
        prefix = [setpriv, *_NO_OVERRIDE]
    return subprocess.run(
        [*prefix, nano_brain_exe(), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=home,
    )


@pytest.fixture
def open_dir(tmp_path: Path) -> Iterator[Path]:
    """A temporary folder with a home for the CLI, made writable again at teardown."""
    (tmp_path / "home").mkdir()
    try:
        yield tmp_path
    finally:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)


def one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    """The error line of a failed command; asserts it is one line and no traceback."""
    err = out.stderr.strip()
    assert err.startswith("nano-brain: error:"), err
    assert "\n" not in err and "Traceback" not in err, err
    return err


def team_brain(root: Path, url: str, workspace: str, user: str = "Ann") -> Brain:
    """A Brain on a team store's workspace, embeddings off."""
    root.mkdir(parents=True, exist_ok=True)
    config = load_config(
        root,
        overrides={
            "storage": {"url": url, "workspace": workspace},
            "user": {"name": user},
            "embedding": {"provider": "none"},
        },
    )
    return Brain(root, config=config)
