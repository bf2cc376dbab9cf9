"""Helpers for the code-index tests: write small workspaces, parse them, build graphs."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from nano_brain.codeindex import CodeGraph, FileIndex, Symbol, build_graph, parse_file
from nano_brain.codeindex.parse import parse_file_reference, parse_spans


def parse(path: str, source: str) -> FileIndex:
    """Parse a fixture; the query-driven extraction must equal the reference one on it, and
    the history's spans must be those of its symbols."""
    data = textwrap.dedent(source).encode()
    index = parse_file(path, data)
    assert index == parse_file_reference(path, data), path
    spans = [(s.local_name, s.kind, s.start_line, s.end_line) for s in index.symbols]
    assert parse_spans(path, data) == spans, path
    return index


def by_name(index: FileIndex) -> dict[str, Symbol]:
    return {s.local_name: s for s in index.symbols}


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(textwrap.dedent(content))


@pytest.fixture
def graph_of() -> Callable[..., CodeGraph]:
    """Parse an in-memory workspace {path: source} and resolve it."""

    def make(files: Mapping[str, str], **kwargs: object) -> CodeGraph:
        return build_graph([parse(p, s) for p, s in files.items()], **kwargs)  # type: ignore[arg-type]

    return make
