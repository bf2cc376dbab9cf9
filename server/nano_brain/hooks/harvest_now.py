"""`python -m nano_brain.hooks.harvest_now AGENT ROOT`: a stop hook's harvest, detached.

One harvest per workspace at a time: a harvest that finds another running marks the
workspace for one more pass and exits; the running one makes that pass when it finishes, so
the session's last turns are harvested too.
"""

from __future__ import annotations

import fcntl
import logging
import sys
from pathlib import Path

log = logging.getLogger("nano_brain.hooks")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        return 2
    agent, root = argv[0], Path(argv[1])
    from .. import paths
    from ..privatefiles import private_dir

    folder = private_dir(paths.state_dir() / "workspaces" / paths.workspace_id(root))
    again = folder / "hook-harvest.again"
    again.touch()
    with open(folder / "hook-harvest.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # the running harvest sees `again` and makes one more pass
        from ..config import load_config
        from ..workspace import Workspace

        # the summaries are written now; their vectors wait for the next index or sidecar,
        # so a stop hook after every turn never loads the embedding models
        config = load_config(root, overrides={"embedding": {"embed_on_write": False}})
        with Workspace.open(root, config=config, actor="harvest", create=False) as ws:
            while again.exists():
                again.unlink(missing_ok=True)
                ws.harvester.run_once(agents=[agent])  # type: ignore[list-item]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
