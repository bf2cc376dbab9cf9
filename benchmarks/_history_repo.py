"""A generated git repository with a long history, for the history benchmarks.

``generate(path, commits, files)`` writes it with ``git fast-import`` (seconds for 10k
commits): Python modules of a few functions (some in classes), first added a few per commit,
then changed one to three at a time: a line of a function edited, a function added, removed
or renamed, now and then a module moved to another folder. Every 97th commit is a merge of a
two-commit side branch; some messages carry a ticket id (``NB-123``). Deterministic per seed.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

AUTHORS = [
    ("Ada Lovelace", "ada@example.com"),
    ("Grace Hopper", "grace@example.com"),
    ("Alan Turing", "alan@example.com"),
    ("Edsger Dijkstra", "edsger@example.com"),
    ("Barbara Liskov", "barbara@example.com"),
]
_WORDS = """cache invoice refund ledger parser token retry budget quota shard replica index
account billing payment tax discount coupon order cart checkout shipping carrier parcel
customer session login password oauth scope permission role audit report export import
schedule cron queue worker batch stream event webhook signal metric trace span logger
config secret vault backup restore snapshot migrate schema table column query cursor
upload download thumbnail image render template layout theme locale currency timezone
search ranking embed vector cluster tenant region zone network socket proxy gateway
route handler middleware cookie header payload encode decode compress checksum lock""".split()
_VERBS = ["fix", "speed up", "simplify", "handle errors in", "document", "tidy", "rework"]
_START = 1_600_000_000


@dataclass
class _Func:
    name: str
    body: list[str]


@dataclass
class _Module:
    path: str
    klass: str | None
    funcs: list[_Func] = field(default_factory=list)

    def render(self) -> bytes:
        out = [f'"""Module {self.path}."""', "", "import os", ""]
        indent = ""
        if self.klass:
            out += [f"class {self.klass}:", f'    """The {self.klass}."""', ""]
            indent = "    "
        for f in self.funcs:
            arg = "self, x" if self.klass else "x"
            out.append(f"{indent}def {f.name}({arg}):")
            out += [indent + "    " + line for line in f.body]
            out.append("")
        return ("\n".join(out) + "\n").encode()


class _Generator:
    def __init__(self, files: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.files = files
        self.modules: list[_Module] = []
        self.counter = 0
        self.out: list[bytes] = []
        self.mark = 0
        self.time = _START

    def _name(self) -> str:
        """Two words of a vocabulary and a number: names share words as real ones do (a
        search for one word matches a few hundred symbols, not all of them)."""
        self.counter += 1
        return f"{self.rng.choice(_WORDS)}_{self.rng.choice(_WORDS)}_{self.counter}"

    def _body(self) -> list[str]:
        n = self.rng.randint(3, 8)
        lines = [f"y{i} = x + {self.rng.randint(0, 999)}" for i in range(n)]
        return [*lines, f"return y{n - 1}"]

    def new_module(self, i: int) -> _Module:
        klass = f"Service{i}" if i % 4 == 0 else None
        mod = _Module(f"pkg{i // 100}/mod{i}.py", klass)
        mod.funcs = [_Func(self._name(), self._body()) for _ in range(self.rng.randint(4, 10))]
        return mod

    def change(self, mod: _Module) -> str:
        """Change one module in place; returns what was done (for the message)."""
        roll = self.rng.random()
        if roll < 0.72 or len(mod.funcs) < 3:
            f = self.rng.choice(mod.funcs)
            line = self.rng.randrange(len(f.body) - 1)
            f.body[line] = f"y{line} = x * {self.rng.randint(0, 999)}"
            return f"{self.rng.choice(_VERBS)} {f.name}"
        if roll < 0.84:
            f = _Func(self._name(), self._body())
            mod.funcs.insert(self.rng.randrange(len(mod.funcs) + 1), f)
            return f"add {f.name}"
        if roll < 0.90:
            f = mod.funcs.pop(self.rng.randrange(len(mod.funcs)))
            return f"remove {f.name}"
        f = self.rng.choice(mod.funcs)
        old, f.name = f.name, self._name()
        return f"rename {old} to {f.name}"

    def commit(
        self,
        ref: str,
        message: str,
        changed: list[_Module],
        *,
        parent: int | None = None,
        merge: int | None = None,
        deleted: tuple[str, ...] = (),
    ) -> int:
        self.mark += 1
        self.time += self.rng.randint(60, 7200)
        name, email = self.rng.choice(AUTHORS)
        msg = message.encode()
        head = [
            f"commit {ref}",
            f"mark :{self.mark}",
            f"author {name} <{email}> {self.time} +0000",
            f"committer {name} <{email}> {self.time} +0000",
            f"data {len(msg)}",
        ]
        self.out.append(("\n".join(head) + "\n").encode() + msg + b"\n")
        if parent is not None:
            self.out.append(f"from :{parent}\n".encode())
        if merge is not None:
            self.out.append(f"merge :{merge}\n".encode())
        for path in deleted:
            self.out.append(f"D {path}\n".encode())
        for mod in changed:
            data = mod.render()
            self.out.append(f"M 100644 inline {mod.path}\ndata {len(data)}\n".encode() + data)
        self.out.append(b"\n")
        return self.mark

    def message(self, what: str, mod: _Module) -> str:
        area = mod.path.split("/")[0]
        ticket = f" (NB-{self.rng.randint(1, 400)})" if self.rng.random() < 0.2 else ""
        body = f"\n\nWhy: {what} in {mod.path}, measured before and after." * (
            self.rng.random() < 0.5
        )
        return f"{area}: {what}{ticket}{body}"

    def run(self, commits: int) -> bytes:
        made = 0
        head: int | None = None
        per = max(1, -(-self.files // max(1, commits // 5)))  # the first fifth adds the files
        while len(self.modules) < self.files and made < commits:
            batch = [self.new_module(len(self.modules) + i) for i in range(per)]
            batch = batch[: self.files - len(self.modules)]
            self.modules += batch
            head = self.commit(
                "refs/heads/main", f"{batch[0].path.split('/')[0]}: add {len(batch)} modules",
                batch, parent=head,
            )  # fmt: skip
            made += 1
        # a few modules change far more often than the rest, as in real code
        hot = self.rng.sample(self.modules, max(1, len(self.modules) // 20))
        while made < commits:
            if made % 97 == 96 and commits - made >= 3:
                side = head
                touched: dict[int, _Module] = {}
                for _ in range(2):
                    mod = self.rng.choice(self.modules)
                    touched[id(mod)] = mod
                    side = self.commit(
                        "refs/heads/side", self.message(self.change(mod), mod), [mod], parent=side
                    )
                # a merge's tree is its first parent's plus the files listed: the side's
                head = self.commit(
                    "refs/heads/main", "Merge branch 'side'", list(touched.values()),
                    parent=head, merge=side,
                )  # fmt: skip
                made += 3
                continue
            pool = hot if self.rng.random() < 0.5 else self.modules
            mods = list({id(m): m for m in self.rng.sample(pool, self.rng.randint(1, 3))}.values())
            if self.rng.random() < 0.01:
                mod = mods[0]
                old = mod.path
                mod.path = f"moved{self.rng.randint(0, 9)}/{Path(old).name}"
                if any(m.path == mod.path for m in self.modules if m is not mod):
                    mod.path = old
                else:
                    head = self.commit(
                        "refs/heads/main", f"move {old} to {mod.path}", [mod], parent=head,
                        deleted=(old,),
                    )  # fmt: skip
                    made += 1
                    continue
            what = [self.change(m) for m in mods]
            head = self.commit(
                "refs/heads/main", self.message("; ".join(what), mods[0]), mods, parent=head
            )
            made += 1
        return b"".join(self.out)


def generate(path: Path, commits: int = 10_000, files: int = 2_000, seed: int = 1) -> Path:
    """Create a repository at ``path`` (a new folder) with ``commits`` commits on ``main``
    (merges included) over ``files`` Python modules, and check ``main`` out."""
    path.mkdir(parents=True)
    git = ["git", "-C", str(path), "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], check=True)
    stream = _Generator(files, seed).run(commits)
    subprocess.run([*git, "fast-import", "--quiet"], input=stream, check=True)
    subprocess.run([*git, "checkout", "-q", "-f", "main"], check=True)
    return path


def add_commit(path: Path, message: str = "bench: one more change") -> None:
    """Append one commit that edits one existing module (for the incremental measurement)."""
    target = sorted(path.glob("pkg0/*.py"))[0]
    text = target.read_text()
    target.write_text(text.replace("return", "return  0 +", 1))
    subprocess.run(["git", "-C", str(path), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(path), "-c", "user.name=Bench", "-c", "user.email=bench@example.com",
         "commit", "-q", "-m", message],
        check=True,
    )  # fmt: skip
