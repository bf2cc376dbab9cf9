"""Benchmark scripts run without pytest and without the tests folder (shared helpers live in
nano_brain.testing): each one's --help in a fresh interpreter where both are unimportable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

_RUN_WITHOUT_PYTEST = """
import runpy, sys
sys.modules["pytest"] = None  # any `import pytest` now raises ImportError
sys.modules["tests"] = None
script = sys.argv[1]
sys.path.insert(0, str(__import__("pathlib").Path(script).parent))
sys.argv = [script, "--help"]
runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize("script", ["bench_lsp.py", "bench_cli.py", "bench_hooks.py"])
def test_benchmark_runs_without_pytest(script: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _RUN_WITHOUT_PYTEST, str(BENCHMARKS / script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BENCHMARKS.parent,
    )
    assert out.returncode == 0, out.stderr
    assert "usage:" in out.stdout


def test_bench_hooks_runs_at_tiny_size(tmp_path: Path) -> None:
    """The hooks benchmark end to end on a tiny store: built, timed with no server and through
    `serve`, and its checks hold (answers name the anchored note; an unrelated prompt gets
    none). Its timings are not judged here."""
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_hooks.py"), "--notes", "40", "--files", "10",
         "--runs", "2", "--keep", str(tmp_path / "bench")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BENCHMARKS.parent,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "no server, command pre-edit: answers naming the anchored note 2/2" in out.stdout
    assert "serve, HTTP POST pre-edit: answers naming the anchored note 2/2" in out.stdout
    assert "no server empty (ok); serve empty (ok)" in out.stdout
    assert "load average" in out.stdout
