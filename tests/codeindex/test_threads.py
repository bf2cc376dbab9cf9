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
    errors: list[BaseException] = []
    stop = threading.Event()
    barrier = threading.Barrier(THREADS + 1)

    def asker(n: int) -> None:
        order = random.Random(n)
        try:
            barrier.wait(30)
            for _ in range(ROUNDS):
                label, ask = order.choice(questions)
                assert ask() == alone[label], label
        except BaseException as exc:  # reported below
            errors.append(exc)

    def changer() -> None:  # writes and index runs that change none of the answers
        try:
            barrier.wait(30)
            i = 0
            while not stop.is_set():
                tiny_brain.write(f"note {i} about the pipeline stages")
                index.index()
                i += 1
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=asker, args=(n,)) for n in range(THREADS)]
    other = threading.Thread(target=changer)
    for t in [*threads, other]:
        t.start()
    for t in threads:
        t.join(300)
    stop.set()
    other.join(120)
    assert errors == []
    assert not any(t.is_alive() for t in [*threads, other])
