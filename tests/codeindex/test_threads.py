"""One CodeIndex shared by many threads (the sidecar's pool answers symbols, callers, lenses
and code searches from the folder's index at once), while notes are written and the index is
run again: every answer equals the answer to the same question asked alone."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nano_brain import Brain
from nano_brain.codeindex import CodeIndex

from ..faults.harness import generate_tree
from ..threads import run_together

THREADS = 6
ROUNDS = 25


def _questions(index: CodeIndex, names: list[str]) -> list[tuple[str, Callable[[], Any]]]:
    out: list[tuple[str, Callable[[], Any]]] = []
    for name in names:
        out += [
            (f"symbols {name}", lambda n=name: [s.to_dict() for s in index.symbols(n)]),
            (f"callers {name}", lambda n=name: [c.to_dict() for c in index.callers(n)]),
            (f"callees {name}", lambda n=name: [c.to_dict() for c in index.callees(n)]),
            (f"impact {name}", lambda n=name: index.impact(n, 2).to_dict()),
            (
                f"search {name}",
                lambda n=name: [h.id for h in index.search(n, mode="lexical", limit=5).results],
            ),
        ]
    return out


def test_threads_asking_one_code_index_get_their_own_answers(
    workspace: Path, tiny_brain: Brain
) -> None:
    rng = random.Random(17)
    tree = generate_tree(workspace, rng, files=30)
    index = CodeIndex(tiny_brain, workers=1)
    index.index()
    names = [rng.choice(symbols) for symbols in list(tree.values())[:8]]
    questions = _questions(index, names)
    alone = {label: ask() for label, ask in questions}
    assert any(alone[f"callers {n}"] for n in names)  # the questions have real answers
    asking = [THREADS]
    lock = threading.Lock()

    def ask(n: int) -> None:
        order = random.Random(n)
        try:
            for _ in range(ROUNDS):
                label, question = order.choice(questions)
                assert question() == alone[label], label
        finally:
            with lock:
                asking[0] -= 1

    def change() -> None:  # writes and index runs that change none of the answers
        i = 0
        while asking[0]:
            tiny_brain.write(f"note {i} about the pipeline stages")
            index.index()
            i += 1

    run_together(lambda i: ask(i) if i < THREADS else change(), THREADS + 1)
