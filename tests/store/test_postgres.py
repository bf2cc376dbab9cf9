"""The team store on a real PostgreSQL with pgvector, as the app role (no superuser):
workspaces isolated by row-level security, an audit log the app role cannot rewrite, the
schema migrated from its previous version, copies to and from a local store, and writers in
several processes at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg
import pytest

from nano_brain import Brain, Filters, SearchRequest
from nano_brain.config import load_config
from nano_brain.errors import StoreError
from nano_brain.store import ChunkRow, SqliteStore
from nano_brain.store.documents import _ROWS_PER_STATEMENT
from nano_brain.store.postgres import schema, testserver
from nano_brain.store.postgres.store import PostgresStore, _arrays, migrate
from nano_brain.store.transfer import copy_memory

from .conftest import team_brain


@pytest.fixture
def app_url(pg_server: testserver.TestServer) -> str:
    return pg_server.app_url


def test_rls_keeps_each_workspace_to_itself_even_without_a_predicate(
    tmp_path: Path, app_url: str, pg_server: testserver.TestServer
) -> None:
    with team_brain(tmp_path / "a", app_url, "team/alpha") as alpha:
        alpha.write("The alpha launch code is PELICAN.", tags=["secret"])
    with team_brain(tmp_path / "b", app_url, "team/beta") as beta:
        beta.write("The beta launch code is OSPREY.")
        store = beta.store
        # a query that forgot its workspace predicate still sees only its own rows
        bodies = [r[0] for r in store._rows("SELECT body FROM chunks")]
        assert bodies and all("OSPREY" in b for b in bodies)
        assert store._rows("SELECT count(*) FROM document_tags WHERE tag = 'secret'") == [(0,)]
        assert all(r[0] == "team/beta" for r in store._rows("SELECT workspace_id FROM audit_log"))
        # nor may it write a row into another workspace
        with pytest.raises(StoreError, match="row-level security"):
            store._exec(
                "INSERT INTO meta (workspace_id, key, value) VALUES ('team/alpha', 'x', 'y')"
            )
        assert "PELICAN" not in str(beta.search(SearchRequest(query="launch code")).model_dump())
    # positive controls: the same predicate-less query finds alpha's row in alpha, and the
    # superuser (who bypasses RLS) sees both workspaces' rows
    with team_brain(tmp_path / "a", app_url, "team/alpha") as alpha:
        assert any("PELICAN" in r[0] for r in alpha.store._rows("SELECT body FROM chunks"))
    with psycopg.connect(pg_server.owner_url) as conn:
        found = {r[0] for r in conn.execute("SELECT DISTINCT workspace_id FROM documents")}
    assert {"team/alpha", "team/beta"} <= found


def test_the_app_role_cannot_update_or_delete_the_audit_log(tmp_path: Path, app_url: str) -> None:
    with team_brain(tmp_path / "ws", app_url, "team/audit", user="Bea") as brain:
        brain.write("first")
        brain.write("second")
    with psycopg.connect(app_url, autocommit=True) as conn:
        conn.execute("SELECT set_config('nano_brain.workspace', 'team/audit', false)")
        for statement in ("UPDATE audit_log SET actor = 'x'", "DELETE FROM audit_log"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # positive control: the same role may read and append
        assert conn.execute("SELECT count(*) FROM audit_log").fetchone()[0] == 2
    with team_brain(tmp_path / "ws", app_url, "team/audit", user="Bea") as brain:
        entries = brain.store.audit_rows()
        assert [e.person for e in entries] == ["Bea", "Bea"]
        assert brain.prune_log(older_than="0s") == 2  # the logged prune still works
        assert [e.action for e in brain.log()] == ["prune-log"]


def test_a_password_in_the_url_is_refused_and_never_shown(tmp_path: Path) -> None:
    loaded = load_config(tmp_path, env={"NANO_BRAIN_STORAGE__URL": "postgresql://u:hunter2@db/x"})
    assert loaded.config.storage.url is None
    assert loaded.warnings and all("hunter2" not in w for w in loaded.warnings)
    with pytest.raises(StoreError) as err:
        PostgresStore("postgresql://u:hunter2@db/x", "w", path=tmp_path / "x.db")
    assert "hunter2" not in str(err.value)


def test_schema_is_migrated_from_the_previous_version(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    owner = pg_server.owner_url.replace("/nano_brain?", "/nb_previous?")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS nb_previous WITH (FORCE)")
        conn.execute("CREATE DATABASE nb_previous")
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute("CREATE TABLE nb_schema (version integer NOT NULL)")
        conn.execute(schema.MIGRATIONS[0])
        conn.execute("INSERT INTO nb_schema VALUES (1)")
        conn.execute(
            "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
            "content_hash, created_at, updated_at, valid_from, recorded_at) VALUES "
            "('w1', 'u1', 'note', 'memory', 'Old', 'old note', 'h', 1, 1, 1, 1)"
        )
        conn.execute(
            "INSERT INTO audit_log (workspace_id, at, actor, action) "
            "VALUES ('w1', 1, 'cli', 'write')"
        )
        migrate(conn, "nb_previous", to=4)
        gin = "SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexdef ~ 'gin'"
        assert {r[0] for r in conn.execute(gin)} == {"chunks_tsv", "chunks_trigram"}
        migrate(conn, "nb_previous")
        version = conn.execute("SELECT max(version) FROM nb_schema").fetchone()[0]
        assert version == schema.SCHEMA_VERSION
        assert conn.execute(gin).fetchall() == []  # never read under row-level security (5)
        conn.execute(schema.grant_sql(testserver.APP_ROLE))
    app = owner.replace("postgres:@", f"{testserver.APP_ROLE}@")
    store = PostgresStore(app, "w1", path=tmp_path / "x.db")
    try:
        assert [d.uid for d in store.list_documents(Filters())] == ["u1"]
        assert store.prune_audit(5.0, at=6.0, actor="cli") == 1
    finally:
        store.close()
    other = PostgresStore(app, "w2", path=tmp_path / "x.db")
    try:
        assert other._rows("SELECT count(*) FROM documents") == [(0,)]  # now under RLS
    finally:
        other.close()


def test_migrate_copies_a_local_store_and_back_idempotently(
    tmp_path: Path, app_url: str, real_provider
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with Brain(root, provider=real_provider, db_path=tmp_path / "local.db") as local:
        first = local.write("Payments retry three times with backoff.", title="Retry policy")
        local.write("Payments retry five times.", source_path="notes/retry.md")
        local.write("Payments retry seven times.", source_path="notes/retry.md")  # version 2
        local.supersede(f"#{first.document.id}", "notes/retry.md")
        local.write("stale fact", source_path="notes/stale.md")
        local.forget("notes/stale.md")
        local.embed_pending()
        before = {d.uid: d for d in local.store.list_documents(Filters(include_superseded=True))}
        log_before = [(e.action, e.doc_id) for e in local.log(limit=100)]
        local_id = local.workspace_id
    source = SqliteStore(tmp_path / "local.db", local_id)
    team = PostgresStore(app_url, "team/copy", path=tmp_path / "x.db")
    try:
        copied = copy_memory(source, team)
        assert copied.documents == 3 and copied.vectors > 0 and copied.tombstones == 1
        again = copy_memory(source, team)
        assert again.documents == 0 and again.audit_rows == 0 and again.status_changes == 0
        after = {d.uid: d for d in team.list_documents(Filters(include_superseded=True))}
        assert set(after) == set(before)
        for uid, doc in before.items():
            assert (after[uid].version, after[uid].status, after[uid].superseded_by) == (
                doc.version,
                doc.status,
                doc.superseded_by,
            )
        assert [(a.action, a.doc_uid) for a in team.audit_rows(limit=100)] == log_before
        assert team.pending_count() == 0  # vectors came along, nothing to embed again
        back = SqliteStore(tmp_path / "back.db", local_id)
        try:
            assert copy_memory(team, back).documents == 3
            assert {d.uid for d in back.list_documents(Filters(include_superseded=True))} == set(
                before
            )
        finally:
            back.close()
    finally:
        source.close()
        team.close()


def test_migrate_copies_in_batches_with_every_counter_right(tmp_path: Path, app_url: str) -> None:
    """More documents than one batch: the word counts and chunk statistics the team store's
    per-statement triggers keep match the notes written (counted here from their text)."""
    root = tmp_path / "ws"
    root.mkdir()
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    colours = ["amber", "teal", "violet"]
    texts = [f"Batch note {i} about {colours[i % 3]} widgets" for i in range(450)]
    with Brain(root, config=config, db_path=tmp_path / "local.db") as local:
        for i, text in enumerate(texts):
            local.write(text, tags=[colours[i % 3], "batch"] if i % 2 else [colours[i % 3]])
        local_id = local.workspace_id
    source = SqliteStore(tmp_path / "local.db", local_id)
    team = PostgresStore(app_url, "team/batches", path=tmp_path / "x.db")
    try:
        copied = copy_memory(source, team)
        assert (copied.documents, copied.chunks) == (450, 450)
        words = ["batch", "amber", "teal", "widgets", "note"]
        want = {w: sum(w in t.lower().split() for t in texts) for w in words}
        assert team.term_counts(words) == (want, 450)
        tags = {t: n for t, n in team.tags(Filters()) if not t.startswith("auto:")}
        assert tags == {"batch": 225, "amber": 150, "teal": 150, "violet": 150}
        hits = team.lexical(["violet", "widgets"], "AND", Filters(), 1000)
        assert len(hits) == 150
    finally:
        source.close()
        team.close()


_WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[4])
    from conftest import TinyEmbedder
    from nano_brain import Brain, SearchRequest
    from nano_brain.config import load_config
    from pathlib import Path
    root, url, name = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    config = load_config(root, overrides={"storage": {"url": url, "workspace": "team/many"},
                                          "user": {"name": name}})
    with Brain(root, config=config, provider=TinyEmbedder()) as brain:
        for i in range(40):
            brain.write(f"note {i} from {name} about topic{i % 5}", tags=[name])
            if i % 8 == 0:
                brain.search(SearchRequest(query=f"topic{i % 5}"))
    print("done", name)
    """
)


def test_writers_on_two_machines_share_one_workspace(tmp_path: Path, app_url: str) -> None:
    """Four writers in four processes, in two clones (two machines: two folders, two local
    stores), on one team workspace: no errors, every note there once, each by its person."""
    tests_dir = str(Path(__file__).parents[1])
    names = ["ann", "bob", "cy", "dee"]
    roots = [tmp_path / "machine1", tmp_path / "machine2"]
    for root in roots:
        root.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(roots[i % 2]), app_url, name, tests_dir],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, name in enumerate(names)
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    with team_brain(roots[0], app_url, "team/many") as brain:
        tags = {t: n for t, n in brain.tags() if not t.startswith("auto:")}
        assert tags == dict.fromkeys(names, 40)
        people = {e.person for e in brain.store.audit_rows(limit=1000)}
        assert people == set(names)


def test_cli_copies_a_local_store_into_the_team_store_and_reads_it_with_store(
    tmp_path: Path, app_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`store migrate --to URL` from the local store (again: nothing more), then every command
    on the team store with `--store URL`; a URL with a password is refused without showing it."""
    import json
    import os

    from click.testing import CliRunner

    from nano_brain.cli import main

    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setenv("NANO_BRAIN_EMBEDDING__PROVIDER", "none")
    monkeypatch.setenv("NANO_BRAIN_STORAGE__WORKSPACE", "team/cli")
    monkeypatch.delenv("NANO_BRAIN_STORAGE__URL", raising=False)
    runner = CliRunner()

    def run(*args: str) -> object:
        result = runner.invoke(main, [*args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.output) if "--json" in args else result.output

    try:
        run("write", "Refunds go through the ledger service.", "-w", str(ws), "--json")
        first = run("store", "migrate", "--to", app_url, "-w", str(ws), "--json")
        assert first["documents"] == 1 and first["audit_rows"] >= 1  # type: ignore[index]
        again = run("store", "migrate", "--to", app_url, "-w", str(ws), "--json")
        assert again["documents"] == 0 and again["audit_rows"] == 0  # type: ignore[index]
        found = run("--store", app_url, "search", "ledger", "-w", str(ws), "--json")
        assert [r["title"] for r in found["results"]] == [  # type: ignore[index]
            "Refunds go through the ledger service."
        ]
        refused = runner.invoke(main, ["--store", "postgresql://ann:s3cr3t@db/x", "list"])
        assert refused.exit_code != 0 and "PGPASSWORD" in refused.output
        assert "s3cr3t" not in refused.output
    finally:
        os.environ.pop("NANO_BRAIN_STORAGE__URL", None)  # set by --store for this process


def test_store_init_creates_the_schema_grants_the_app_role_and_builds_knn_indexes(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    import json

    from click.testing import CliRunner

    from nano_brain.cli import main

    from ..conftest import TinyEmbedder

    owner = pg_server.owner_url.replace("/nano_brain?", "/nb_init?")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS nb_init WITH (FORCE)")
        conn.execute("CREATE DATABASE nb_init")
    app = owner.replace("postgres:@", f"{testserver.APP_ROLE}@")
    with pytest.raises(StoreError, match="store init"):  # the app role may not create it
        PostgresStore(app, "w1", path=tmp_path / "x.db")
    runner = CliRunner()
    args = ["store", "init", owner, "--app-role", testserver.APP_ROLE, "--dims", "64", "--json"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["schema_version"] == schema.SCHEMA_VERSION
    root = tmp_path / "ws"
    root.mkdir()
    config = load_config(root, overrides={"storage": {"url": app, "workspace": "team/init"}})
    with Brain(root, config=config, provider=TinyEmbedder()) as brain:
        for i in range(30):
            brain.write(f"note {i} about the ledger and topic{i % 4}")
    again = runner.invoke(main, args)  # after an import: the k-NN index over what is there
    assert again.exit_code == 0, again.output
    built = json.loads(again.output)["vector_indexes"]
    assert any(b.startswith("ivfflat") and "text" in b for b in built), built
    with Brain(root, config=config, provider=TinyEmbedder()) as brain:
        hits = brain.search(SearchRequest(query="topic3 ledger", mode="vector")).results
        assert hits and all("topic3" in h.title or "ledger" in h.title for h in hits)


def _git_repo(root: Path, messages: list[str]) -> None:
    """A repository with one commit per message (no user or system git configuration)."""
    env = {
        "PATH": __import__("os").environ["PATH"],
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
    }
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, env=env, check=True)
    for i, message in enumerate(messages):
        (root / f"f{i}.py").write_text(f"def f{i}():\n    return {i}\n")
        subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
        subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, env=env, check=True)


def test_the_git_history_stays_with_the_clone_and_out_of_the_team_store(
    tmp_path: Path, app_url: str
) -> None:
    """A clone's git history is per clone like its code index: `store migrate` leaves its
    commits behind, and in team mode the history is indexed into the clone's own file (with
    its code index), found there, and never written to the team store."""
    from nano_brain.history import History
    from nano_brain.store.commits import CommitStore

    root = tmp_path / "ws"
    _git_repo(root, ["Add the zeppelin loader", "Teach the zeppelin loader retries"])
    local_config = load_config(root, overrides={"embedding": {"provider": "none"}})
    with Brain(root, config=local_config, db_path=tmp_path / "local.db") as local:
        assert History(local).index().commits == 2
        local.write("The zeppelin loader retries twice.", title="Zeppelin retries")
        local_id = local.workspace_id
    source = SqliteStore(tmp_path / "local.db", local_id)
    team = PostgresStore(app_url, "team/history", path=tmp_path / "x.db")
    try:
        assert copy_memory(source, team).documents == 1  # the note, not the two commits
        assert team.list_documents(Filters(kinds=("commit",))) == []
    finally:
        source.close()
        team.close()
    with team_brain(root, app_url, "team/history") as brain:
        report = History(brain).index()
        assert report.state == "indexed" and report.commits == 2
        assert CommitStore(brain.store).commit_count() == 2
        assert brain.store.team.list_documents(Filters(kinds=("commit",))) == []
        assert len(brain.store.local.list_documents(Filters(kinds=("commit",)))) == 2
        hits = brain.search(SearchRequest(query="zeppelin loader", mode="lexical")).results
        # the note first; the clone's commits after it, from its own history
        assert [h.kind for h in hits] == ["note", "commit", "commit"]
        assert hits[0].title == "Zeppelin retries"


def test_value_lists_bind_as_one_array_with_the_same_rows(tmp_path: Path, app_url: str) -> None:
    """``IN (?,...)`` lists of ints or strings are sent as one array (one statement text
    whatever their length); ``NOT IN`` as ``<> ALL``; other lists are left as written."""
    text, params = _arrays("SELECT 1 WHERE a = ? AND b IN (?,?) AND c NOT IN (?, ?, ?)",
                           ["x", 1, 2, "p", "q", "r"])  # fmt: skip
    assert text == "SELECT 1 WHERE a = ? AND b = ANY(?::bigint[]) AND c <> ALL(?::text[])"
    assert params == ["x", [1, 2], ["p", "q", "r"]]
    mixed = ("SELECT 1 WHERE b IN (?,?) AND c JOIN (?)", [1, "two", 3])
    assert _arrays(*mixed) == mixed
    with team_brain(tmp_path / "ws", app_url, "team/arrays") as brain:
        written = [brain.write(f"Array note {i}.", title=f"N{i}").document for i in range(300)]
        store = brain.store.team
        ids = [store.find_current(d.id).id for d in written]  # type: ignore[union-attr]
        for n in (1, 2, 7, 300):
            assert sorted(store.get_many(ids[:n])) == sorted(ids[:n])
        uids = [d.id for d in written[:3]]
        others = store._rows(
            "SELECT count(*) FROM documents WHERE workspace_id = ? AND uid NOT IN (?,?,?)",
            ("team/arrays", *uids),
        )
        assert others[0][0] == 297


def test_a_copy_leaves_the_planner_statistics_up_to_date(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    """`store migrate` ends with ANALYZE, which the app role may run (PostgreSQL 17's
    MAINTAIN): a copied workspace is not planned with the statistics of before."""
    owner = pg_server.owner_url.replace("/nano_brain?", "/nb_analyze?")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS nb_analyze WITH (FORCE)")
        conn.execute("CREATE DATABASE nb_analyze")
    with psycopg.connect(owner, autocommit=True) as conn:
        migrate(conn, "nb_analyze")
        conn.execute(schema.grant_sql(testserver.APP_ROLE))
        tuples = "SELECT reltuples FROM pg_class WHERE relname = %s"
        assert conn.execute(tuples, ("chunk_terms",)).fetchone()[0] < 0  # never analyzed
    root = tmp_path / "ws"
    root.mkdir()
    config = load_config(root, overrides={"embedding": {"provider": "none"}})
    with Brain(root, config=config, db_path=tmp_path / "local.db") as brain:
        for i in range(12):
            brain.write(f"Copied note {i} about harbour cranes.")
        workspace = brain.workspace_id
    source = SqliteStore(tmp_path / "local.db", workspace)
    app = owner.replace("postgres:@", f"{testserver.APP_ROLE}@")
    team = PostgresStore(app, "team/analyzed", path=tmp_path / "x.db")
    try:
        assert copy_memory(source, team).documents == 12
        postings = team._rows("SELECT count(*) FROM chunk_terms")[0][0]
    finally:
        source.close()
        team.close()
    with psycopg.connect(owner, autocommit=True) as conn:
        assert conn.execute(tuples, ("chunks",)).fetchone()[0] == 12
        assert conn.execute(tuples, ("chunk_terms",)).fetchone()[0] == postings > 12


def test_chunks_go_in_many_to_a_statement_on_postgres_too(tmp_path: Path, app_url: str) -> None:
    """`replace_chunks` writes more rows than one statement takes (`_insert_rows`): every
    chunk lands in order, searchable, and a replacement leaves none of the old ones."""

    def word(i: int) -> str:
        return "zq" + "".join("abcdefghij"[int(d)] for d in f"{i:04d}")

    with team_brain(tmp_path / "ws", app_url, "team/chunks") as brain:
        doc = brain.write("Many chunks.", title="Many").document
        store = brain.store.team
        found = store.find_current(doc.id)
        assert found is not None
        count = 2 * _ROWS_PER_STATEMENT + 13
        rows = [ChunkRow(i, f"part {i}", f"body {word(i)}", "", i + 1, i + 1) for i in range(count)]
        with store.transaction():
            store.replace_chunks(found.id, rows)
        assert [c for _, c in store.chunks_of(found.id)] == rows
        last = store.lexical([word(count - 1)], "OR", Filters(), 10)
        assert [h.doc_id for h in last] == [found.id]
        with store.transaction():
            store.replace_chunks(found.id, rows[:3])
        assert len(store.chunks_of(found.id)) == 3
        gone = store.lexical([word(count - 1)], "OR", Filters(), 10)
        assert gone == []
