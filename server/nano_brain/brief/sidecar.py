"""Briefs answered by a running sidecar or `serve`: the open workspace, meaning for prompts.

A hook process that finds the workspace's server running posts the agent's input to
``/hooks/<agent>/<event>`` (Claude Code's HTTP hooks post there themselves); the server answers
with the same `hookio.answer` as the hook process, with two differences: a prompt whose words
match no note gets the notes nearest it by meaning, above the relevance floor for unasked
memory (the embedding models are loaded already), and a stop harvests the session in the
server's own thread.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..search import SearchRequest
from ..store import QuickReader, QuickReaderError
from ..timeutil import parse_instant
from .briefs import Briefs, Budgets
from .hookio import HookRequest, answer, parse
from .render import BriefItem

if TYPE_CHECKING:
    from ..workspace import Workspace

log = logging.getLogger(__name__)

_DEPTH = 20
"""Candidates each search leg brings to fusion for a prompt's memory."""


class SidecarBriefs:
    """The hooks' answers for one open workspace (one per server, shared by requests)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._harvesting = threading.Lock()
        self._again = threading.Event()
        # one reader for every hook: its page cache stays warm (a fresh connection reads the
        # full-text index's structure again each time); hooks take turns on it
        self._reader: QuickReader | None = None
        self._reading = threading.Lock()

    def handle(self, agent: str, event: str, body: bytes) -> dict[str, Any] | None:
        """The agent's output for one hook input (None: add nothing)."""
        request = parse(agent, event, body)
        config = self.workspace.config.hooks
        if request is None or not config.enabled or not self._ours(request.cwd):
            return None
        budgets = Budgets(config.session_start_chars, config.before_edit_chars, config.prompt_chars)
        with self._reading:
            try:
                reader = self._open_reader()
                briefs = Briefs(reader, self.workspace.root, budgets, search=self._search)
                return answer(
                    request, briefs, pinned_decisions=config.pinned_decisions, harvest=self._harvest
                )
            except QuickReaderError as exc:
                log.info("hook %s %s: %s", agent, event, exc)
                self.close()
                return None

    def _ours(self, cwd: str) -> bool:
        """Whether the agent works in this server's workspace: a server answers with its own
        workspace's memory only, and an HTTP hook installed for every project posts here
        from all of them."""
        if not cwd:
            return True  # the agents document cwd; a bare request gets the workspace's own
        try:
            return Path(cwd).resolve().is_relative_to(self.workspace.root)
        except (OSError, ValueError):
            return False

    def _open_reader(self) -> QuickReader:
        if self._reader is None:
            brain = self.workspace.brain
            self._reader = QuickReader(brain.store_path, brain.workspace_id)
        return self._reader

    def close(self) -> None:
        """Close the reader (the next hook opens another)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _search(self, text: str, limit: int) -> list[BriefItem]:
        """Notes and sessions nearest a prompt by meaning, above the floor for memory offered
        unasked (the words were looked up already: the vector leg alone, 10 ms where the
        lexical leg ranks every match of common words)."""
        request = SearchRequest(
            query=text[:1000],
            mode="vector",
            kind=["note", "session"],
            limit=limit,
            floor="related",
            track=False,
            depth=_DEPTH,
        )
        found = self.workspace.brain.search(request)
        return [
            BriefItem(
                id=hit.id,
                title=hit.title,
                origin=hit.origin,
                status=hit.status,
                snippet=hit.snippet[:240],
                updated_at=parse_instant(hit.updated_at),  # an `iso()` stamp
            )
            for hit in found.results
        ]

    def _harvest(self, request: HookRequest) -> None:
        """Harvest the agent's sessions now, in a thread; a stop during a harvest runs one
        more pass after it (the session grew meanwhile)."""
        self._again.set()
        if not self._harvesting.acquire(blocking=False):
            return

        def run() -> None:
            try:
                while self._again.is_set():
                    self._again.clear()
                    self.workspace.harvester.run_once(agents=[request.agent])
            except Exception:
                log.warning("harvest after a hook failed", exc_info=True)
            finally:
                self._harvesting.release()

        threading.Thread(target=run, name="hook-harvest", daemon=True).start()
