"""The sidecar harvests this workspace's agent sessions while the editor is open."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from nano_brain import Brain, Filters
from nano_brain.config import load_config
from nano_brain.harvest import HarvestLocations

from ..harvest import _layout
from .conftest import start, stop


def test_sidecar_harvests_sessions_when_enabled(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("NANO_BRAIN_HARVEST__SETTLE_S", "0")  # the copy is fresh: don't wait
    _layout.claude(HarvestLocations.under_home(home), project.resolve())

    lexical = load_config(project, overrides={"embedding": {"provider": "none"}})

    async def body() -> None:
        session = await start(
            project, options={"harvest": {"enabled": True}, "index": {"enabled": False}}
        )
        try:
            deadline = time.monotonic() + 60
            titles: list[str] = []
            while time.monotonic() < deadline and not titles:
                await asyncio.sleep(0.5)
                with Brain(project, config=lexical) as brain:
                    titles = [d.title for d in brain.list(Filters(kinds=("session",)))]
            # the goal of the fixture session, read off its first user message
            assert titles and "create hello.py, md and js" in titles[0]
        finally:
            await stop(session)

    asyncio.run(body())
