"""What gets a vector (store/priority.py): test code only with `embedding.test_code`, and a
commit's message but not its record; what gets none is found by its words, is never
pending, and no search calls its space partly embedded because of it."""

from __future__ import annotations

from pathlib import Path

from nano_brain import Brain, SearchRequest
from nano_brain.codeindex import CodeIndex
from nano_brain.store import priority

from ..conftest import TinyEmbedder
from .test_embed_order import FILES, _brain, _fill, _write_files

#: Symbols per file (test_embed_order._source writes three functions in each).
PER_FILE = 3
TEST_FILES = [p for p, marker in FILES.items() if marker == "TESTFILE"]


def _states(brain: Brain, marker: str) -> set[int]:
    rows = brain.store._rows(
        "SELECT embedded FROM chunks WHERE title || body LIKE ?", (f"%{marker}%",)
    )
    return {int(r[0]) for r in rows}


def test_test_code_is_found_by_words_and_never_waits_for_a_vector(workspace: Path) -> None:
    _write_files(workspace)
    model = TinyEmbedder()
    with _brain(workspace, model, test_code=False) as brain:
        _fill(brain)
        assert _states(brain, "TESTFILE") == {priority.LEXICAL_ONLY}
        assert _states(brain, "PLAINFILE") == {priority.PENDING}
        waiting = brain.store.pending_count()
        assert brain.embed_pending() == waiting
        assert brain.store.pending_count() == 0
        assert _states(brain, "TESTFILE") == {priority.LEXICAL_ONLY}
        assert all(p.pending == 0 for p in brain.embedding_progress().values())
        named = {f"{path}::testfile_1" for path in TEST_FILES}
        found = brain.search(SearchRequest(query="testfile_1", kind=["code"], mode="lexical"))
        assert {r.title for r in found.results} == named, found.results
        # in a hybrid search, what no vector leg can rank takes its words' rank there too:
        # found first by name, not outranked by whatever the vector leg brought
        hybrid = brain.search(SearchRequest(query="testfile_1", kind=["code"], floor="off"))
        assert {r.title for r in hybrid.results[:2]} == named, hybrid.results
        assert hybrid.partial == ""  # test code without vectors is not "partly embedded"
        # an edited test file stays lexical only (not moved up as a recent change)
        (workspace / TEST_FILES[0]).write_text("def testfile_9(v):\n    return 'TESTFILE'\n")
        CodeIndex(brain).index()
        assert _states(brain, "TESTFILE") == {priority.LEXICAL_ONLY}
        assert brain.store.pending_count() == 0


def test_turning_test_code_on_embeds_it_and_off_again_keeps_its_vectors(
    workspace: Path,
) -> None:
    _write_files(workspace)
    with _brain(workspace, TinyEmbedder(), test_code=False) as brain:
        _fill(brain)
        brain.embed_pending()
        before = brain.store.vector_counts()["code"]
    with _brain(workspace, TinyEmbedder(), test_code=True) as brain:
        CodeIndex(brain).index()  # nothing changed on disk: the choice alone is applied
        assert brain.store.pending_count() == PER_FILE * len(TEST_FILES)
        assert brain.embed_pending() == PER_FILE * len(TEST_FILES)
        assert brain.store.vector_counts()["code"] == before + PER_FILE * len(TEST_FILES)
    with _brain(workspace, TinyEmbedder(), test_code=False) as brain:
        (workspace / "tests" / "test_more.py").write_text(
            "def testfile_more(v):\n    return 'TESTFILE'\n"
        )
        CodeIndex(brain).index()
        # vectors already made are kept; test code written now waits for none
        assert _states(brain, "TESTFILE") == {priority.EMBEDDED, priority.LEXICAL_ONLY}
        assert brain.store.pending_count() == 0


def test_a_new_model_leaves_lexical_only_chunks_alone(workspace: Path) -> None:
    _write_files(workspace)
    with _brain(workspace, TinyEmbedder(), test_code=False) as brain:
        _fill(brain)
        brain.embed_pending()
        code = brain.store.vector_counts()["code"]
        brain.store.reset_vectors("another-model", 8, space="code")
        assert brain.store.pending_count("code") == code
        assert _states(brain, "TESTFILE") == {priority.LEXICAL_ONLY}
