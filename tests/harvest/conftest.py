"""Harvest fixtures: a temporary home with the agents' folders and a real store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.harvest import HarvestLocations

from ..conftest import TinyEmbedder


@pytest.fixture
def home(tmp_path: Path) -> HarvestLocations:
    """The agents' default folder layout below a temporary home (folders created lazily)."""
    return HarvestLocations.under_home(tmp_path / "home")


@pytest.fixture
def hbrain(workspace: Path) -> Iterator[Brain]:
    """A real store for the workspace, written to as the harvester (tiny embedder: speed)."""
    with Brain(workspace, provider=TinyEmbedder(), actor="harvest") as brain:
        yield brain
