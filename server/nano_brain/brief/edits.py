"""What an agent's edit touches: files, and the lines of each that the edit replaces.

Agents describe an edit before it runs in their own words: Claude Code's ``Edit`` (a file and
the old text), ``MultiEdit`` (several old texts), ``Write`` and ``NotebookEdit`` (a whole file);
Codex's ``apply_patch`` (a patch envelope naming files, whose hunks hold the old lines). Each
becomes an `EditTarget`; `touched_lines` finds the old text in the file as it is now, so the
symbols on those lines can be looked up in the code index. Every read is bounded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

MAX_FILE_BYTES = 4 * 1024 * 1024
"""A file larger than this is not read: the edit counts as touching the whole file."""
MAX_TARGETS = 20
"""Files one edit names at most (a patch over more is read for its first 20)."""
_WHOLE_FILE_TOOLS = {"Write": "file_path", "NotebookEdit": "notebook_path"}


class EditTarget(NamedTuple):
    """One file an edit changes; `old_texts` empty: the whole file (a write, a new file)."""

    path: str
    old_texts: tuple[str, ...] = ()


def edit_targets(tool_name: str, tool_input: Mapping[str, Any]) -> list[EditTarget]:
    """The files (as the agent named them) and old texts of one tool call; [] when the tool
    does not edit files or its input is not what the agent documents."""
    if tool_name in ("Edit", "MultiEdit"):
        path = tool_input.get("file_path")
        if not isinstance(path, str) or not path:
            return []
        if tool_name == "Edit":
            olds = [tool_input.get("old_string")]
        else:
            edits = tool_input.get("edits")
            olds = (
                [e.get("old_string") for e in edits if isinstance(e, Mapping)]
                if isinstance(edits, list)
                else []
            )
        return [EditTarget(path, tuple(o for o in olds if isinstance(o, str) and o.strip()))]
    if tool_name in _WHOLE_FILE_TOOLS:
        path = tool_input.get(_WHOLE_FILE_TOOLS[tool_name])
        return [EditTarget(path)] if isinstance(path, str) and path else []
    if tool_name == "apply_patch":
        patch = tool_input.get("command") or tool_input.get("patch") or tool_input.get("input")
        if isinstance(patch, list):  # some versions pass argv: ["apply_patch", "<patch>"]
            patch = next((p for p in reversed(patch) if isinstance(p, str) and "***" in p), None)
        return patch_targets(patch) if isinstance(patch, str) else []
    return []


def patch_targets(patch: str) -> list[EditTarget]:
    """The files of a Codex ``apply_patch`` envelope (``*** Update File: p`` and friends) with
    each hunk's old lines (context and removed) as one old text."""
    targets: list[EditTarget] = []
    path: str | None = None
    hunks: list[str] = []
    hunk: list[str] = []

    def close_hunk() -> None:
        if any(line.strip() for line in hunk):
            hunks.append("\n".join(hunk))
        hunk.clear()

    def close_file() -> None:
        close_hunk()
        if path is not None and len(targets) < MAX_TARGETS:
            targets.append(EditTarget(path, tuple(hunks)))
        hunks.clear()

    for line in patch.splitlines():
        if line.startswith("*** Update File: ") or line.startswith("*** Delete File: "):
            close_file()
            path = line.split(": ", 1)[1].strip()
        elif line.startswith("*** Add File: "):
            close_file()
            path = None  # a new file: no memory is anchored to it yet
        elif line.startswith("*** "):  # Move to / End of File / End Patch
            continue
        elif line.startswith("@@"):
            close_hunk()
        elif path is not None and line[:1] in (" ", "-"):
            hunk.append(line[1:])
    close_file()
    return targets


def relative_path(root: Path, path: str) -> str | None:
    """`path` (absolute, or relative to the root) as the code index names it (relative,
    POSIX); None when it is outside the workspace."""
    full = Path(path) if os.path.isabs(path) else root / path
    try:
        return Path(os.path.normpath(full)).relative_to(root).as_posix()
    except ValueError:
        return None


def touched_lines(file: Path, old_texts: Sequence[str]) -> list[tuple[int, int]] | None:
    """The 1-based inclusive line spans where the old texts stand in the file now; [] for
    the whole file (no old text given, or a file too large to read); None when no old text
    is in the file (the edit would fail: nothing to say about it)."""
    if not old_texts:
        return []
    try:
        with open(file, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return []
    text = data.decode("utf-8", errors="replace")
    spans: list[tuple[int, int]] = []
    for old in old_texts:
        at = text.find(old)
        while at != -1 and len(spans) < 50:
            first = text.count("\n", 0, at) + 1
            spans.append((first, first + old.count("\n")))
            at = text.find(old, at + max(1, len(old)))
    return spans or None
