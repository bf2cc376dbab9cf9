"""Pure helpers: option fallback, word/selection slicing, hover ordering and rendering."""

from __future__ import annotations

from nano_brain.lsp.options import parse_options
from nano_brain.lsp.render import (
    CommitView,
    HistoryView,
    NoteView,
    age,
    hover_markdown,
    order_notes,
)
from nano_brain.lsp.text import slice_text, word_at


def test_each_bad_option_falls_back_alone() -> None:
    opts, problems = parse_options(
        {"hover": {"max_notes": 0, "max_related": 1}, "mcp": {"transport": "ftp"}, "x": 1}
    )
    assert opts.hover.max_notes == 5 and opts.hover.max_related == 1  # good sibling kept
    assert opts.mcp.transport == "unix"
    assert len(problems) == 3 and any("mcp.transport" in p for p in problems)
    assert parse_options([1])[1] and parse_options(None) == (parse_options({})[0], [])


def test_word_and_slice() -> None:
    lines = ["def foo(bar_baz):", "    return 1"]
    assert word_at(lines, 0, 9) == "bar_baz" and word_at(lines, 0, 3) == "def"
    assert word_at(lines, 5, 0) is None
    assert slice_text(lines, (0, 4), (1, 10)) == "foo(bar_baz):\n    return"


def _note(
    id: str, created: float, tags: tuple[str, ...] = (), stale: str | None = None
) -> NoteView:  # noqa: E501
    return NoteView(id, f"t{id}", "active", tags, "memory", created, "s", "a.py::f", stale)


def test_decisions_first_then_newest_and_stale_badge() -> None:
    notes = [_note("a", 1), _note("b", 3), _note("c", 2, ("decision",), stale="changed")]
    assert [n.id for n in order_notes(notes)] == ["c", "b", "a"]
    text = hover_markdown("f", notes, [], now=100_000) or ""
    assert text.index("#c") < text.index("#b") < text.index("#a")
    assert "may be stale" in text and text.count("may be stale") == 1
    assert hover_markdown(None, [], []) is None
    assert age(90) == "1m" and age(3 * 86400) == "3d"


def test_a_handlers_hover_shows_its_routes_and_why() -> None:
    commit = CommitView("0d490345aa", "users: 404 for unknown ids", "Grace Hopper", "2026-12-01",
                        "modified")  # fmt: skip
    history = HistoryView([commit], [], "command:nano-brain.why?x")
    only_history = hover_markdown("user", [], [], history=history, routes=["GET /users/{id}"])
    assert only_history is not None
    lines = only_history.splitlines()
    assert lines[:3] == ["**Routes** · `GET /users/{id}`", "", "**nano-brain** · `user`"]
    assert "`0d490345` users: 404 for unknown ids — Grace Hopper, 2026-12-01" in only_history
    assert lines[-1] == "[Why is this code like this? →](command:nano-brain.why?x)"
    with_note = hover_markdown("user", [_note("a", 1)], [], now=10, history=history,
                               routes=["GET /users/{id}"])  # fmt: skip
    assert with_note is not None
    assert with_note.index("**Routes**") < with_note.index("`#a`") < with_note.index("Changed by")
    # routes alone still make a hover; no history and no routes make none
    assert hover_markdown(None, [], [], history=HistoryView([], [], "l"), routes=["GET /"])
    assert hover_markdown(None, [], [], history=HistoryView([], [], "l"), routes=[]) is None
