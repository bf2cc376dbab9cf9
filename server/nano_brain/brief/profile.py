"""What a hook needs of a workspace's config, kept so that a hook process need not load it.

Loading the config (YAML, pydantic, the trust verdict on the workspace file) costs more than a
hook's whole budget. The full path (`build_profile`: the first hook in a workspace, `nano-brain
hooks install`, a sidecar) loads it once and writes the few values a hook reads, with the
signature of every input that decided them: the user's and the workspace's config files, the
trusted-files list (size and modification time) and the ``NANO_BRAIN_*`` environment. A hook
reads the profile (`read_profile`) and uses it only while that signature still holds; any
change sends the next hook down the full path again, which writes a fresh profile.

The profile is a private file (0600, ``<state>/workspaces/<id>/hooks-profile.json``), never
the workspace's: a repository cannot plant one.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from .. import paths
from ..lazylog import LazyLogger
from ..privatefiles import private_dir, read_private, write_private
from .briefs import Budgets

log = LazyLogger(__name__)  # on an agent hook's path: see lazylog

PROFILE_VERSION = 1
_WORKSPACE_FILE = ".nano-brain.yml"  # config.WORKSPACE_CONFIG_NAME (a test checks they agree)
_TRUST_FILE = "trusted-configs.json"  # trust.TRUST_FILE (a test checks they agree)


class Profile(NamedTuple):
    """A workspace's hook settings, as its config decided them."""

    root: str
    workspace_id: str
    db_path: str
    team: bool
    """A team store (PostgreSQL): notes are not in the local file, so hooks need a sidecar."""
    enabled: bool
    budgets: Budgets
    pinned_decisions: str
    deadline_ms: int
    signature: list[Any]


def profile_path(workspace_id: str) -> Path:
    return paths.workspace_state_path(workspace_id, paths.HOOKS_PROFILE_FILE)


def signature(root: Path) -> list[Any]:
    """What the config of `root` was decided from: files as (path, size, mtime), and the
    environment's nano-brain variables as a digest."""
    user = Path(os.environ.get("NANO_BRAIN_CONFIG", paths.config_dir() / "config.yml"))
    files = [user, root / _WORKSPACE_FILE, paths.state_dir() / _TRUST_FILE]
    out: list[Any] = []
    for file in files:
        try:
            info = os.stat(file)
            out.append([str(file), info.st_size, info.st_mtime_ns])
        except OSError:
            out.append([str(file), None, None])
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("NANO_BRAIN_"))
    out.append(hashlib.sha256(json.dumps(env).encode()).hexdigest())
    return out


def read_profile(root: Path) -> Profile | None:
    """The workspace's profile while its signature holds; None otherwise (missing, damaged,
    written by another version, or the config may have changed)."""
    try:
        data = json.loads(read_private(profile_path(paths.workspace_id(root)), limit=65536))
        if data.get("version") != PROFILE_VERSION or data.get("root") != str(root):
            return None
        profile = Profile(
            root=data["root"],
            workspace_id=data["workspace_id"],
            db_path=data["db_path"],
            team=bool(data["team"]),
            enabled=bool(data["enabled"]),
            budgets=Budgets(**data["budgets"]),
            pinned_decisions=str(data["pinned_decisions"]),
            deadline_ms=int(data["deadline_ms"]),
            signature=data["signature"],
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return profile if profile.signature == signature(root) else None


def build_profile(root: Path) -> Profile:
    """Load the workspace's config (the slow part) and write its profile."""
    from ..config import load_config
    from ..store import code_index_path

    before = signature(root)  # taken first: a change while loading makes the profile stale
    config = load_config(root).config
    db = config.storage.db_path or paths.default_db_path(root)
    team = bool(config.storage.url)
    profile = Profile(
        root=str(root),
        workspace_id=paths.workspace_id(root),
        db_path=str(code_index_path(Path(db)) if team else db),
        team=team,
        enabled=config.hooks.enabled,
        budgets=Budgets(
            session_start=config.hooks.session_start_chars,
            before_edit=config.hooks.before_edit_chars,
            prompt=config.hooks.prompt_chars,
        ),
        pinned_decisions=config.hooks.pinned_decisions,
        deadline_ms=config.hooks.deadline_ms,
        signature=before,
    )
    path = profile_path(profile.workspace_id)
    try:
        private_dir(path.parent)
        write_private(
            path,
            json.dumps(
                {
                    "version": PROFILE_VERSION,
                    **profile._asdict(),
                    "budgets": profile.budgets._asdict(),
                }
            )
            + "\n",
        )
    except OSError as exc:  # read-only state folder: the hooks still answer, only slower
        log.info("cannot write %s: %s", path, exc)
    return profile
