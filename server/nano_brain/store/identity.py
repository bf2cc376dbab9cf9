"""Team mode's names: the workspace's shared name, and the person writing.

Every clone of a repository must find the same workspace in the team's database, and the
folder's path (the local store's id) differs from machine to machine: the name comes from
`storage.workspace`, else the repository's `origin` remote (normalised: no scheme, user or
`.git`), else the local id. The person comes from `user.name`, else git's `user.name`, else
the login name.
"""

from __future__ import annotations

import getpass
import re
import subprocess
from pathlib import Path

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(.+)$")


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip()
    return value if out.returncode == 0 and value else None


def normalise_remote(url: str) -> str:
    """``git@github.com:org/repo.git`` and ``https://user@github.com/org/repo`` alike become
    ``github.com/org/repo``."""
    text = url.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
        text = text.split("@", 1)[1] if "@" in text.split("/", 1)[0] else text
    else:
        found = _SCP_LIKE.match(text)
        if found:
            text = f"{found.group(1)}/{found.group(2)}"
    text = text.rstrip("/")
    if text.endswith(".git"):
        text = text[:-4]
    return text.lower()


def team_workspace(configured: str | None, root: Path, local_id: str) -> str:
    if configured:
        return configured
    remote = _git(root, "config", "--get", "remote.origin.url")
    return normalise_remote(remote) if remote else local_id


def person(configured: str | None, root: Path) -> str:
    if configured:
        return configured
    found = _git(root, "config", "--get", "user.name")
    if found:
        return found
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"
