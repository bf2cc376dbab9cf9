from nano_brain.chunking import chunk_text


def test_short_note_is_one_chunk_with_its_lines() -> None:
    chunks = chunk_text("line one\nline two\n")
    assert [(c.text, c.start_line, c.end_line) for c in chunks] == [("line one\nline two", 1, 2)]


def test_headings_start_chunks_and_are_recorded() -> None:
    text = "# Intro\n\nhello\n\n## Storage\n\nWe use WAL.\n\n## Search\n\nRRF fusion.\n"
    chunks = chunk_text(text)
    assert [c.heading for c in chunks] == ["Intro", "Storage", "Search"]
    assert chunks[1].text.startswith("## Storage") and "We use WAL." in chunks[1].text
    assert chunks[2].start_line == 9


def test_long_section_splits_with_overlap_and_size_bound() -> None:
    sentences = [f"Sentence number {i} talks about topic {i}." for i in range(200)]
    text = "# Long\n\n" + " ".join(sentences)
    chunks = chunk_text(text, max_chars=500, overlap_chars=80)
    assert len(chunks) > 5
    assert all(len(c.text) <= 600 for c in chunks)
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        # the start of each chunk repeats the end of the previous one
        assert nxt.text[:30] in prev.text
    joined = " ".join(c.text for c in chunks)
    assert all(s in joined for s in sentences)


def test_code_fence_is_not_split_when_it_fits() -> None:
    fence = "```python\ndef f():\n\n    return 1\n```"
    chunks = chunk_text(f"# Code\n\n{fence}\n\nafter")
    assert any(fence in c.text for c in chunks)


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("   \n\n") == []
