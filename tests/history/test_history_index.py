"""The git history as memory, on real repositories built here: commits linked to the symbols
whose lines they changed, through renames, merges, rewritten and shallow histories."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.filters import Filters
from nano_brain.history import History
from nano_brain.indexing import index_workspace
from nano_brain.why import history_state

from .conftest import Repo

BrainOf = Callable[..., Brain]

MOD = """\
    def alpha(x):
        return x + 1


    def beta(x):
        y = x * 2
        return y


    class Cart:
        def total(self, items):
            return sum(items)
    """


def _subjects(brain: Brain, name: str) -> list[tuple[str, str, str]]:
    return [(c.subject, c.change, c.name) for c in History(brain).commits_of(name, limit=50)]


def test_commits_are_linked_to_the_symbols_whose_lines_they_changed(
    repo: Repo, brain_of: BrainOf
) -> None:
    repo.write("shop/mod.py", MOD)
    first = repo.commit("shop: first version")
    repo.write("shop/mod.py", MOD.replace("y = x * 2", "y = x * 3"))
    repo.commit("shop: beta triples (NB-7)")
    repo.write("shop/mod.py", MOD.replace("y = x * 2", "y = x * 3").replace(
        "return sum(items)", "return round(sum(items), 2)"))  # fmt: skip
    repo.commit("shop: round cart totals\n\nCents, because invoices are in cents.")
    brain = brain_of(repo.path)
    report = History(brain).index()
    assert (report.state, report.added, report.commits) == ("indexed", 3, 3)
    assert _subjects(brain, "shop/mod.py::beta") == [
        ("shop: beta triples (NB-7)", "modified", "shop/mod.py::beta"),
        ("shop: first version", "added", "shop/mod.py::beta"),
    ]
    assert [s for s, _, _ in _subjects(brain, "shop/mod.py::Cart.total")] == [
        "shop: round cart totals",
        "shop: first version",
    ]
    # a method's change is its class's change too; alpha was only ever added
    assert len(_subjects(brain, "shop/mod.py::Cart")) == 2
    assert _subjects(brain, "shop/mod.py::alpha") == [
        ("shop: first version", "added", "shop/mod.py::alpha")
    ]
    # each commit is a document of kind commit: message, author, hash, files, tickets
    doc = brain.get("git:" + first)
    assert (doc.kind, doc.collection, doc.title) == ("commit", "commits", "shop: first version")
    assert doc.metadata["author"] == "Ada Lovelace" and doc.metadata["hash"] == first
    assert doc.metadata["files"] == ["shop/mod.py"]
    assert doc.metadata["file_changes"] == [{"path": "shop/mod.py", "status": "A"}]
    tagged = brain.list(Filters(kinds=("commit",), tags=("ticket:NB-7",)))
    assert [d.title for d in tagged] == ["shop: beta triples (NB-7)"]
    # nothing of the history shows in a read that names no kind
    assert brain.list(Filters()) == []


def test_deleted_lines_and_removed_symbols(repo: Repo, brain_of: BrainOf) -> None:
    repo.write("m.py", MOD)
    repo.commit("add")
    second = MOD.replace("        y = x * 2\n", "").replace("return y", "return x")
    repo.write("m.py", second)
    repo.commit("beta: no temporary")
    third = second.split("    class Cart")[0].replace(
        "    def alpha(x):\n        return x + 1\n", ""
    )
    repo.write("m.py", third)
    repo.commit("drop alpha and the cart")
    brain = brain_of(repo.path)
    History(brain).index()
    assert [s for s, _, _ in _subjects(brain, "m.py::beta")][:1] == ["beta: no temporary"]
    assert _subjects(brain, "m.py::Cart.total")[0] == (
        "drop alpha and the cart", "removed", "m.py::Cart.total"
    )  # fmt: skip
    assert _subjects(brain, "m.py::alpha")[0][:2] == ("drop alpha and the cart", "removed")


def test_a_function_renamed_and_its_file_moved_keep_their_history(
    repo: Repo, brain_of: BrainOf
) -> None:
    repo.write("old/pricing.py", MOD)
    repo.commit("pricing: first")
    repo.write("old/pricing.py", MOD.replace("x + 1", "x + 2"))
    repo.commit("alpha: add two")
    repo.move("old/pricing.py", "new/prices.py")
    repo.commit("move pricing to new/prices.py")
    repo.write("new/prices.py", MOD.replace("x + 1", "x + 2").replace("alpha", "increment"))
    repo.commit("rename alpha to increment")
    repo.write("new/prices.py", MOD.replace("x + 1", "x + 3").replace("alpha", "increment"))
    repo.commit("increment: add three")
    brain = brain_of(repo.path)
    History(brain).index()
    assert _subjects(brain, "new/prices.py::increment") == [
        ("increment: add three", "modified", "new/prices.py::increment"),
        ("rename alpha to increment", "renamed", "new/prices.py::increment"),
        ("alpha: add two", "modified", "old/pricing.py::alpha"),
        ("pricing: first", "added", "old/pricing.py::alpha"),
    ]
    # a new function that takes the old name later has a history of its own
    repo.write("new/prices.py", MOD.replace("x + 1", "x + 3").replace("alpha", "increment")
               + "\n\n    def alpha(x):\n        return -x\n")  # fmt: skip
    repo.write("old/pricing.py", "def alpha(x):\n    return 0\n")
    repo.commit("a new alpha")
    History(brain).index()
    assert [s for s, _, _ in _subjects(brain, "new/prices.py::increment")][0] == (
        "increment: add three"
    )
    assert [s for s, _, _ in _subjects(brain, "old/pricing.py::alpha")] == [
        "a new alpha", "alpha: add two", "pricing: first"
    ]  # fmt: skip


def test_a_renamed_class_carries_its_methods_history(repo: Repo, brain_of: BrainOf) -> None:
    repo.write("c.py", MOD)
    repo.commit("cart")
    repo.write("c.py", MOD.replace("class Cart", "class Basket"))
    repo.commit("Cart is a Basket")
    brain = brain_of(repo.path)
    History(brain).index()
    assert [c[:2] for c in _subjects(brain, "c.py::Basket.total")] == [
        ("Cart is a Basket", "renamed"),
        ("cart", "added"),
    ]


def test_merges_are_memory_and_their_branches_commits_are_linked(
    repo: Repo, brain_of: BrainOf
) -> None:
    repo.write("m.py", MOD)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("m.py", MOD.replace("x + 1", "x + 10"))
    repo.commit("feature: alpha adds ten")
    repo.git("checkout", "-q", "main")
    repo.write("other.py", "def gamma():\n    return 3\n")
    repo.commit("main: gamma")
    repo.clock += 3600
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature", date=repo.clock)
    brain = brain_of(repo.path)
    report = History(brain).index()
    assert report.commits == 4
    merge = brain.list(Filters(kinds=("commit",)), limit=1)[0]
    assert merge.title == "Merge branch 'feature'" and merge.metadata["merge"] is True
    assert merge.metadata["symbols"] == 0  # a merge's changes are its parents'
    assert [s for s, _, _ in _subjects(brain, "m.py::alpha")] == ["feature: alpha adds ten", "base"]


def test_an_amended_and_a_rebased_history_is_replaced_not_duplicated(
    repo: Repo, brain_of: BrainOf
) -> None:
    repo.write("m.py", MOD)
    repo.commit("base")
    repo.write("m.py", MOD.replace("x + 1", "x + 2"))
    amended_away = repo.commit("alpha: add twoo")
    brain = brain_of(repo.path)
    History(brain).index()
    repo.git("commit", "-q", "--amend", "-m", "alpha: add two", date=repo.clock + 60)
    report = History(brain).index()
    assert (report.added, report.removed, report.commits) == (1, 1, 2)
    titles = [d.title for d in brain.list(Filters(kinds=("commit",)))]
    assert titles == ["alpha: add two", "base"]
    assert brain.store.find_by_source("git:" + amended_away) is None
    # rebase a two-commit branch onto a new main commit
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("t.py", "def t():\n    return 1\n")
    repo.commit("topic one")
    repo.write("t.py", "def t():\n    return 2\n")
    repo.commit("topic two")
    History(brain).index()
    repo.git("checkout", "-q", "main")
    repo.write("m.py", MOD.replace("x + 1", "x + 2").replace("x * 2", "x * 5"))
    repo.commit("main moves on")
    repo.git("checkout", "-q", "topic")
    repo.clock += 3600
    repo.git("rebase", "-q", "main", date=repo.clock)
    report = History(brain).index()
    titles = [d.title for d in brain.list(Filters(kinds=("commit",)), limit=50)]
    assert sorted(titles) == sorted(["topic two", "topic one", "main moves on",
                                     "alpha: add two", "base"])  # fmt: skip
    assert report.removed == 2  # the two pre-rebase topic commits
    assert [s for s, _, _ in _subjects(brain, "t.py::t")] == ["topic two", "topic one"]


def test_incremental_reads_only_new_commits(repo: Repo, brain_of: BrainOf) -> None:
    repo.write("m.py", MOD)
    repo.commit("one")
    brain = brain_of(repo.path)
    assert History(brain).index().added == 1
    again = History(brain).index()
    assert (again.state, again.added) == ("up-to-date", 0)
    repo.write("m.py", MOD.replace("x + 1", "x - 1"))
    repo.commit("two")
    report = History(brain).index()
    # the new version is parsed; the old one's symbols are carried back through the diff
    assert (report.state, report.added, report.removed, report.parsed_blobs,
            report.carried_blobs) == ("indexed", 1, 0, 1, 1)  # fmt: skip
    log = brain.log(limit=5)
    assert log[0].action == "history" and log[0].details["added"] == 1


def test_the_window_keeps_the_newest_commits(repo: Repo, brain_of: BrainOf) -> None:
    for i in range(5):
        repo.write("m.py", MOD.replace("x + 1", f"x + {i}"))
        repo.commit(f"step {i}")
    brain = brain_of(repo.path, max_commits=3)
    History(brain).index()
    assert [d.title for d in brain.list(Filters(kinds=("commit",)))] == [
        "step 4", "step 3", "step 2"
    ]  # fmt: skip
    repo.write("m.py", MOD)
    repo.commit("step 5")
    History(brain).index()
    assert [d.title for d in brain.list(Filters(kinds=("commit",)))] == [
        "step 5", "step 4", "step 3"
    ]  # fmt: skip


def test_a_shallow_clone_works_and_says_so(repo: Repo, tmp_path: Path, brain_of: BrainOf) -> None:
    for i in range(4):
        repo.write("m.py", MOD.replace("x + 1", f"x + {i}"))
        repo.commit(f"step {i}")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{repo.path}", str(clone)], check=True
    )
    brain = brain_of(clone)
    report = History(brain).index()
    assert report.shallow and "shallow clone" in report.message
    assert report.commits == 2
    assert "shallow clone" in history_state(brain)
    boundary = brain.store.find_by_source("git:" + repo.git("rev-parse", "HEAD~1"))
    assert boundary is not None and boundary.metadata["shallow_boundary"] is True
    # the clone's first commit seems to add every file: it is linked to nothing
    assert [s for s, _, _ in _subjects(brain, "m.py::alpha")] == ["step 3"]


def test_no_git_at_all(tmp_path: Path, brain_of: BrainOf) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.py").write_text("def f():\n    return 1\n")
    brain = brain_of(plain)
    report = History(brain).index()
    assert report.state == "no-git" and "not a git repository" in report.message
    code = index_workspace(CodeIndex(brain))
    assert code.history is not None and code.history["state"] == "no-git"
    assert History(brain).commits_of("m.py::f") == []


def test_an_empty_repository(repo: Repo, brain_of: BrainOf) -> None:
    assert History(brain_of(repo.path)).index().state == "no-commits"


def test_a_workspace_in_a_subfolder_sees_its_own_files(repo: Repo, brain_of: BrainOf) -> None:
    repo.write("app/m.py", MOD)
    repo.write("lib/other.py", "def other():\n    return 0\n")
    repo.commit("both")
    repo.write("lib/other.py", "def other():\n    return 1\n")
    repo.commit("only lib")
    brain = brain_of(repo.path / "app")
    report = History(brain).index()
    assert report.commits == 1  # "only lib" touches nothing of app/
    assert [s for s, _, _ in _subjects(brain, "m.py::alpha")] == ["both"]


def test_hostile_file_names_and_messages(repo: Repo, brain_of: BrainOf) -> None:
    names = ["sp ace.py", "tab\there.py", 'quo"te.py', "ünï cödé.py", "new\nline.py"]
    for name in names:
        repo.write(name, "def f():\n    return 1\n")
    repo.commit("weird names\n\n--- a/looks like a diff\n+++ b/header\n@@ -1 +1 @@\n\x01")
    brain = brain_of(repo.path)
    History(brain).index()
    doc = brain.list(Filters(kinds=("commit",)))[0]
    assert sorted(doc.metadata["files"]) == sorted(names)
    for name in names:
        assert [s for s, _, _ in _subjects(brain, f"{name}::f")] == ["weird names"]


def test_a_removed_diff_line_that_looks_like_a_header(repo: Repo, brain_of: BrainOf) -> None:
    text = "def f():\n    x = 1\n-- not a header\n    return x\n"
    repo.write("m.py", text.replace("-- not a header\n", ""))
    repo.write("notes.txt", "-- not a header\n++ nor this\n")
    repo.commit("one")
    repo.write("notes.txt", "plain\n")
    repo.write("m.py", "def f():\n    x = 2\n    return x\n")
    repo.commit("two")
    brain = brain_of(repo.path)
    History(brain).index()
    doc = brain.list(Filters(kinds=("commit",)), limit=1)[0]
    assert sorted(doc.metadata["files"]) == ["m.py", "notes.txt"]
    assert [s for s, _, _ in _subjects(brain, "m.py::f")] == ["two", "one"]


def test_deleting_a_commit_document_keeps_it_deleted(repo: Repo, brain_of: BrainOf) -> None:
    repo.write("m.py", MOD)
    first = repo.commit("secret in here")
    repo.write("m.py", MOD.replace("x + 1", "x + 5"))
    repo.commit("later")
    brain = brain_of(repo.path)
    History(brain).index()
    brain.delete("git:" + first)
    repo.git("commit", "-q", "--amend", "-m", "later, amended", date=repo.clock + 5)
    History(brain).index()  # a full reconcile: the deleted commit is not brought back
    assert brain.store.find_by_source("git:" + first) is None
    assert [d.title for d in brain.list(Filters(kinds=("commit",)))] == ["later, amended"]


def test_this_projects_own_repository(tmp_path: Path, brain_of: BrainOf) -> None:
    root = Path(__file__).resolve().parents[2]
    brain = brain_of(root, max_commits=400)
    report = History(brain).index()
    if report.state == "no-git":
        return  # an exported tree, not a clone
    assert report.state == "indexed" and report.commits >= 1, report
    changed = History(brain).commits_of("server/nano_brain/brain.py::Brain.write", limit=5)
    if not report.shallow:
        assert changed, "Brain.write has a history in this repository"
        assert all(c.change in ("added", "modified", "renamed") for c in changed)
    assert History(brain).index().state == "up-to-date"


def test_a_huge_file_is_listed_but_not_read(repo: Repo, brain_of: BrainOf) -> None:
    """Files over the code index's 1 MB cap diff as binary: the commit lists them, no hunk
    of theirs is held in memory, and their symbols are not linked."""
    body = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(60_000))
    assert len(body) > 1_000_000
    repo.write("big.py", body)
    repo.write("small.py", "def s():\n    return 1\n")
    repo.commit("a big generated module")
    brain = brain_of(repo.path)
    History(brain).index()
    doc = brain.list(Filters(kinds=("commit",)))[0]
    assert sorted(doc.metadata["files"]) == ["big.py", "small.py"]
    assert _subjects(brain, "big.py::f1") == []
    assert [s for s, _, _ in _subjects(brain, "small.py::s")] == ["a big generated module"]


def test_commits_have_a_full_text_index_of_their_own(repo: Repo, brain_of: BrainOf) -> None:
    """Commit chunks are in commits_fts only; every index stays consistent with its content
    through additions, a rewrite's deletions and a repair of the code index's indexes."""
    from nano_brain.store import CodeStore

    repo.write("m.py", MOD)
    repo.commit("ledger: first")
    repo.write("m.py", MOD.replace("x + 1", "x + 2"))
    repo.commit("ledger: second")
    brain = brain_of(repo.path)
    History(brain).index()
    brain.write("The ledger closes at midnight.")

    def consistent() -> None:
        for table in ("chunks_fts", "chunks_tri", "commits_fts"):
            brain.store._exec(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)")

    def matches(table: str) -> int:
        """Documents with a chunk that matches (a commit's message and record are two)."""
        return brain.store._rows(
            f"SELECT count(DISTINCT c.doc_id) FROM {table} JOIN chunks c ON c.id = {table}.rowid "
            f"WHERE {table} MATCH 'ledger'"
        )[0][0]

    consistent()
    assert (matches("chunks_fts"), matches("commits_fts")) == (1, 2)
    repo.git("commit", "-q", "--amend", "-m", "ledger: second, amended", date=repo.clock + 9)
    History(brain).index()
    consistent()
    with brain.store.transaction():
        CodeStore(brain.store).rebuild_fulltext()
    consistent()
    assert (matches("chunks_fts"), matches("commits_fts")) == (1, 2)


def test_a_commits_message_gets_a_vector_and_its_record_is_found_by_words(
    repo: Repo, brain_of: BrainOf
) -> None:
    """Only what a commit says is embedded; its hash, author, date and files are looked up
    by word (store/priority.py)."""
    from nano_brain import SearchRequest
    from nano_brain.embedder import embed_text
    from nano_brain.store import priority

    repo.write("billing/ledger.py", MOD)
    sha = repo.commit("Round invoices after tax\n\nPer-line rounding lost cents on big orders.")
    brain = brain_of(repo.path)
    History(brain).index()
    rows = brain.store._rows(
        "SELECT c.seq, c.body, c.embedded, c.start_line, d.content FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id WHERE d.kind = 'commit' ORDER BY c.seq"
    )
    assert [(seq, state) for seq, _, state, _, _ in rows] == [
        (0, priority.PENDING),
        (1, priority.LEXICAL_ONLY),
    ]
    content = rows[0][4]
    said, record = rows[0][1], rows[1][1]
    assert said == "Round invoices after tax\n\nPer-line rounding lost cents on big orders."
    assert record.startswith(f"commit {sha}\nAuthor: Ada Lovelace <ada@example.com>")
    assert "billing/ledger.py (added)" in record
    assert content == f"{said}\n\n{record}"
    assert content.splitlines()[rows[1][3] - 1] == f"commit {sha}"  # its lines in the content
    (pending,) = brain.store.pending_chunks(10, "text")
    assert "Author" not in embed_text(pending) and "ledger.py" not in embed_text(pending)
    for words in ("Lovelace", "ledger"):
        hits = brain.search(SearchRequest(query=words, kind=["commit"], mode="lexical"))
        assert [h.title for h in hits.results] == ["Round invoices after tax"], words
