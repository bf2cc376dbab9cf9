"""nano-brain's folders are where platformdirs puts them (paths spells the XDG rule itself on
Linux, to keep platformdirs' imports out of agent hooks)."""

from __future__ import annotations

import platformdirs
import pytest

from nano_brain import paths

VARIABLES = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


@pytest.mark.parametrize(
    "values",
    [
        {},
        {
            "XDG_DATA_HOME": "/srv/d",
            "XDG_CONFIG_HOME": "/srv/c",
            "XDG_STATE_HOME": "/srv/s",
            "XDG_CACHE_HOME": "/srv/k",
        },
        {"XDG_DATA_HOME": "   ", "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "relative/c"},
    ],
    ids=["defaults", "all-set", "blank-and-relative"],
)
def test_folders_match_platformdirs(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, str]
) -> None:
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in values.items():
        monkeypatch.setenv(variable, value)
    for kind in ("data", "config", "state", "cache"):
        expected = getattr(platformdirs, f"user_{kind}_dir")("nano-brain", appauthor=False)
        assert str(getattr(paths, f"{kind}_dir")()) == expected, kind
