"""The field rules every front end shares, and Brain.write applying them."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nano_brain import Brain, fields
from nano_brain.errors import InvalidInputError

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@settings(max_examples=300, derandomize=True)
@given(st.text(max_size=80))
def test_a_tag_is_clean_or_refused(text: str) -> None:
    try:
        tag = fields.clean_tag(text)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
        return
    assert tag == text.strip() and 1 <= len(tag) <= fields.MAX_TAG_CHARS
    assert not any(ch.isspace() or ch == "," for ch in tag)
    assert not CONTROL.search(tag) and "\ufeff" not in tag
    assert fields.is_tag(tag)


@pytest.mark.parametrize(
    "tag",
    ["nul\x00", "esc\x1b[0m", "del\x7f", "c1\x85x", "bom\ufeff", "a,b", "two words", "x" * 65],
)
def test_tags_with_controls_commas_or_spaces_are_refused(tag: str) -> None:
    with pytest.raises(InvalidInputError, match="invalid tag"):
        fields.clean_tag(tag)


def test_tags_are_trimmed_deduplicated_and_never_split_from_a_string() -> None:
    assert fields.clean_tags([" a ", "b", "a", "ticket:NB-7"]) == ["a", "b", "ticket:NB-7"]
    with pytest.raises(InvalidInputError, match="list of strings"):
        fields.clean_tags("abc")
    with pytest.raises(InvalidInputError, match="not text"):
        fields.clean_tags([3])


@pytest.mark.parametrize("name", ["memory\n", "memory\x00", " memory", "", "-x", "a" * 65, "é"])
def test_collection_names_match_whole(name: str) -> None:
    with pytest.raises(InvalidInputError, match="invalid collection"):
        fields.check_collection(name)


def test_titles_lose_a_bom_and_refuse_controls() -> None:
    assert fields.clean_title("\ufeff  Decision: use SQLite ") == "Decision: use SQLite"
    assert fields.clean_title("  ") is None and fields.clean_title(None) is None
    for bad in ("a\x00b", "two\nlines", "tab\there", "esc\x1b", "x" * 201, "lone \ud800"):
        with pytest.raises(InvalidInputError, match="title"):
            fields.clean_title(bad)


def test_source_paths_are_kept_as_given_but_refuse_controls() -> None:
    assert fields.check_source_path(" docs/a b.md") == " docs/a b.md"
    assert fields.check_source_path("") is None
    for bad in ("a\x00b", "a\nb", "   ", "p" * 4097):
        with pytest.raises(InvalidInputError, match="source_path"):
            fields.check_source_path(bad)


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"k": "a\x00b"}, r"metadata\.k: text holds a control character"),
        ({"k": "bell\x07"}, "control character"),
        ({"k\x00": 1}, "metadata key"),
        ({"": 1}, "metadata key is empty"),
        ({"k": math.nan}, "finite"),
        ({"k": math.inf}, "finite"),
        ({"k": 2**64}, "64-bit"),
        ({"k": {1, 2}}, "set is not a JSON value"),
        ({"k": "lone \udc80"}, "lone surrogate"),
        ("not a mapping", "JSON object"),
    ],
)
def test_metadata_is_json_with_text_that_is_not_binary(metadata: Any, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        fields.check_metadata(metadata)


def test_metadata_depth_and_size_are_bounded() -> None:
    deep: Any = "leaf"
    for _ in range(fields.MAX_METADATA_DEPTH):
        deep = [deep]
    assert fields.check_metadata({"k": deep[0]})  # at the limit
    with pytest.raises(InvalidInputError, match="deeper than"):
        fields.check_metadata({"k": deep})
    with pytest.raises(InvalidInputError, match="keys and items"):
        fields.check_metadata({"k": list(range(fields.MAX_METADATA_ITEMS + 1))})
    free = {"text": "line one\n\tline two\r\n", "n": [1, 2.5, None, True], "nested": {"a": {}}}
    assert fields.check_metadata(free) == free


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True)
@given(st.dictionaries(st.text(max_size=10), json_values, max_size=5))
def test_accepted_metadata_round_trips_through_strict_json(metadata: dict[str, Any]) -> None:
    try:
        checked = fields.check_metadata(metadata)
    except InvalidInputError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 300
        return
    text = json.dumps(checked, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")
    assert json.loads(text) == checked


# -- Brain.write applies the rules: a clear error and nothing written -------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"title": "nul\x00title"},
        {"source_path": "notes/\x00.md"},
        {"metadata": {"k": "v\x00"}},
        {"metadata": {"k\x00": "v"}},
        {"tags": ["ok", "nul\x00"]},
        {"collection": "memory\n"},
        {"title": "x" * (fields.MAX_TITLE_CHARS + 1)},
        {"tags": "single-string"},
    ],
)
def test_write_refuses_bad_fields_and_writes_nothing(
    tiny_brain: Brain, kwargs: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        tiny_brain.write("a perfectly fine note", **kwargs)
    assert "\n" not in str(caught.value)
    assert tiny_brain.status()["documents"] == 0


def test_write_strips_a_leading_bom_from_title_and_content(tiny_brain: Brain) -> None:
    titled = tiny_brain.write("\ufeffBody text here", title="\ufeffMy title")
    assert titled.document.title == "My title"
    assert tiny_brain.get(titled.document.id).content == "Body text here"
    derived = tiny_brain.write("\ufeff# Heading line\nmore")
    assert derived.document.title == "Heading line"
    # The same text with and without a BOM is one note.
    again = tiny_brain.write("Body text here", title="My title")
    assert again.document.id == titled.document.id and not again.created
