"""Fixture locations (read in place from ../shared, never copied into the repository)."""

from __future__ import annotations

from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared"
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"


def with_garbage(source: Path, target: Path, *, after_line: int = 2) -> Path:
    """A copy of a JSONL transcript with one torn line inserted after `after_line`."""
    lines = source.read_bytes().splitlines(keepends=True)
    lines.insert(after_line, b'{"type": "user", "message": {"role": "us\n')
    target.write_bytes(b"".join(lines))
    return target
