"""`nano-brain-hook AGENT EVENT`: answer one agent hook event, fast, and never break the agent.

The agent runs this program for every hook event with the event's JSON on stdin. It answers
in one of three ways:

1. the workspace's running sidecar or `serve` (its endpoint file names the socket): the input
   is posted to ``/hooks/<agent>/<event>`` and its answer printed. Prompts, stops and team
   stores go there first; before an edit and at session start the quick path is faster and
   reads the same, so the server is asked only when there is no valid profile;
2. the quick path: the workspace's hook profile (`brief.profile`) names the store, which is
   read with `QuickReader` (no config loading, no embedding runtime);
3. the full path, when there is no valid profile yet: the config is loaded once and the
   profile written, then as 2.

Whatever happens (no store, a locked or damaged store, bad input, a store of another workspace,
the deadline passing) it exits 0; it prints the agent's JSON output or nothing, and a failure
writes one line to stderr (which the agents keep in their debug logs).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..brief.hookio import EMPTY_ANSWER, MAX_INPUT_BYTES, HookRequest, answer, parse

#: The variable in which an agent names the project folder it started in.
_PROJECT_DIR_VARS = {"claude-code": "CLAUDE_PROJECT_DIR", "gemini": "GEMINI_PROJECT_DIR"}
#: Events a hook process answers itself when the workspace's profile is valid.
_LOCAL_EVENTS = ("pre-edit", "session-start")
_DEADLINE_S = 5.0
"""The deadline before the profile is read (its `deadline_ms` then applies)."""


def main(argv: list[str] | None = None) -> int:
    """The console script's entry point; always returns 0."""
    started = time.monotonic()
    args = sys.argv[1:] if argv is None else argv
    empty = EMPTY_ANSWER.get(args[0]) if args else None
    watchdog = _arm(_DEADLINE_S, empty)
    output: dict[str, Any] | None = None
    try:
        if len(args) != 2:
            _note("usage: nano-brain-hook AGENT EVENT (input JSON on stdin)")
        else:
            raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
            request = parse(args[0], args[1], raw)
            if request is None:
                _note(f"{args[0]} {args[1]}: the input is not a hook event this program knows")
            else:
                output = _answer(request, raw, started, watchdog)
    except Exception as exc:  # a hook must never break the agent's loop
        _note(f"{args[:2]}: {exc.__class__.__name__}: {exc}")
    finally:
        watchdog.cancel()
    _print(output if output is not None else empty)
    return 0


def _answer(
    request: HookRequest, raw: bytes, started: float, watchdog: threading.Timer
) -> dict[str, Any] | None:
    root = _workspace_root(request)
    if root is None:
        return None
    from .. import paths
    from ..brief.profile import build_profile, read_profile

    profile = read_profile(root)
    # the briefs before an edit and at session start read the store file the same way here
    # as in a server, and faster than a round trip to it; a prompt (which a server can also
    # match by meaning), a stop (harvested in the server's thread) and a team store go there
    local = profile is not None and not profile.team and request.event in _LOCAL_EVENTS
    if not local:
        served = _ask_server(paths.workspace_id(root), request, raw, started)
        if served is not None:
            return served or None
    profile = profile or build_profile(root)
    if not profile.enabled or profile.team:
        return None  # a team store's notes are on the server: only a sidecar can answer
    watchdog.cancel()
    remaining = profile.deadline_ms / 1000 - (time.monotonic() - started)
    _arm(max(0.05, remaining), EMPTY_ANSWER.get(request.agent))
    from ..brief.briefs import Briefs

    with Briefs.open(Path(profile.db_path), profile.workspace_id, root, profile.budgets) as briefs:
        return answer(
            request,
            briefs,
            pinned_decisions=profile.pinned_decisions,
            harvest=lambda req: _harvest_later(req.agent, root),
        )


def _workspace_root(request: HookRequest) -> Path | None:
    """The workspace the agent works in: the nearest folder, from the agent's project folder
    or cwd upwards, that has a store or a hook profile."""
    from .. import paths

    start = os.environ.get(_PROJECT_DIR_VARS.get(request.agent, ""))
    folder = Path(start or request.cwd or os.getcwd())
    if not folder.is_absolute():
        return None
    folder = paths.workspace_root(folder)
    for candidate in (folder, *folder.parents):
        profile = paths.workspace_state_path(
            paths.workspace_id(candidate), paths.HOOKS_PROFILE_FILE
        )
        if profile.exists() or paths.default_db_path(candidate).exists():
            return candidate
    return None


def _ask_server(
    workspace_id: str, request: HookRequest, raw: bytes, started: float
) -> dict[str, Any] | None:
    """The running server's answer ({} for "nothing to add"); None when no server answered."""
    from .. import paths

    if not paths.workspace_state_path(workspace_id, paths.ENDPOINT_FILE).exists():
        return None  # no server has run here: skip the imports of reading its endpoint
    from ..serving.statefiles import read_endpoint

    endpoint = read_endpoint(workspace_id)
    if endpoint is None:
        return None
    from .client import post_hook  # http.client: imported only when a server runs

    remaining = _DEADLINE_S - (time.monotonic() - started)
    return post_hook(endpoint, f"/hooks/{request.agent}/{request.event}", raw, remaining)


def _harvest_later(agent: str, root: Path) -> None:
    """Harvest the agent's sessions in a detached process (the hook returns at once)."""
    import subprocess

    subprocess.Popen(
        [sys.executable, "-m", "nano_brain.hooks.harvest_now", agent, str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def _arm(seconds: float, empty: dict[str, Any] | None) -> threading.Timer:
    """Exit once `seconds` pass, printing only what the agent takes for "nothing": the agent
    goes on without this hook."""

    def expire() -> None:
        _note(f"no answer within {seconds:.2f} s: nothing added")
        _print(empty)
        os._exit(0)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


def _print(output: dict[str, Any] | None) -> None:
    if output is not None:
        sys.stdout.write(json.dumps(output, ensure_ascii=False))
        sys.stdout.flush()


def _note(line: str) -> None:
    try:
        sys.stderr.write(f"nano-brain-hook: {line}\n")
        sys.stderr.flush()
    except Exception:
        pass


if __name__ == "__main__":
    sys.exit(main())
