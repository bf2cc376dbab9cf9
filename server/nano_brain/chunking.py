"""Markdown-aware chunking with overlap; every chunk knows its line range and heading."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


@dataclass(frozen=True, slots=True)
class Chunk:
    seq: int
    text: str
    start_line: int
    end_line: int
    heading: str = ""


@dataclass(slots=True)
class _Block:
    text: str
    start: int
    end: int
    heading: str


def chunk_text(text: str, *, max_chars: int = 1200, overlap_chars: int = 150) -> list[Chunk]:
    """Split a note into chunks of at most about `max_chars`, cutting at structure first.

    Headings start a new chunk; paragraphs and fenced code blocks are kept whole when they
    fit; longer ones are cut at sentence, then line, then character boundaries. Each chunk
    after the first in a section starts with up to `overlap_chars` of its predecessor.
    """
    blocks = _blocks(text)
    chunks: list[Chunk] = []
    current: list[_Block] = []

    def flush() -> None:
        if not current:
            return
        body = "\n\n".join(b.text for b in current).strip()
        if body:
            chunks.append(
                Chunk(len(chunks), body, current[0].start, current[-1].end, current[0].heading)
            )
        current.clear()

    size = 0
    for block in blocks:
        starts_section = bool(_HEADING.match(block.text.split("\n", 1)[0]))
        if starts_section or (current and current[-1].heading != block.heading):
            flush()
            size = 0
        for piece in _split_long(block, max(100, max_chars - overlap_chars)):
            if current and size + len(piece.text) + 2 > max_chars and not _only_heading(current):
                tail = _tail(current[-1].text, overlap_chars)
                flush()
                size = 0
                if tail:
                    current.append(_Block(tail, piece.start, piece.start, piece.heading))
                    size = len(tail)
            current.append(piece)
            size += len(piece.text) + 2
    flush()
    return chunks


def _only_heading(blocks: list[_Block]) -> bool:
    return all("\n" not in b.text and _HEADING.match(b.text) for b in blocks)


def _blocks(text: str) -> list[_Block]:
    """Paragraphs, headings and whole fenced code blocks, with 1-based line ranges."""
    lines = text.splitlines()
    blocks: list[_Block] = []
    heading = ""
    buf: list[str] = []
    start = 1
    in_fence = False

    def emit(end: int) -> None:
        if buf and any(line.strip() for line in buf):
            blocks.append(_Block("\n".join(buf).strip("\n"), start, end, heading))
        buf.clear()

    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            if not in_fence:
                emit(number - 1)
                start = number
            buf.append(line)
            in_fence = not in_fence
            if not in_fence:
                emit(number)
                start = number + 1
            continue
        if in_fence:
            buf.append(line)
            continue
        match = _HEADING.match(line)
        if match:
            emit(number - 1)
            heading = match.group(2)
            start = number
            buf.append(line)
            continue
        if not line.strip():
            emit(number - 1)
            start = number + 1
            continue
        if not buf:
            start = number
        buf.append(line)
    emit(len(lines))
    return blocks


def _split_long(block: _Block, max_chars: int) -> list[_Block]:
    if len(block.text) <= max_chars:
        return [block]
    pieces: list[_Block] = []
    line = block.start
    units = _units(block.text, max_chars)
    buf = ""
    buf_start = line
    for unit in units:
        if buf and len(buf) + len(unit) + 1 > max_chars:
            pieces.append(_Block(buf.strip(), buf_start, line, block.heading))
            buf, buf_start = "", line
        buf = f"{buf} {unit}" if buf else unit
        line += unit.count("\n")
    if buf.strip():
        pieces.append(_Block(buf.strip(), buf_start, block.end, block.heading))
    return pieces


def _units(text: str, max_chars: int) -> list[str]:
    """Sentences (or lines, for code), each cut to `max_chars` if still too long."""
    parts = text.split("\n") if _FENCE.match(text) else _SENTENCE_END.split(text)
    out: list[str] = []
    for part in parts:
        while len(part) > max_chars:
            cut = part.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            out.append(part[:cut])
            part = part[cut:].lstrip()
        if part:
            out.append(part)
    return out


def _tail(text: str, overlap_chars: int) -> str:
    if overlap_chars <= 0 or len(text) <= overlap_chars:
        return "" if overlap_chars <= 0 else text
    tail = text[-overlap_chars:]
    space = tail.find(" ")
    return tail[space + 1 :] if 0 <= space < len(tail) // 2 else tail
