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


@pytest.mark.parametrize("script", ["bench_lsp.py", "bench_cli.py"])
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
