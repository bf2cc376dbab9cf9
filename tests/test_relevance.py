"""The relevance floor: a list may be empty, and is when nothing relates to the question.

Unit tests of the judgement, then the real default model on a real conversation (LoCoMo dev):
its own questions still find their turns, another conversation's questions find nothing.
The measured rates over all of LoCoMo dev come from `benchmarks/eval_relevance.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nano_brain import Brain
from nano_brain.config import load_config
from nano_brain.lsp.related import related_memories
from nano_brain.querywords import coverage, idf_weights
from nano_brain.relevance import CALIBRATED, WORDS_ONLY, asks_for_code, judge, order
from nano_brain.search import validate_request
from nano_brain.why import related_to

from .conftest import SHARED

LOCOMO = SHARED / "eval" / "locomo" / "locomo-dev.json"
NOTE_MODEL = "local/paraphrase-minilm-l3-v2-int8"
CODE_MODEL = "local/all-minilm-l6-v2-int8"


def test_word_coverage_weighs_rare_words_over_common_ones() -> None:
    weights = idf_weights(
        ["caroline", "went", "group"], {"caroline": 2, "went": 900, "group": 40}, 1000
    )
    assert coverage(weights, "Caroline: what a day") > coverage(weights, "we went as a group") > 0
    assert coverage(weights, "Caroline went to the support group") == pytest.approx(1.0)
    assert coverage(weights, "nothing in common") == 0.0
    assert coverage({}, "anything") == 0.0


def test_a_space_below_its_floor_keeps_nothing_and_says_why() -> None:
    floor = CALIBRATED[NOTE_MODEL].list
    verdict = judge("list", {"text": floor - 0.15}, {"text": 0.3}, {"text": NOTE_MODEL})
    assert not verdict.keeps("note") and not verdict.keeps("session")
    assert "nothing cleared the relevance floor" in verdict.summary()
    passing = judge("list", {"text": floor}, {"text": 0.0}, {"text": NOTE_MODEL})
    assert passing.keeps("note") and passing.summary() == ""
    # what is offered unasked needs more than what was asked for
    assert not judge("related", {"text": floor}, {"text": 0.0}, {"text": NOTE_MODEL}).keeps("note")


def test_without_a_vector_leg_words_decide_and_an_unmeasured_model_gets_no_floor() -> None:
    words_only = judge("list", {"text": None}, {"text": WORDS_ONLY.list}, {})
    assert words_only.keeps("note")
    assert not judge("list", {"text": None}, {"text": WORDS_ONLY.list - 0.01}, {}).keeps("note")
    unmeasured = judge("list", {"text": 0.01}, {"text": 0.0}, {"text": "openai/some-model"})
    assert unmeasured.keeps("note")
    assert judge("off", {"text": 0.0}, {"text": 0.0}, {"text": NOTE_MODEL}).keeps("note")


def test_candidates_without_vectors_yet_are_judged_by_their_words(
    workspace: Path, real_provider: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # vectors deferred, and more waiting than a search embeds first (a backlog): a note just
    # written has none, so no cosine can vouch for it
    monkeypatch.setattr("nano_brain.embedder.NOTES_BEFORE_SEARCH", 0)
    config = load_config(workspace, overrides={"embedding": {"embed_on_write": False}})
    with Brain(workspace, config=config, provider=real_provider) as brain:  # type: ignore[arg-type]
        brain.write("Lunch on Fridays is pizza.")
        brain.embed_pending()
        fresh = brain.write("The staging cluster runs in eu-west-1 behind a bastion host.")
        found = brain.search(validate_request(query="staging cluster bastion", explain=True))
        assert [h.id for h in found.results][:1] == [fresh.document.id]
        assert found.relevance is not None and found.relevance["text"]["unembedded_words"] == 1.0
        # words that none of them holds still find nothing
        assert brain.search(validate_request(query="kubernetes ingress renewal")).results == []
        brain.embed_pending()
        again = brain.search(validate_request(query="staging cluster bastion", explain=True))
        assert [h.id for h in again.results][:1] == [fresh.document.id]
        assert again.relevance is not None and "unembedded_words" not in again.relevance["text"]


def test_notes_come_first_unless_code_is_asked_for() -> None:
    text_ok, code_ok = {"text": 0.7, "code": 0.6}, {"text": 1.0, "code": 1.0}
    models = {"text": NOTE_MODEL, "code": CODE_MODEL}
    both = judge("list", text_ok, code_ok, models)
    assert order(both, "uvicorn workers")[0] == "text"
    assert order(both, "where is UvicornWorker defined")[0] == "code"
    assert order(both, "the refund_amount function")[0] == "code"
    far = judge("list", {"text": 0.5, "code": 0.9}, {"text": 0.0, "code": 1.0}, models)
    assert order(far, "workers")[0] == "text"  # relevant notes first, however good the code
    literal = judge("off", {"text": None, "code": None}, {"text": 0.1, "code": 1.0}, {})
    assert order(literal, "workers")[0] == "code"  # a keyword search: one weak word is no match
    no_notes = judge("list", {"text": 0.1, "code": 0.7}, {"text": 0.0, "code": 1.0}, models)
    assert order(no_notes, "workers")[0] == "code"
    assert asks_for_code("how is the Limits class used") and not asks_for_code("refund window")


# -- the real model on a real conversation ---------------------------------------------------


def _turns(sample: dict) -> list[tuple[str, str]]:
    conv = sample["conversation"]
    out = []
    for key in sorted(k for k in conv if k.startswith("session_") and k[8:].isdigit()):
        for turn in conv[key]:
            out.append((turn["dia_id"], f"{turn['speaker']}: {turn.get('text', '')}"))
    return out


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Brain, dict, dict, dict]:
    data = json.loads(LOCOMO.read_text())
    mine, theirs = data[0], data[1]
    ws = tmp_path_factory.mktemp("conversation")
    brain = Brain(ws, config=load_config(ws), db_path=ws / "brain.db")
    ids = {}
    for dia_id, text in _turns(mine):
        ids[brain.write(text).document.id] = dia_id.replace(" ", "")
    brain.embed_pending()
    return brain, mine, theirs, ids


def _questions(sample: dict, n: int) -> list[dict]:
    return [q for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)][:n]


def test_its_own_questions_find_their_turns_another_conversations_find_nothing(
    conversation: tuple[Brain, dict, dict, dict], tmp_path: Path
) -> None:
    brain, mine, theirs, ids = conversation
    asked = _questions(mine, 40)

    def finds(question: dict, floor: str) -> bool:
        request = validate_request(query=question["question"], track=False, floor=floor)
        gold = {e.strip() for e in question["evidence"]}
        return any(ids.get(h.id) in gold for h in brain.search(request).results)

    unfloored = sum(finds(q, "off") for q in asked)
    floored = sum(finds(q, "list") for q in asked)
    assert unfloored >= 0.6 * len(asked)  # the conversation is searchable at all
    assert floored >= unfloored - 1, (floored, unfloored)
    empty = 0
    strangers = _questions(theirs, 40)
    for q in strangers:
        response = brain.search(validate_request(query=q["question"], limit=10, track=False))
        if not response.results:
            empty += 1
            assert response.note.startswith("nothing cleared the relevance floor")
    assert empty >= 0.8 * len(strangers), empty
    # what the hover and `why` offer unasked stays quieter still
    related = sum(
        not related_memories(brain, q["question"], limit=3, min_similarity=0.45, snippet_chars=80)
        for q in strangers
    )
    why = sum(
        not related_to(brain, q["question"], limit=3, seen=set(), snippet_chars=80)
        for q in strangers
    )
    assert related >= 0.9 * len(strangers) and why >= 0.9 * len(strangers), (related, why)


def test_the_floor_can_be_turned_off(conversation: tuple[Brain, dict, dict, dict]) -> None:
    brain, _, theirs, _ = conversation
    question = _questions(theirs, 1)[0]["question"]
    floored = brain.search(validate_request(query=question, track=False, explain=True))
    assert floored.relevance is not None and "text" in floored.relevance
    unfloored = brain.search(validate_request(query=question, track=False, floor="off"))
    assert len(unfloored.results) == 10 and len(floored.results) < 10
