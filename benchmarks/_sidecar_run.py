"""The editor sidecar's first index of a repository, as bench_first_index measures it.

The real ``nano-brain lsp`` is started by pygls's LanguageClient on the repository (an editor
opening the folder), with the environment given (fresh XDG folders: a first index). Measured
from the spawn: a symbol found by workspace-symbol search and hovered, the first index pass's
end (code and history), no chunk left without a vector (the store read read-only), and the
memory: the sidecar's VmHWM (its peak RSS, kept by the kernel) and the largest VmHWM of the
processes it started, and theirs (the first index's child process, parse workers), as last
polled.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from nano_brain.testing import Session, start, stop

_DEF = re.compile(r"^(?:    )?def ([A-Za-z_]\w*)\(", re.M)
POLL_S = 1.0


def _status_kb(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            out += [int(c) for c in text]
    except OSError:
        pass
    return out


def _cmdline(pid: int) -> bytes | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and the ones they started, ..."""
    found: list[int] = []
    todo = _children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo += _children(child)
    return found


def _target(repo: Path) -> tuple[str, str, int, int]:
    """A function of the repository to look for and hover: (path, name, line, column), from
    the first Python file of `git ls-files` that defines one, library code before tests,
    documentation and examples (which the code index may skip as vendored)."""
    files = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    aside = ("doc/", "docs/", "examples/", "example/")
    files = sorted(files, key=lambda f: ("test" in f or f.startswith(aside), f))
    for rel in files:
        try:
            text = (repo / rel).read_text()
        except (OSError, UnicodeDecodeError):
            continue
        match = _DEF.search(text)
        if match:
            line = text.count("\n", 0, match.start(1))
            column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1)
            return rel, match.group(1), line, column
    raise SystemExit(f"no Python function found in {repo}")


def _pending(store: Path) -> int | None:
    """Chunks waiting for a vector, read-only (None while the store cannot be read)."""
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
        try:
            return int(db.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None


async def _run(repo: Path, timeout: float, embed: bool) -> dict[str, Any]:
    rel, name, line, column = _target(repo)
    started = time.perf_counter()
    session: Session = await start(repo)
    pid = session.client._server.pid  # type: ignore[union-attr]
    out: dict[str, Any] = {"target": f"{rel}::{name}"}
    child_peak = 0

    def since() -> float:
        return round(time.perf_counter() - started, 2)

    own = _cmdline(pid)

    def poll_children() -> None:
        # VmHWM: a child's peak between two polls counts (the first index's child process
        # peaks within its code pass, a few seconds). A child forked but not yet running its
        # own program shares the sidecar's pages: its VmHWM is the sidecar's, not its own
        nonlocal child_peak
        for child in _descendants(pid):
            if _cmdline(child) == own:
                continue
            rss = _status_kb(child, "VmHWM")
            if rss:
                child_peak = max(child_peak, rss)

    try:
        uri = session.open(rel)
        while "symbol_found_s" not in out or "hover_s" not in out:
            if time.perf_counter() - started > timeout:
                raise TimeoutError("the symbol index was not ready in time")
            if "symbol_found_s" not in out and name in " ".join(await session.symbols(name)):
                out["symbol_found_s"] = since()
            if "hover_s" not in out:
                hover = await session.hover(uri, line, column)
                if hover is not None:
                    out["hover_s"] = since()
            poll_children()
            await asyncio.sleep(0.2)
        store: Path | None = None
        while time.perf_counter() - started < timeout:
            poll_children()
            if "first_pass_s" not in out and session.passes():
                out["first_pass_s"] = since()
            if not embed and "first_pass_s" in out:
                out["embedded_s"] = None  # embedding off: nothing is waited for
                break
            if store is None:
                folders = (await session.status()).folders  # pygls gives attribute objects
                store = Path(folders[0].store) if folders else None
            pending = _pending(store) if store else None
            if "first_pass_s" in out and pending == 0:
                out["embedded_s"] = since()
                break
            await asyncio.sleep(POLL_S)
        else:
            out["embedded_s"] = None
            out["pending_at_timeout"] = _pending(store) if store else None
        out["sidecar_vmhwm_mb"] = round((_status_kb(pid, "VmHWM") or 0) / 1024, 1)
        out["children_peak_rss_mb"] = round(child_peak / 1024, 1)
    finally:
        await stop(session)
    return out


def measure_sidecar(
    repo: Path, env: dict[str, str], timeout: float, *, embed: bool = True
) -> dict[str, Any]:
    """The sidecar's first index of ``repo`` with the environment ``env`` (see the module)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # the LanguageClient spawns the server with this environment
    try:
        return asyncio.run(_run(repo, timeout, embed))
    finally:
        os.environ.clear()
        os.environ.update(saved)
