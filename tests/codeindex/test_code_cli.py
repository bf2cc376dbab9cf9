"""The code index commands, run as the real `nano-brain` executable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ._route_apps import ORDERS
from .conftest import write_tree

FILES = {
    ".gitignore": "ignored/\n",
    "lib/core.py": """
        def parse(text):
            '''Split text into words.'''
            return text.split()

        def count(text):
            return len(parse(text))
        """,
    "lib/cli.py": """
        from lib.core import count

        def run(argv):
            return count(argv[0])
        """,
    "ignored/x.py": "def hidden():\n    pass\n",
    "README.md": "# Demo\n\nA word counter.\n",
}


def nb(ws: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NANO_BRAIN_EMBEDDING__PROVIDER="none")
    exe = Path(sys.executable).with_name("nano-brain")
    cmd = [str(exe) if exe.exists() else "nano-brain", *args, "--workspace", str(ws)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} failed ({proc.returncode}): {proc.stderr}")
    return proc


def nb_json(ws: Path, *args: str) -> Any:
    return json.loads(nb(ws, *args, "--json").stdout)


@pytest.fixture
def ws(workspace: Path) -> Path:
    write_tree(workspace, FILES)
    return workspace


def test_index_summary_and_incremental_rerun(ws: Path) -> None:
    first = nb_json(ws, "index")
    assert (first["new"], first["source_files"], first["text_files"]) == (3, 2, 1)
    assert first["symbols"] == 3 and first["resolved_calls"] == 2
    assert first["skipped"] == {"gitignored": 1}
    assert {"files", "symbols", "edges", "skipped", "seconds"} <= first.keys()
    second = nb_json(ws, "index")
    assert (second["unchanged"], second["parsed"]) == (3, 0)
    text = nb(ws, "index").stdout
    assert "indexed 3 files" in text and "3 symbols" in text


def test_index_of_named_files_looks_at_those_alone(ws: Path) -> None:
    nb_json(ws, "index")
    (ws / "lib" / "core.py").write_text("def parse(text):\n    return text.split()\n")
    (ws / "lib" / "cli.py").write_text("def run(argv):\n    return 1\n\ndef other():\n    pass\n")
    # spelled relative to the current folder or absolute
    named = nb_json(ws, "index", str(ws / "lib" / "core.py"))
    assert (named["paths"], named["changed"], named["unchanged"], named["symbols"]) == (1, 1, 0, 2)
    outside = nb(ws, "index", str(ws.parent), check=False)
    assert outside.returncode == 2 and "not a file of the workspace" in outside.stderr
    assert nb_json(ws, "symbols", "other") == []  # nothing else was looked at
    assert nb_json(ws, "index")["changed"] == 1  # until a whole pass
    assert [s["qualified_name"] for s in nb_json(ws, "symbols", "other")] == ["lib/cli.py::other"]


def test_symbols_callers_callees_impact(ws: Path) -> None:
    nb(ws, "index", "--json")
    found = nb_json(ws, "symbols", "parse", "--kind", "function")
    assert [s["qualified_name"] for s in found] == ["lib/core.py::parse"]
    assert found[0]["docstring"] == "Split text into words."
    callers = nb_json(ws, "callers", "parse")
    assert [(c["caller"], c["line"]) for c in callers["callers"]] == [("lib/core.py::count", 7)]
    callees = nb_json(ws, "callees", "lib/cli.py::run")
    assert [(c["name"], c["callee"]) for c in callees["callees"]] == [
        ("count", "lib/core.py::count")
    ]
    impact = nb_json(ws, "impact", "parse", "--depth", "2")
    assert [(a["qualified_name"], a["depth"]) for a in impact["affected"]] == [
        ("lib/core.py::count", 1),
        ("lib/cli.py::run", 2),
    ]
    human = nb(ws, "impact", "parse").stdout
    assert "lib/cli.py::run" in human
    assert "lib/core.py::count" in nb(ws, "callers", "parse").stdout


def test_errors_are_one_line_with_exit_codes(ws: Path) -> None:
    nb(ws, "index", "--json")
    missing = nb(ws, "callers", "nothing_here", check=False)
    assert missing.returncode == 3 and "no symbol" in missing.stderr
    bad = nb(ws, "impact", "parse", "--depth", "0", check=False)
    assert bad.returncode == 2 and "depth" in bad.stderr


def test_lexical_search_sees_indexed_code(ws: Path) -> None:
    nb(ws, "index", "--json")
    hits = nb_json(ws, "search", "split", "words", "--kind", "code")
    assert hits["results"][0]["source_path"] == "code://lib/core.py::parse"


def test_callees_show_callee_expressions_as_written(workspace: Path) -> None:
    long_args = ", ".join(f"argument_number_{i}" for i in range(20))
    write_tree(
        workspace,
        {
            "seg.py": f"""
                def render(new_segments):
                    out = "".join(segment.text
                                  for segment in new_segments).strip()
                    return build({long_args}).finish()
                """,
        },
    )
    nb(workspace, "index")
    calls = nb_json(workspace, "callees", "render")["callees"]
    shown = {c["name"]: c["expression"] for c in calls}
    # the source text, one space per run of blanks (not "segment.textforsegmentinnew_segments")
    assert shown["strip"] == '"".join(segment.text for segment in new_segments).strip'
    assert shown["join"] == '"".join'
    finish = shown["finish"]
    assert finish.startswith("build(argument_number_0, argument_number_1,")
    assert finish.endswith("…") and len(finish) == 160
    human = nb(workspace, "callees", "render").stdout
    assert '? "".join(segment.text for segment in new_segments).strip' in human


def test_routes_flow_draws_each_callee_under_its_caller(workspace: Path) -> None:
    write_tree(workspace, ORDERS)
    nb(workspace, "index")
    out = nb(workspace, "routes", "/orders", "--flow").stdout
    # the call tree of shop/app.py::create_order, read off the app by hand
    assert out.splitlines() == [
        "POST /orders  (flask, shop/app.py:10)",
        "  handler shop/app.py::create_order",
        "    shop/service.py::place_order  (shop/app.py:12)",
        "      shop/service.py::validate  (shop/service.py:5)",
        "        shop/service.py::validate  (shop/service.py:13)  (see above)",
        "      shop/service.py::price  (shop/service.py:6)",
        "        shop/service.py::apply_tax  (shop/service.py:18)",
        "      shop/audit.py::log_event  (shop/service.py:7)  (see below)",
        "    shop/policy.py::RefundPolicy  (shop/app.py:14)",
        "    shop/policy.py::RefundPolicy.refund_amount  (shop/app.py:15)",
        "      shop/policy.py::RefundPolicy.within_window  (shop/policy.py:6)",
        "    shop/audit.py::log_event  (shop/app.py:17)",
        "  unresolved calls: order.get",
    ]


def test_a_method_called_on_a_fresh_instance_has_its_caller(workspace: Path) -> None:
    write_tree(workspace, ORDERS)
    nb(workspace, "index")
    impact = nb_json(workspace, "impact", "RefundPolicy.refund_amount")
    assert [(a["qualified_name"], a["depth"]) for a in impact["affected"]] == [
        ("shop/app.py::create_order", 1)
    ]
    callers = nb_json(workspace, "callers", "RefundPolicy.refund_amount")["callers"]
    assert [(c["caller"], c["line"]) for c in callers] == [("shop/app.py::create_order", 15)]
    assert "no callers" not in nb(workspace, "impact", "RefundPolicy.refund_amount").stdout
