"""`nano-brain index`'s summary says where the time went (code index, history, embedding,
with the real default model) and when search works; `.git/` is not reported as a skip."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import write_tree

FILES = {
    "billing/refunds.py": """
        class RefundPolicy:
            '''Refunds stop after thirty days.'''

            def refund_amount(self, paid, days):
                return paid if days <= 30 else 0


        def refund(order):
            return RefundPolicy().refund_amount(order.paid, order.days)
        """,
    "billing/charges.py": """
        def charge(card, amount):
            '''Charge a card, retrying three times.'''
            return card.charge(amount)
        """,
    "README.md": "# Shop\n\nCharges and refunds.\n",
}
_SECONDS = r"(\d+\.\d+)s"


def _nb(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANO_BRAIN_")}
    exe = Path(sys.executable).with_name("nano-brain")
    cmd = [str(exe) if exe.exists() else "nano-brain", *args, "--workspace", str(ws)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, (cmd, proc.stderr)
    return proc


def _git(ws: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Ann", "-c", "user.email=ann@example.com", *args],
        cwd=ws,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(workspace: Path) -> Path:
    write_tree(workspace, FILES)
    _git(workspace, "init", "-q", "-b", "main")
    _git(workspace, "add", ".")
    _git(workspace, "commit", "-q", "-m", "Refunds stop after thirty days")
    return workspace


def _timings(text: str) -> dict[str, float]:
    took = re.search(rf"^  took {_SECONDS}: (.*)$", text, re.MULTILINE)
    assert took, text
    parts = dict(
        (name, float(seconds))
        for name, seconds in re.findall(rf"([a-z -]+) {_SECONDS}", took.group(2))
    )
    return {"total": float(took.group(1)), **{k.strip(): v for k, v in parts.items()}}


def test_the_summary_names_each_phase_and_when_search_works(repo: Path) -> None:
    # chunks left for later: lexical search works now, and the summary says so
    first = _nb(repo, "index", "--no-embed").stdout
    # no time on the first line that leaves phases out ("in 1.83s" for a 2.5-minute run)
    assert not re.search(rf" in {_SECONDS}$", first.splitlines()[0]), first
    times = _timings(first)
    assert {"start-up", "code index", "history"} <= times.keys(), first
    assert "embedding" not in times, first
    # the parts are printed rounded to 0.01 s, each: their sum may pass the total by that much
    parts = times["start-up"] + times["code index"] + times["history"]
    assert times["total"] >= parts - 0.005 * 3, first
    pending = re.search(r"lexical search works now; (\d+) chunks? wait for embeddings", first)
    assert pending and int(pending.group(1)) > 0, first

    # the same chunks embedded by the real default model: its time is in the summary
    second = _nb(repo, "index").stdout
    times = _timings(second)
    assert {"start-up", "code index", "history", "embedding"} <= times.keys(), second
    assert times["embedding"] > 0
    parts = sum(v for k, v in times.items() if k != "total")
    assert times["total"] >= parts - 0.005 * (len(times) - 1), second
    assert re.search(
        rf"lexical search worked after {_SECONDS}, search by meaning after {_SECONDS}", second
    ), second

    data = json.loads(_nb(repo, "index", "--json").stdout)
    timings = data["timings"]
    assert set(timings) == {"start_up", "code_index", "history", "embedding", "total"}
    assert timings["total"] >= sum(v for k, v in timings.items() if k != "total")


def test_git_metadata_is_not_a_skip(repo: Path) -> None:
    text = _nb(repo, "index", "--no-embed").stdout
    assert "vendored" not in text and "skipped" not in text, text
    data = json.loads(_nb(repo, "index", "--no-embed", "--json").stdout)
    assert data["skipped"] == {} and data["skipped_paths"] == []
