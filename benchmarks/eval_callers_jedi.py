"""Accuracy of `callers` against Jedi's references, on packages of the standard library.

The packages (default: json, email, http, asyncio) are copied into a scratch workspace and
indexed with ``CodeIndex``. Functions and methods are sampled (seeded) among those whose name
is called somewhere in the workspace, resolved by us or not, so the sample does not favour
what our resolver already binds. For each, Jedi's project-wide references to the definition
that are calls (the name is followed by ``(``) are the reference set; our confident callers
are compared with it by call site (path, line), micro-averaged:

    precision = |ours ∩ jedi_refs| / |ours|
    recall    = |ours ∩ jedi_confirmed| / |jedi_confirmed|

``jedi_refs`` are the calls among ``get_references``; ``jedi_confirmed`` those of them from which
Jedi's own ``goto`` leads back to the definition: ``get_references`` falls back to matching the
bare name where it cannot infer a receiver (``text.encode()`` listed as a call of
``Header.encode``), and those are not calls we missed. Both metrics against both sets are
printed too (``goto`` in turn fails on some true calls, e.g. ``super().cancel()``).

Jedi is a benchmark dependency only (``pip install jedi``). It infers more than we do (types of
local variables), so recall measures what our precision-first rules leave unresolved; Jedi can
also miss calls (dynamic code), which shows up as our "extra" callers: the script prints a few
of each kind for inspection.

    python benchmarks/eval_callers_jedi.py [--packages json email http asyncio] [--n 80]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

import jedi

from nano_brain import Brain
from nano_brain.codeindex.service import CodeIndex
from nano_brain.config import load_config

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", default=["json", "email", "http", "asyncio"])
    parser.add_argument("--n", type=int, default=80, help="functions to sample")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nb-jedi-"))
    try:
        ws = tmp / "ws"
        ws.mkdir()
        for pkg in args.packages:
            shutil.copytree(STDLIB / pkg, ws / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        result = evaluate(ws, tmp / "brain.db", args.n, args.seed)
        result["packages"] = args.packages
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


def evaluate(ws: Path, db: Path, n: int, seed: int) -> dict[str, Any]:
    config = load_config(ws, overrides={"embedding": {"provider": "none"}})
    with Brain(ws, config=config, db_path=db) as brain:
        code = CodeIndex(brain)
        report = code.index()
        called = {
            r[0]
            for r in brain.store._rows("SELECT DISTINCT name FROM code_edges WHERE kind = 'calls'")
        }
        rows = brain.store._rows(
            "SELECT s.qualified_name, s.name, f.path, s.start_line FROM code_symbols s "
            "JOIN code_files f ON f.id = s.file_id WHERE s.kind IN ('function', 'method') "
            "ORDER BY s.qualified_name"
        )
        candidates = [r for r in rows if r[1] in called and not r[1].startswith("__")]
        random.Random(seed).shuffle(candidates)
        sample = candidates[:n]
        ours = {q: {(c.path, c.line) for c in code.callers(q)} for q, *_ in sample}
    project = jedi.Project(str(ws), added_sys_path=[str(ws)], smart_sys_path=False)
    tp = fp = fn = 0
    raw_tp = raw_fp = raw_fn = 0
    per: list[dict[str, Any]] = []
    started = time.perf_counter()
    scripts: dict[Path, jedi.Script] = {}
    for qname, name, path, line in sample:
        raw, theirs = jedi_call_sites(ws, project, path, line, name, scripts)
        mine = ours[qname]
        tp += len(mine & theirs)
        fp += len(mine - theirs)
        fn += len(theirs - mine)
        raw_tp += len(mine & raw)
        raw_fp += len(mine - raw)
        raw_fn += len(raw - mine)
        per.append(
            {
                "symbol": qname,
                "ours": len(mine),
                "jedi": len(theirs),
                "both": len(mine & theirs),
                "only_ours": sorted(f"{p}:{ln}" for p, ln in mine - theirs)[:5],
                "only_jedi": sorted(f"{p}:{ln}" for p, ln in theirs - mine)[:5],
            }
        )
    return {
        "indexed": {"files": report.files, "symbols": report.symbols, "calls": report.calls},
        "functions": len(sample),
        "with_jedi_callers": sum(1 for p in per if p["jedi"]),
        # headline: a site Jedi lists as a reference is no false positive of ours; a site
        # Jedi lists but cannot confirm with its own goto is no miss of ours
        "precision": _ratio(raw_tp, raw_tp + raw_fp),
        "recall": _ratio(tp, tp + fn),
        "against_all_references": {
            "call_sites": {"both": raw_tp, "only_ours": raw_fp, "only_jedi": raw_fn},
            "precision": _ratio(raw_tp, raw_tp + raw_fp),
            "recall": _ratio(raw_tp, raw_tp + raw_fn),
        },
        "against_goto_confirmed_references": {
            "call_sites": {"both": tp, "only_ours": fp, "only_jedi": fn},
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
        },
        "jedi_seconds": round(time.perf_counter() - started, 1),
        "disagreements": [p for p in per if p["only_ours"] or p["only_jedi"]][:15],
    }


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def jedi_call_sites(
    ws: Path,
    project: jedi.Project,
    path: str,
    line: int,
    name: str,
    scripts: dict[Path, jedi.Script],
) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """Call sites (relative path, line) Jedi finds for the definition at path:line.

    Returns (all references that are calls, those that Jedi's own ``goto`` from the call site
    confirms lead to this definition). ``get_references`` falls back to matching the bare
    name where it cannot infer a receiver (``text.encode()`` listed as a call of
    ``Header.encode``); the confirmed set is the reference the metrics use.
    """
    file = ws / path
    lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    # the definition's name: on the def line (decorators come first: search a few lines)
    for offset in range(0, 15):
        text = lines[line - 1 + offset] if line - 1 + offset < len(lines) else ""
        col = _name_column(text, name)
        if col is not None:
            def_line = line + offset
            break
    else:
        return set(), set()
    script = jedi.Script(path=str(file), project=project)
    out: set[tuple[str, int]] = set()
    confirmed: set[tuple[str, int]] = set()
    try:
        refs = script.get_references(def_line, col, scope="project", include_builtins=False)
    except Exception:  # jedi internal errors on odd code: no references from it
        return set(), set()
    cache: dict[Path, list[str]] = {}
    for ref in refs:
        if ref.module_path is None or ref.is_definition():
            continue
        ref_path = Path(ref.module_path)
        try:
            rel = ref_path.relative_to(ws).as_posix()
        except ValueError:
            continue
        src = cache.get(ref_path)
        if src is None:
            src = cache[ref_path] = ref_path.read_text(encoding="utf-8", errors="replace").split(
                "\n"
            )
        text = src[ref.line - 1]
        rest = text[ref.column + len(name) :].lstrip()
        if rest.startswith("("):
            out.add((rel, ref.line))
            if _goto_confirms(ref_path, ref.line, ref.column, file, def_line, project, scripts):
                confirmed.add((rel, ref.line))
    return out, confirmed


def _goto_confirms(
    ref_path: Path,
    line: int,
    column: int,
    def_file: Path,
    def_line: int,
    project: jedi.Project,
    scripts: dict[Path, jedi.Script],
) -> bool:
    script = scripts.get(ref_path)
    if script is None:
        script = scripts[ref_path] = jedi.Script(path=str(ref_path), project=project)
    try:
        targets = script.goto(line, column, follow_imports=True)
    except Exception:  # jedi internal error: unconfirmed
        return False
    return any(
        t.module_path is not None and Path(t.module_path) == def_file and t.line == def_line
        for t in targets
    )


def _name_column(text: str, name: str) -> int | None:
    stripped = text.lstrip()
    for kw in ("async def ", "def "):
        if stripped.startswith(kw + name + "(") or stripped.startswith(kw + name + " "):
            return len(text) - len(stripped) + len(kw)
    return None


if __name__ == "__main__":
    main()
