"""A skipped test fails the run (tests/conftest.py), so CI cannot pass while testing nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_CONFTEST = """
from tests.conftest import (  # the repository's hooks, nothing else
    pytest_addoption, pytest_collectreport, pytest_configure, pytest_runtest_logreport,
    pytest_sessionfinish, pytest_terminal_summary,
)
"""


def _run(tmp_path: Path, tests: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(_CONFTEST)
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(tests))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_skip_fails_the_run_and_names_the_test(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        """
        import pytest

        def test_needs_node():
            pytest.skip("node is not installed")

        def test_fine():
            assert True
        """,
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "1 skipped: the run fails" in done.stdout
    assert "SKIPPED test_sample.py::test_needs_node" in done.stdout


def test_a_module_skipped_at_collection_fails_the_run(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        """
        import pytest

        pytest.importorskip("no_such_module_anywhere")

        def test_never_runs():
            assert False
        """,
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "SKIPPED test_sample.py" in done.stdout


def test_allowed_skips_xfails_and_local_runs_pass(tmp_path: Path) -> None:
    allowed = _run(
        tmp_path,
        """
        import pytest

        @pytest.mark.allow_skip("documented: only runs on Windows")
        def test_windows_only():
            pytest.skip("not Windows")

        @pytest.mark.xfail(reason="a known bug", strict=True)
        def test_known_bug():
            assert False
        """,
    )
    assert allowed.returncode == pytest.ExitCode.OK, allowed.stdout
    local = _run(
        tmp_path,
        """
        import pytest

        def test_needs_nvim():
            pytest.skip("nvim is not installed")
        """,
        "--allow-skips",
    )
    assert local.returncode == pytest.ExitCode.OK, local.stdout


def test_a_failing_run_keeps_its_failure_code(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        """
        import pytest

        def test_skipped():
            pytest.skip("x")

        def test_broken():
            raise RuntimeError("boom")
        """,
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED
    assert "1 failed" in done.stdout


def test_a_required_suite_that_ran_nothing_fails_the_run(tmp_path: Path) -> None:
    tests = """
        import pytest

        CASES = []  # a parametrization over nothing: the file collects no test

        @pytest.mark.parametrize("case", CASES)
        def test_case(case):
            assert case
        """
    (tmp_path / "faults").mkdir()
    (tmp_path / "faults" / "test_kills.py").write_text("def test_kill():\n    assert True\n")
    done = _run(
        tmp_path,
        tests,
        "--require-suite=test_sample.py",
        "--require-suite=faults",
        "--require-suite=test_renamed.py",
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "test_sample.py: nothing passed: the run fails" in done.stdout
    assert "test_renamed.py: nothing passed: the run fails" in done.stdout
    assert "faults: 1 passed" in done.stdout


def test_required_suites_that_passed_pass_the_run(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        """
        def test_one():
            assert True

        def test_two():
            assert True
        """,
        "--require-suite=test_sample.py",
    )
    assert done.returncode == pytest.ExitCode.OK, done.stdout
    assert "test_sample.py: 2 passed" in done.stdout
