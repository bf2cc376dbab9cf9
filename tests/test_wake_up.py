"""Wake-up: what an agent reads at session start."""

import pytest

from nano_brain import Brain, InvalidInputError, SearchRequest


def test_wake_up_sections_exclude_superseded_and_respect_budget(tiny_brain: Brain) -> None:
    old = tiny_brain.write("We decided to use MySQL.").document
    new = tiny_brain.write("We decided to use Postgres instead.", supersedes=old.id).document
    used = tiny_brain.write("Retry policy: three attempts with jitter.").document
    tiny_brain.write("Session: fixed the flaky CI job", kind="session", source_path="session://1")
    tiny_brain.search(SearchRequest(query="retry policy jitter", mode="lexical"))
    wake = tiny_brain.wake_up()
    assert [d.id for d in wake.decisions] == [new.id]
    assert [d.id for d in wake.most_used] == [used.id]
    assert [d.title for d in wake.sessions] == ["Session: fixed the flaky CI job"]
    assert old.id not in wake.text and new.id in wake.text
    assert wake.collections == {"memory": 4}
    small = tiny_brain.wake_up(budget_chars=200)
    assert len(small.text) <= 200 and small.text.startswith("# Workspace memory")
    with pytest.raises(InvalidInputError):
        tiny_brain.wake_up(budget_chars=10)


def test_get_a_line_range(tiny_brain: Brain) -> None:
    doc = tiny_brain.write("one\ntwo\nthree\nfour").document
    assert tiny_brain.get(doc.id, lines=(2, 3)).content == "two\nthree"
    with pytest.raises(InvalidInputError):
        tiny_brain.get(doc.id, lines=(3, 2))
