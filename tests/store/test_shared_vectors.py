"""Team mode: a clone embeds only the texts no clone has embedded before with the same model;
the rest come from the team store's shared vectors (schema 7), equal to the first clone's.
The shared table failing (no permission, server gone) never fails embedding."""

from __future__ import annotations

import hashlib
import logging
import textwrap
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import psycopg
import pytest

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex
from nano_brain.config import load_config
from nano_brain.embedder import embed_text
from nano_brain.filters import Filters
from nano_brain.indexing import index_workspace
from nano_brain.store.postgres import schema, testserver
from nano_brain.store.postgres.store import PostgresStore, migrate
from nano_brain.store.postgres.vectors import SHARED_ROWS
from nano_brain.store.rows import PendingChunk
from nano_brain.store.sqlite.store import SqliteStore
from nano_brain.store.team import TeamStore

from ..conftest import TinyEmbedder

FILES = {
    "shop/billing.py": '''
        """Invoices and refunds."""


        def refund_amount(total: int, days: int) -> int:
            """How much of an invoice is refunded after `days`."""
            if days > 30:
                return 0
            return total


        class Invoice:
            """An invoice of the shop."""

            def __init__(self, total: int) -> None:
                self.total = total

            def overdue(self, days: int) -> bool:
                """Whether payment is late."""
                return days > 14
        ''',
    "shop/cart.py": '''
        """The cart."""


        def add_item(cart: list[str], item: str) -> list[str]:
            """Add an item to the cart."""
            return [*cart, item]


        def cart_total(prices: list[int]) -> int:
            """Sum of the prices."""
            return sum(prices)
        ''',
}


class CountingEmbedder(TinyEmbedder):
    """TinyEmbedder under a name of its own (the shared table outlives a test), recording
    every text it embeds."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        return super().embed_documents(texts)


def _clone(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip())
    return root


def _brain(root: Path, url: str, workspace: str, embedder: TinyEmbedder) -> Brain:
    config = load_config(
        root,
        overrides={"storage": {"url": url, "workspace": workspace}, "user": {"name": "Ann"}},
    )
    return Brain(root, config=config, provider=embedder)


def _index(brain: Brain) -> int:
    """Index the clone's code and embed it; the chunks embedded."""
    index_workspace(CodeIndex(brain), history=False)
    done = brain.embed_pending(space="code")
    assert brain.store.pending_count("code") == 0
    return done


def _vectors(brain: Brain) -> dict[str, np.ndarray]:
    """The clone's code vectors by the text they were embedded from."""
    store = brain.store
    assert isinstance(store, TeamStore)
    local: SqliteStore = store.local
    rows = local._rows(
        "SELECT c.id, c.doc_id, c.title, c.heading, c.body, c.symbol FROM chunks c "
        "JOIN documents d ON d.id = c.doc_id WHERE d.kind = 'code'"
    )
    vectors = local.vectors_by_chunk([r[0] for r in rows])
    return {embed_text(PendingChunk(*r[:5], bool(r[5]))): vectors[r[0]] for r in rows}


def _workspace(tmp_path: Path) -> str:
    return f"team/shared/{tmp_path.name}"


@pytest.fixture
def model() -> str:
    """A model name no other test has published vectors for."""
    return f"test/counting-{uuid.uuid4().hex[:12]}"


def test_a_second_clone_embeds_nothing_and_gets_the_first_clones_vectors(
    tmp_path: Path, pg_server: testserver.TestServer, model: str
) -> None:
    ws = _workspace(tmp_path)
    a_embedder, b_embedder = CountingEmbedder(model), CountingEmbedder(model)
    with _brain(_clone(tmp_path / "a"), pg_server.app_url, ws, a_embedder) as a:
        assert _index(a) > 0
        first = _vectors(a)
    assert sorted(a_embedder.texts) == sorted(first)  # every chunk embedded once, here
    with _brain(_clone(tmp_path / "b"), pg_server.app_url, ws, b_embedder) as b:
        assert _index(b) == len(first)
        second = _vectors(b)
        assert b_embedder.texts == []
        # an edit: only its changed symbol is embedded, and published
        billing = tmp_path / "b" / "shop" / "billing.py"
        billing.write_text(billing.read_text().replace("days > 14", "days > 21"))
        _index(b)
        edited = _vectors(b)
    assert second.keys() == first.keys()
    for text, vector in first.items():
        assert np.array_equal(second[text], vector), text
    changed = set(edited) - set(first)
    assert b_embedder.texts and set(b_embedder.texts) == changed
    assert all("days > 21" in t for t in changed)
    # what B embedded is there for the next clone
    with psycopg.connect(pg_server.owner_url) as conn:
        rows = conn.execute(
            "SELECT text_sha256, dim, db_role FROM shared_vectors WHERE model = %s", (model,)
        ).fetchall()
    digests = {hashlib.sha256(t.encode()).digest() for t in [*first, *changed]}
    assert {bytes(r[0]) for r in rows} == digests
    assert {(r[1], r[2]) for r in rows} == {(64, testserver.APP_ROLE)}


def test_another_model_reuses_nothing(
    tmp_path: Path, pg_server: testserver.TestServer, model: str
) -> None:
    ws = _workspace(tmp_path)
    with _brain(_clone(tmp_path / "a"), pg_server.app_url, ws, CountingEmbedder(model)) as a:
        embedded = _index(a)
    other = CountingEmbedder(f"{model}-v2")
    with _brain(_clone(tmp_path / "b"), pg_server.app_url, ws, other) as b:
        assert _index(b) == embedded
    assert len(other.texts) == embedded
    # a model of the same name with vectors of another length shares nothing either
    longer = CountingEmbedder(model)
    longer._dim = 32
    with _brain(_clone(tmp_path / "c"), pg_server.app_url, ws, longer) as c:
        assert _index(c) == embedded
    assert len(longer.texts) == embedded


def test_notes_are_never_shared(
    tmp_path: Path, pg_server: testserver.TestServer, model: str
) -> None:
    """Notes live in the team store with their vectors: nothing to look up or publish."""
    root = tmp_path / "a"
    root.mkdir()
    with _brain(root, pg_server.app_url, _workspace(tmp_path), CountingEmbedder(model)) as a:
        a.write("Refunds stop after thirty days.")
        a.embed_pending()
        assert a.store.pending_count() == 0
    with psycopg.connect(pg_server.owner_url) as conn:
        found = conn.execute("SELECT count(*) FROM shared_vectors WHERE model = %s", (model,))
        assert found.fetchone() == (0,)


@pytest.fixture
def limited_url(pg_server: testserver.TestServer) -> Iterator[tuple[str, str]]:
    """The app role's grants under another login role, for the test to take some away."""
    role = f"nb_limited_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS")
        conn.execute(schema.grant_sql(role))
    yield role, pg_server.app_url.replace(f"{testserver.APP_ROLE}@", f"{role}@")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}")
        conn.execute(f"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM {role}")
        conn.execute(f"DROP OWNED BY {role}")
        conn.execute(f"DROP ROLE {role}")


def test_a_role_that_may_not_read_them_embeds_here(
    tmp_path: Path,
    pg_server: testserver.TestServer,
    model: str,
    limited_url: tuple[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    role, url = limited_url
    ws = _workspace(tmp_path)
    with _brain(_clone(tmp_path / "a"), pg_server.app_url, ws, CountingEmbedder(model)) as a:
        first = _vectors(a) if _index(a) else {}
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute(f"REVOKE ALL ON shared_vectors FROM {role}")
    embedder = CountingEmbedder(model)
    with caplog.at_level(logging.DEBUG, "nano_brain.embedder"):
        with _brain(_clone(tmp_path / "b"), url, ws, embedder) as b:
            assert _index(b) == len(first)
            second = _vectors(b)
    assert sorted(embedder.texts) == sorted(first)
    assert second.keys() == first.keys()
    assert all(np.array_equal(second[t], v) for t, v in first.items())
    warned = [r for r in caplog.records if "shared vectors unavailable" in r.getMessage()]
    assert [r.levelno for r in warned][:1] == [logging.WARNING], caplog.text
    assert all(r.levelno == logging.DEBUG for r in warned[1:])


def test_a_role_that_may_only_read_them_reuses_and_publishes_nothing(
    tmp_path: Path,
    pg_server: testserver.TestServer,
    model: str,
    limited_url: tuple[str, str],
) -> None:
    role, url = limited_url
    ws = _workspace(tmp_path)
    with _brain(_clone(tmp_path / "a"), pg_server.app_url, ws, CountingEmbedder(model)) as a:
        _index(a)
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute(f"REVOKE INSERT ON shared_vectors FROM {role}")
    embedder = CountingEmbedder(model)
    root = _clone(tmp_path / "b")
    (root / "shop" / "tax.py").write_text("def vat(net: int) -> int:\n    return net * 21 // 100\n")
    with _brain(root, url, ws, embedder) as b:
        _index(b)
    assert len(embedder.texts) == 1 and "vat" in embedder.texts[0]
    with psycopg.connect(pg_server.owner_url) as conn:
        published = conn.execute(
            "SELECT count(*) FROM shared_vectors WHERE model = %s AND db_role = %s", (model, role)
        ).fetchone()
    assert published == (0,)


def test_the_server_gone_embeds_here(
    tmp_path: Path,
    pg_server: testserver.TestServer,
    model: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ws = _workspace(tmp_path)
    with _brain(_clone(tmp_path / "a"), pg_server.app_url, ws, CountingEmbedder(model)) as a:
        embedded = _index(a)
    embedder = CountingEmbedder(model)
    with _brain(_clone(tmp_path / "b"), pg_server.app_url, ws, embedder) as b:
        index_workspace(CodeIndex(b), history=False)
        store = b.store
        assert isinstance(store, TeamStore)
        store.team._db.close()  # the team's connection is lost; the code is the clone's
        with caplog.at_level(logging.WARNING, "nano_brain.embedder"):
            assert b.embed_pending(space="code") == embedded
        assert "shared vectors unavailable (read)" in caplog.text
        assert store.local.pending_count("code") == 0
    assert len(embedder.texts) == embedded


def test_the_shared_table_is_added_to_a_version_6_store(
    pg_server: testserver.TestServer, tmp_path: Path
) -> None:
    owner = pg_server.owner_url.replace("/nano_brain?", "/nb_v6?")
    with psycopg.connect(pg_server.owner_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS nb_v6 WITH (FORCE)")
        conn.execute("CREATE DATABASE nb_v6")
    with psycopg.connect(owner, autocommit=True) as conn:
        migrate(conn, "nb_v6", to=6)
        assert conn.execute("SELECT to_regclass('shared_vectors')").fetchone() == (None,)
        conn.execute(
            "INSERT INTO documents (workspace_id, uid, kind, collection, title, content, "
            "content_hash, created_at, updated_at, valid_from, recorded_at) VALUES "
            "('w1', 'u1', 'note', 'memory', 'Old', 'old note', 'h', 1, 1, 1, 1)"
        )
        migrate(conn, "nb_v6")
        version = conn.execute("SELECT max(version) FROM nb_schema").fetchone()[0]
        assert version == schema.SCHEMA_VERSION == 7
        conn.execute(schema.grant_sql(testserver.APP_ROLE))
    app = owner.replace("postgres:@", f"{testserver.APP_ROLE}@")
    vector = np.full(4, 0.5, dtype=np.float32)
    digest = hashlib.sha256(b"def f(): pass").digest()
    store = PostgresStore(app, "w1", path=tmp_path / "x.db")
    try:
        assert [d.uid for d in store.list_documents(Filters())] == ["u1"]
        assert store.share_vectors("m", 4, [(digest, vector), (digest, vector)]) == 1
        assert store.share_vectors("m", 4, [(digest, -vector)]) == 0  # the first one stays
        assert np.array_equal(store.shared_vectors("m", 4, [digest])[digest], vector)
        assert store.shared_vectors("m", 8, [digest]) == {}
    finally:
        store.close()
    # any workspace reads them; the app role may not change or delete them
    other = PostgresStore(app, "w2", path=tmp_path / "x.db")
    try:
        assert list(other.shared_vectors("m", 4, [digest])) == [digest]
    finally:
        other.close()
    with psycopg.connect(app, autocommit=True) as conn:
        for statement in ("UPDATE shared_vectors SET dim = 4", "DELETE FROM shared_vectors"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        with pytest.raises(psycopg.errors.CheckViolation):  # a vector of another length
            conn.execute(
                "INSERT INTO shared_vectors (model, dim, text_sha256, embedding) "
                "VALUES ('m', 3, %s, '[1,2]')",
                (hashlib.sha256(b"x").digest(),),
            )

    # more than a statement's worth, both ways
    many = [(hashlib.sha256(str(i).encode()).digest(), vector * i) for i in range(600)]
    store = PostgresStore(app, "w2", path=tmp_path / "x.db")
    try:
        assert store.share_vectors("m", 4, many) == 600 > SHARED_ROWS
        found = store.shared_vectors("m", 4, [d for d, _ in many])
        assert len(found) == 600 and np.array_equal(found[many[599][0]], many[599][1])
    finally:
        store.close()
