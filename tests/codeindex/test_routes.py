"""HTTP routes: small apps per framework, indexed for real; precision and recall of the routes
(method, full path, handler symbol) against what a reader of each app finds in it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from nano_brain import Brain
from nano_brain.cli import main
from nano_brain.codeindex import CodeIndex, Routes, parse_file
from nano_brain.codeindex._route_service import MAX_FLOW_STEPS
from nano_brain.codeindex._routes import join_paths
from nano_brain.config import load_config
from nano_brain.lsp.render import hover_markdown
from nano_brain.store.sqlite.migrations import SCHEMA_VERSION

from ..store._rewind import undo_migration_13
from ._route_apps import APPS, FLASK, ORDERS, Route
from .conftest import write_tree


def _brain(workspace: Path) -> Brain:
    config = load_config(workspace, overrides={"embedding": {"provider": "none"}})
    return Brain(workspace, config=config)


def _routes(brain: Brain) -> set[Route]:
    return {(r.method, r.path, r.handler) for r in Routes(brain).list(limit=100_000)}


@pytest.mark.parametrize("framework", sorted(APPS))
def test_routes_of_each_framework(workspace: Path, framework: str) -> None:
    files, expected = APPS[framework]
    write_tree(workspace, files)
    with _brain(workspace) as brain:
        report = CodeIndex(brain).index()
        found = _routes(brain)
        frameworks = {r.framework for r in Routes(brain).list(limit=1000)}
    assert report.routes == len(found)
    wanted = set(expected)
    assert len(wanted) == len(expected)
    hits = found & wanted
    precision = len(hits) / len(found) if found else 0.0
    recall = len(hits) / len(wanted)
    assert precision == 1.0, sorted(found - wanted, key=str)
    assert recall >= 0.95, sorted(wanted - found, key=str)
    assert frameworks == {framework}


def test_a_mount_changed_in_one_file_moves_the_routes_of_another(workspace: Path) -> None:
    write_tree(workspace, FLASK)
    with _brain(workspace) as brain:
        code = CodeIndex(brain)
        code.index()
        assert ("DELETE", "/api/users/<int:user_id>", "shop/users.py::user") in _routes(brain)
        init = workspace / "shop" / "__init__.py"
        init.write_text(init.read_text().replace('url_prefix="/api"', 'url_prefix="/v2"'))
        report = code.index()
        assert report.changed == 1
        routes = _routes(brain)
        assert ("DELETE", "/v2/users/<int:user_id>", "shop/users.py::user") in routes
        assert not any(path.startswith("/api/") for _, path, _ in routes)
        (workspace / "shop" / "orders.py").unlink()
        code.index()
        assert not any(path.startswith("/orders") for _, path, _ in _routes(brain))
        assert Routes(brain).list(method="get", path="/v2/*") == Routes(brain).list(
            method="GET", path="/v2/*"
        )


def test_a_flow_follows_the_handler_and_shows_the_notes_on_the_way(workspace: Path) -> None:
    write_tree(workspace, FLASK)
    with _brain(workspace) as brain:
        code = CodeIndex(brain)
        code.index()
        note = brain.write("load_user must never return deleted users", title="Soft deletes")
        code.anchor(note.document.id, "shop/db.py::load_user")
        gone = brain.write("an old idea about loading users", title="Old idea")
        code.anchor(gone.document.id, "shop/db.py::load_user")
        brain.retract(gone.document.id, reason="wrong")
        (flow,) = Routes(brain).flow("DELETE /api/users/<int:user_id>")
        assert flow.route.handler == "shop/users.py::user"
        assert [(s.qualified_name, s.depth) for s in flow.steps] == [("shop/db.py::load_user", 1)]
        assert [n.note_id for n in flow.notes] == [note.document.id]
        # a path without a method names every route on it
        assert {f.route.method for f in Routes(brain).flow("/api/users/<int:user_id>")} == {
            "GET",
            "DELETE",
        }
        assert Routes(brain).flow("GET /nowhere") == []
        assert Routes(brain).of_symbols(["shop/users.py::create"])[0].label == "POST /api/users/"


def test_a_flow_is_the_call_tree_of_its_handler(workspace: Path) -> None:
    write_tree(workspace, ORDERS)
    with _brain(workspace) as brain:
        CodeIndex(brain).index()
        routes = Routes(brain)
        (flow,) = routes.flow("POST /orders")
        (shallow,) = routes.flow("POST /orders", depth=2)
    app, service, policy = "shop/app.py", "shop/service.py", "shop/policy.py"
    log_event = "shop/audit.py::log_event"
    # (symbol, depth, caller, call site, shown in full elsewhere), read off the app by hand
    tree = [
        (f"{service}::place_order", 1, f"{app}::create_order", f"{app}:12", False),
        (f"{service}::validate", 2, f"{service}::place_order", f"{service}:5", False),
        (f"{service}::validate", 3, f"{service}::validate", f"{service}:13", True),
        (f"{service}::price", 2, f"{service}::place_order", f"{service}:6", False),
        (f"{service}::apply_tax", 3, f"{service}::price", f"{service}:18", False),
        # reached in one hop from the handler below: shown in full there
        (log_event, 2, f"{service}::place_order", f"{service}:7", True),
        (f"{policy}::RefundPolicy", 1, f"{app}::create_order", f"{app}:14", False),
        (f"{policy}::RefundPolicy.refund_amount", 1, f"{app}::create_order", f"{app}:15", False),
        (
            f"{policy}::RefundPolicy.within_window",
            2,
            f"{policy}::RefundPolicy.refund_amount",
            f"{policy}:6",
            False,
        ),
        (log_event, 1, f"{app}::create_order", f"{app}:17", False),
    ]
    got = [(s.qualified_name, s.depth, s.via, f"{s.path}:{s.line}", s.repeated) for s in flow.steps]
    assert got == tree
    assert flow.unresolved == ["order.get"] and not flow.truncated
    assert [(s.qualified_name, s.depth) for s in shallow.steps] == [
        (f"{service}::place_order", 1),
        (f"{service}::validate", 2),
        (f"{service}::price", 2),
        (log_event, 2),
        (f"{policy}::RefundPolicy", 1),
        (f"{policy}::RefundPolicy.refund_amount", 1),
        (f"{policy}::RefundPolicy.within_window", 2),
        (log_event, 1),
    ]


def test_a_flow_through_a_cycle_shows_each_symbol_in_full_once(workspace: Path) -> None:
    app = (
        "from flask import Flask\n"
        "app = Flask(__name__)\n"
        "@app.get('/ping')\n"
        "def ping():\n"
        "    return pong(3)\n"
        "def pong(n):\n"
        "    return ping() if n else pang(n)\n"
        "def pang(n):\n"
        "    return pong(n - 1)\n"
    )
    write_tree(workspace, {"app.py": app})
    with _brain(workspace) as brain:
        CodeIndex(brain).index()
        (flow,) = Routes(brain).flow("GET /ping", depth=6)
    assert [(s.qualified_name, s.depth, s.repeated) for s in flow.steps] == [
        ("app.py::pong", 1, False),
        ("app.py::ping", 2, True),
        ("app.py::pang", 2, False),
        ("app.py::pong", 3, True),
    ]


def test_a_flow_through_densely_calling_code_is_bounded(workspace: Path) -> None:
    names = [f"f{i}" for i in range(30)]
    body = "".join(f"    {n}()\n" for n in names)
    app = "from flask import Flask\napp = Flask(__name__)\n@app.get('/all')\ndef all_():\n"
    app += body + "".join(f"def {n}():\n{body}" for n in names)
    write_tree(workspace, {"app.py": app})
    with _brain(workspace) as brain:
        CodeIndex(brain).index()
        (flow,) = Routes(brain).flow("GET /all", depth=6)
    assert flow.truncated and len(flow.steps) == MAX_FLOW_STEPS
    # each function in full once, under the handler, then each one's calls as references
    assert [s.qualified_name for s in flow.steps[:2]] == ["app.py::f0", "app.py::f0"]
    assert [s.repeated for s in flow.steps[:2]] == [False, True]
    assert sum(not s.repeated for s in flow.steps) == 30


def test_routes_command_lists_filters_and_follows(workspace: Path) -> None:
    write_tree(workspace, FLASK)
    with _brain(workspace) as brain:
        CodeIndex(brain).index()
        db = str(brain.store.path)
    runner = CliRunner()
    base = ["--workspace", str(workspace), "--db", db]
    out = runner.invoke(main, ["routes", "users", "--method", "DELETE", "--json", *base])
    assert out.exit_code == 0, out.output
    assert [(r["method"], r["path"]) for r in json.loads(out.output)] == [
        ("DELETE", "/api/users/<int:user_id>")
    ]
    out = runner.invoke(main, ["routes", "/orders/*", "--flow", *base])
    assert out.exit_code == 0, out.output
    assert "GET /orders/<order_id>" in out.output and "handler shop/orders.py::show" in out.output
    out = runner.invoke(main, ["routes", "--method", "GET POST", *base])
    assert out.exit_code != 0 and "invalid HTTP method" in out.output


def test_hover_names_the_routes_a_handler_serves() -> None:
    text = hover_markdown("users.user", [], [], routes=["GET /users/{id}", "DELETE /users/{id}"])
    assert text is not None and "`GET /users/{id}`" in text and "`DELETE /users/{id}`" in text
    assert hover_markdown("f", [], [], routes=[]) is None


def test_a_file_with_too_many_routes_is_bounded() -> None:
    source = "from flask import Flask\napp = Flask(__name__)\n" + "".join(
        f'@app.get("/r{i}")\ndef r{i}():\n    pass\n' for i in range(6000)
    )
    facts = parse_file("big.py", source.encode()).routes
    assert len(facts) == 5000


def test_paths_built_at_run_time_are_not_routes() -> None:
    source = textwrap.dedent(
        """
        from flask import Flask
        app = Flask(__name__)
        BASE = "/x"

        @app.get(f"/{BASE}/items")
        def items():
            pass

        @app.get(BASE + "/more")
        def more():
            pass

        @pytest.mark.parametrize("/looks/like/a/path", [1])
        def test_x():
            pass
        """
    )
    assert parse_file("app.py", source.encode()).routes == []


@given(st.lists(st.text(alphabet="ab/:{}", max_size=8), max_size=5))
def test_joined_paths_have_one_slash_between_parts(parts: list[str]) -> None:
    joined = join_paths(*parts)
    assert joined.startswith("/") and "//" not in joined
    segments = [s for p in parts for s in p.split("/") if s]
    assert [s for s in joined.split("/") if s] == segments


def test_a_schema_8_store_gains_routes_on_its_next_index(workspace: Path) -> None:
    write_tree(workspace, FLASK)
    with _brain(workspace) as brain:
        CodeIndex(brain).index()
        symbols = brain.store._rows("SELECT count(*) FROM code_symbols")[0][0]
        path = brain.store.path
    # back to schema 8: as if the index ran before routes existed
    with _brain(workspace) as brain:
        for table in ("code_routes", "code_route_facts", "consolidation_proposals"):
            brain.store._exec(f"DROP TABLE {table}")
        undo_migration_13(brain.store._db)
        brain.store._exec("PRAGMA user_version = 8")
    with _brain(workspace) as brain:
        assert brain.store.path == path and brain.store.schema_version() == SCHEMA_VERSION
        assert Routes(brain).list() == []
        report = CodeIndex(brain).index()
        assert report.changed == len([p for p in FLASK if p.endswith(".py")])
        assert brain.store._rows("SELECT count(*) FROM code_symbols")[0][0] == symbols
        assert len(_routes(brain)) == 6
        # applied again (a user_version set back), nothing is doubled
        undo_migration_13(brain.store._db)
        brain.store._exec("PRAGMA user_version = 8")
    with _brain(workspace) as brain:
        CodeIndex(brain).index()
        assert len(Routes(brain).list()) == 6
