"""Consolidation: near-duplicate and contradicting notes found, proposals made, nothing deleted.

One pass over the workspace's notes (``Consolidator.run``):

1. **Candidates.** Pairs come from three sources, each linear or near-linear in the number of
   notes: the same normalised text; MinHash locality-sensitive hashing over word 3-shingles
   (pairs whose texts share most of their wording); and, where notes have vectors, each
   note's nearest neighbours by cosine similarity (numpy, in blocks).
2. **Pairs.** Identical normalised text, or a shingle Jaccard of at least ``NEAR_JACCARD``,
   is a *duplicate*. A pair close in meaning (cosine >= ``RELATED_COSINE``) that also shares
   words (Jaccard >= ``RELATED_WORDS``), an anchored symbol or a tag of its own is *related*:
   a paraphrase or a contradiction, which only a model can tell apart.
3. **Clusters and proposals.** Duplicates cluster transitively; the cluster's newest note
   (a pinned or active one first) supersedes the others. Related clusters go to the configured
   OpenAI-compatible endpoint (``harvest.summarizer``), which answers keep, supersede (which
   survives) or merge (a merged note that supersedes them all); the notes are redacted before
   they are sent and the answer after. Without an endpoint, related clusters are only counted.

Proposals are recorded (one per cluster, ever: a dismissed one is not made again) and wait in
the review queue (``nano-brain consolidate`` lists them) unless applied. Applying one is a
supersede per note, each in the audit log; the originals stay, superseded, and ``history``
shows them. A cluster whose notes changed status since it was proposed goes ``stale``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .errors import InvalidInputError, NanoBrainError, NotFoundError
from .filters import Filters
from .redact import redact_text
from .store.consolidation import ProposalRow, cluster_key
from .store.rows import DocumentRow

if TYPE_CHECKING:
    import numpy as np

    from .brain import Brain

log = logging.getLogger(__name__)

NEAR_JACCARD = 0.8
RELATED_COSINE = 0.82
RELATED_WORDS = 0.2
MAX_CLUSTER = 12
_NEIGHBOURS = 8
_PERMUTATIONS = 32
_BANDS = 8
_MAX_BUCKET = 64
_BLOCK = 512
_MAX_NOTE_CHARS = 2000
_PRIME = (1 << 61) - 1
_WORD = re.compile(r"\w+", re.UNICODE)
_AUTO_TAG = "auto:"
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)

SYSTEM_PROMPT = (
    "You maintain a team's workspace memory: short notes and decisions about a code base. "
    "You get a few notes that look alike. Decide what to do and answer with one JSON object "
    'only: {"action": "keep" | "supersede" | "merge", "survivor": "<id of the note that '
    'stays, for supersede>", "title": "<for merge>", "content": "<for merge: one note that '
    'says everything still true in them, newest facts winning>", "reason": "<one sentence>"}. '
    "keep: they say different things. supersede: one of them says all the others say, or "
    "newer facts replace older ones (the newer note survives). merge: each adds something. "
    "Use only facts from the notes. Never include credentials."
)


class Drafter(Protocol):
    """A chat completion: the OpenAI-compatible summariser's client (``complete``)."""

    @property
    def name(self) -> str: ...

    def complete(self, system: str, prompt: str) -> str: ...


@dataclass(slots=True)
class _Note:
    row: DocumentRow
    norm: str
    words: frozenset[str]
    shingles: frozenset[str]


@dataclass(frozen=True, slots=True)
class Pair:
    a: str
    b: str
    kind: str  # duplicate | related
    score: float
    why: str


@dataclass(slots=True)
class Proposal:
    id: int | None
    action: str
    members: list[str]
    survivor: str | None
    title: str | None
    content: str | None
    reason: str
    score: float
    status: str = "pending"
    result: str | None = None

    @classmethod
    def of(cls, row: ProposalRow) -> Proposal:
        return cls(row.id, row.action, row.members, row.survivor, row.title, row.content,
                   row.reason, row.score, row.status, row.result)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class ConsolidationReport:
    notes: int = 0
    pairs: int = 0
    duplicate_clusters: int = 0
    related_clusters: int = 0
    undecided: int = 0
    """related clusters left alone: no model configured, or its answer was unusable"""
    proposed: list[Proposal] = field(default_factory=list)
    applied: list[Proposal] = field(default_factory=list)
    pending: list[Proposal] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    drafter: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("proposed", "applied", "pending"):
            data[key] = [p.to_dict() for p in getattr(self, key)]
        return data


class Consolidator:
    """Consolidation of one Brain's notes (see the module docstring)."""

    def __init__(
        self,
        brain: Brain,
        drafter: Drafter | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.brain = brain
        self.drafter = drafter
        self._clock = clock

    @classmethod
    def configured(cls, brain: Brain, *, use_model: bool = True) -> Consolidator:
        """With the configured OpenAI-compatible endpoint as drafter, when there is one."""
        drafter: Drafter | None = None
        if use_model:
            from .harvest.summarize import OpenAISummarizer, create_summarizer

            made = create_summarizer(brain.config.harvest.summarizer)
            drafter = made if isinstance(made, OpenAISummarizer) else None
        return cls(brain, drafter)

    # -- one pass ----------------------------------------------------------------------------

    def run(self, *, apply: bool = False, dry_run: bool = False) -> ConsolidationReport:
        """Find clusters, record new proposals (unless ``dry_run``), apply them with ``apply``."""
        started = time.perf_counter()
        report = ConsolidationReport(drafter=self.drafter.name if self.drafter else None)
        notes = self._notes()
        report.notes = len(notes)
        pairs = self.pairs(notes)
        report.pairs = len(pairs)
        known = self.brain.store.proposed_clusters()
        by_uid = {n.row.uid: n for n in notes}
        duplicates = _clusters([p for p in pairs if p.kind == "duplicate"])
        in_duplicates = {uid: i for i, c in enumerate(duplicates) for uid in c}
        related = _clusters(
            [
                p
                for p in pairs
                if p.kind == "related"
                and (p.a not in in_duplicates or in_duplicates.get(p.a) != in_duplicates.get(p.b))
            ]
        )
        report.duplicate_clusters, report.related_clusters = len(duplicates), len(related)
        drafts: list[Proposal] = []
        for cluster in duplicates:
            members = [by_uid[u] for u in cluster][:MAX_CLUSTER]
            if cluster_key([m.row.uid for m in members]) in known:
                continue
            drafts.append(self._duplicate(members, pairs))
        for cluster in related:
            members = [by_uid[u] for u in cluster][:MAX_CLUSTER]
            if cluster_key([m.row.uid for m in members]) in known:
                continue
            drafted = self._ask(members, report) if self.drafter is not None else None
            if drafted is None:
                report.undecided += 1
                continue
            drafts.append(drafted)
        if not dry_run:
            for proposal in drafts:
                proposal.id = self._record(proposal)
            report.proposed = [p for p in drafts if p.id is not None]
        else:
            report.proposed = drafts
        if apply and not dry_run:
            for row in self.brain.store.proposals():
                try:
                    report.applied.append(self.apply(row.id))
                except NanoBrainError as exc:
                    report.errors.append(f"proposal {row.id}: {exc}")
        report.pending = [Proposal.of(r) for r in self.brain.store.proposals()]
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def _notes(self) -> list[_Note]:
        store = self.brain.store
        rows = store.list_documents(
            Filters(kinds=("note",), statuses=("active", "unreviewed")), limit=10**7
        )
        texts = store.note_texts([r.id for r in rows])
        notes: list[_Note] = []
        for row in rows:
            words = _WORD.findall(texts.get(row.id, "").casefold())
            norm = " ".join(words)
            shingles = frozenset(" ".join(words[i : i + 3]) for i in range(max(1, len(words) - 2)))
            notes.append(_Note(row, norm, frozenset(words), shingles))
        return notes

    # -- candidate pairs ---------------------------------------------------------------------

    def pairs(self, notes: list[_Note]) -> list[Pair]:
        """Duplicate and related pairs among the notes (see the module docstring)."""
        candidates: set[tuple[int, int]] = set()
        by_text: dict[str, list[int]] = defaultdict(list)
        for i, note in enumerate(notes):
            if note.norm:
                by_text[note.norm].append(i)
        for group in by_text.values():
            candidates.update(_all_pairs(group[: MAX_CLUSTER * 4]))
        candidates |= _minhash_pairs([n.shingles for n in notes])
        cosine = self._vector_pairs(notes)
        candidates |= set(cosine)
        anchors = self.brain.store.anchors_by_note()
        out: list[Pair] = []
        for i, j in sorted(candidates):
            a, b = notes[i], notes[j]
            if a.norm and a.norm == b.norm:
                out.append(Pair(a.row.uid, b.row.uid, "duplicate", 1.0, "same text"))
                continue
            near = _jaccard(a.shingles, b.shingles)
            if near >= NEAR_JACCARD:
                out.append(Pair(a.row.uid, b.row.uid, "duplicate", round(near, 3),
                                f"same wording ({near:.2f})"))  # fmt: skip
                continue
            sim = cosine.get((i, j))
            if sim is None or sim < RELATED_COSINE:
                continue
            words = _jaccard(a.words, b.words)
            shared_anchor = anchors.get(a.row.uid, set()) & anchors.get(b.row.uid, set())
            shared_tags = _own_tags(a.row) & _own_tags(b.row)
            if words >= RELATED_WORDS or shared_anchor or shared_tags:
                why = [f"close in meaning ({sim:.2f})", f"shared words {words:.2f}"]
                if shared_anchor:
                    why.append("same anchor " + sorted(shared_anchor)[0])
                if shared_tags:
                    why.append("same tag " + sorted(shared_tags)[0])
                out.append(Pair(a.row.uid, b.row.uid, "related", round(sim, 3), ", ".join(why)))
        return out

    def _vector_pairs(self, notes: list[_Note]) -> dict[tuple[int, int], float]:
        """Each note's nearest neighbours by cosine (notes without vectors take no part)."""
        import numpy as np

        if len(notes) < 2:
            return {}
        index = {n.row.id: i for i, n in enumerate(notes)}
        try:
            _, doc_ids, matrix = self.brain.store.filtered_vectors(
                Filters(kinds=("note",), statuses=("active", "unreviewed")), 10**8
            )
        except NanoBrainError as exc:
            log.info("consolidation without vectors: %s", exc)
            return {}
        if not doc_ids:
            return {}
        sums: dict[int, Any] = {}
        for doc_id, row in zip(doc_ids, matrix, strict=True):
            if doc_id in index:
                sums[doc_id] = sums[doc_id] + row if doc_id in sums else row.astype(np.float32)
        if len(sums) < 2:
            return {}
        order = list(sums)
        m = np.stack([sums[d] for d in order])
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        pos = [index[d] for d in order]
        return _neighbours(m, pos)

    # -- proposals -----------------------------------------------------------------------------

    def _duplicate(self, members: list[_Note], pairs: list[Pair]) -> Proposal:
        ranked = sorted(members, key=_survivor_rank, reverse=True)
        survivor = ranked[0].row
        uids = {m.row.uid for m in members}
        scores = [p.score for p in pairs if p.a in uids and p.b in uids]
        others = ", ".join(f"#{m.row.uid}" for m in ranked[1:])
        return Proposal(
            None, "supersede", [survivor.uid, *(m.row.uid for m in ranked[1:])], survivor.uid,
            None, None,
            f"duplicates: #{survivor.uid} (newest) supersedes {others}",
            min(scores) if scores else 1.0,
        )  # fmt: skip

    def _ask(self, members: list[_Note], report: ConsolidationReport) -> Proposal | None:
        assert self.drafter is not None
        texts = self.brain.store.note_texts([m.row.id for m in members])
        parts = []
        for m in sorted(members, key=lambda n: n.row.created_at):
            body = redact_text(texts.get(m.row.id, ""))[:_MAX_NOTE_CHARS]
            when = time.strftime("%Y-%m-%d", time.gmtime(m.row.created_at))
            parts.append(f'<note id="{m.row.uid}" written="{when}">\n{body}\n</note>')
        try:
            answer = self.drafter.complete(SYSTEM_PROMPT, "\n\n".join(parts))
        except Exception as exc:  # the endpoint's failure costs this cluster only
            report.errors.append(f"{self.drafter.name}: {exc}")
            return None
        return _parse_answer(redact_text(answer), members, report)

    def _record(self, proposal: Proposal) -> int | None:
        store = self.brain.store
        with store.transaction():
            return store.add_proposal(
                at=self._clock(), action=proposal.action, members=proposal.members,
                survivor=proposal.survivor, title=proposal.title, content=proposal.content,
                reason=proposal.reason, score=proposal.score, actor=self.brain.actor,
            )  # fmt: skip

    # -- review --------------------------------------------------------------------------------

    def pending(self) -> list[Proposal]:
        return [Proposal.of(r) for r in self.brain.store.proposals()]

    def apply(self, proposal_id: int) -> Proposal:
        """Carry a pending proposal out: supersedes (and the merged note), all audited."""
        row = self._pending(proposal_id)
        store = self.brain.store
        current = [store.find_current(uid) for uid in row.members]
        if any(d is None or d.status not in ("active", "unreviewed") for d in current):
            self._decide(row, "stale", None)
            raise InvalidInputError(
                f"proposal {proposal_id} is stale: a note in it was deleted, superseded or "
                "retracted since; nothing was changed"
            )
        result: str | None = None
        if row.action == "merge":
            docs = [d for d in current if d is not None]
            tags = sorted({t for d in docs for t in d.tags if not t.startswith(_AUTO_TAG)})
            written = self.brain.write(
                row.content or "",
                title=row.title,
                tags=[*tags, "consolidated"],
                collection=docs[0].collection,
                metadata={"consolidation": {"proposal": row.id, "merged": row.members}},
            )
            result = written.document.id
        elif row.action == "supersede":
            result = row.survivor
        with store.transaction():
            if result is not None:
                for uid in row.members:
                    if uid != result:
                        self.brain.supersede(uid, result)
            self._decide(row, "applied", result)
            store.audit(
                at=self._clock(), actor=self.brain.actor, action="consolidate", uid=result,
                details={"proposal": row.id, "action": row.action, "members": row.members},
            )  # fmt: skip
        done = store.proposal(row.id)
        assert done is not None
        return Proposal.of(done)

    def dismiss(self, proposal_id: int) -> Proposal:
        """Keep the notes as they are; the cluster is not proposed again."""
        row = self._pending(proposal_id)
        with self.brain.store.transaction():
            self._decide(row, "dismissed", None)
        done = self.brain.store.proposal(row.id)
        assert done is not None
        return Proposal.of(done)

    def _pending(self, proposal_id: int) -> ProposalRow:
        row = self.brain.store.proposal(proposal_id)
        if row is None:
            raise NotFoundError(f"no consolidation proposal {proposal_id}")
        if row.status != "pending":
            raise InvalidInputError(f"proposal {proposal_id} is {row.status}, not pending")
        return row

    def _decide(self, row: ProposalRow, status: str, result: str | None) -> None:
        with self.brain.store.transaction():
            self.brain.store.decide_proposal(
                row.id, status, at=self._clock(), actor=self.brain.actor, result=result
            )


def propose_every(brain: Brain, seconds: float, stop: threading.Event) -> None:
    """Run a consolidation pass every ``seconds`` until ``stop`` is set: the sidecar's
    optional periodic pass. It records proposals only; people apply them from the review
    queue (or `consolidate --apply`), so nothing changes behind anyone's back."""
    while not stop.wait(seconds):
        try:
            report = Consolidator.configured(brain).run()
        except NanoBrainError as exc:  # e.g. the store went read-only: try again next time
            log.warning("periodic consolidation failed: %s", exc)
            continue
        except Exception:  # never take the editor down
            log.exception("periodic consolidation failed")
            continue
        log.info(
            "periodic consolidation: %d new proposals, %d waiting for review (%.1f s)",
            len(report.proposed), len(report.pending), report.seconds,
        )  # fmt: skip


# -- helpers -------------------------------------------------------------------------------------


def _survivor_rank(note: _Note) -> tuple[bool, bool, float, int]:
    row = note.row
    return (row.pinned, row.status == "active", row.created_at, row.id)


def _own_tags(row: DocumentRow) -> set[str]:
    return {t for t in row.tags if not t.startswith(_AUTO_TAG)}


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _all_pairs(group: list[int]) -> Iterable[tuple[int, int]]:
    for x in range(len(group)):
        for y in range(x + 1, len(group)):
            yield (min(group[x], group[y]), max(group[x], group[y]))


def _minhash_pairs(sets: list[frozenset[str]]) -> set[tuple[int, int]]:
    """Pairs sharing a band of their MinHash signatures (likely Jaccard >= ~0.6)."""
    import numpy as np

    rows = _PERMUTATIONS // _BANDS
    rng = np.random.default_rng(20261201)
    a = rng.integers(1, _PRIME, size=_PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, _PRIME, size=_PERMUTATIONS, dtype=np.uint64)
    buckets: dict[tuple[int, bytes], list[int]] = defaultdict(list)
    for index, items in enumerate(sets):
        if not items:
            continue
        hashes = np.fromiter(
            (int.from_bytes(hashlib.blake2b(s.encode(), digest_size=7).digest(), "big")
             for s in items),
            dtype=np.uint64, count=len(items),
        )  # fmt: skip
        # (a*x + b) mod p over 61-bit values overflows uint64: mix with xor-multiply instead
        signature = ((hashes[None, :] * a[:, None]) ^ b[:, None]).min(axis=1)
        for band in range(_BANDS):
            buckets[(band, signature[band * rows : (band + 1) * rows].tobytes())].append(index)
    out: set[tuple[int, int]] = set()
    for members in buckets.values():
        if 1 < len(members) <= _MAX_BUCKET:
            out.update(_all_pairs(members))
    return out


def _neighbours(m: np.ndarray, positions: list[int]) -> dict[tuple[int, int], float]:
    import numpy as np

    out: dict[tuple[int, int], float] = {}
    n = m.shape[0]
    k = min(_NEIGHBOURS + 1, n)
    for start in range(0, n, _BLOCK):
        sims = m[start : start + _BLOCK] @ m.T
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for r, cols in enumerate(top):
            row = start + r
            for c in cols:
                sim = float(sims[r, c])
                if c == row or sim < RELATED_COSINE:
                    continue
                i, j = positions[row], positions[int(c)]
                key = (min(i, j), max(i, j))
                out[key] = max(out.get(key, 0.0), sim)
    return out


def _clusters(pairs: list[Pair]) -> list[list[str]]:
    """Connected components of the pairs, each sorted by id, largest first."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        ra, rb = find(p.a), find(p.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = defaultdict(list)
    for x in list(parent):
        groups[find(x)].append(x)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))


def _parse_answer(
    answer: str, members: list[_Note], report: ConsolidationReport
) -> Proposal | None:
    match = _JSON_OBJECT.search(answer)
    try:
        data = json.loads(match.group(0)) if match else None
    except ValueError:
        data = None
    uids = [m.row.uid for m in members]
    if not isinstance(data, dict) or data.get("action") not in ("keep", "supersede", "merge"):
        report.errors.append("the model's answer is not a usable JSON decision")
        return None
    reason = str(data.get("reason") or "")[:500]
    action = data["action"]
    if action == "supersede":
        survivor = str(data.get("survivor") or "").lstrip("#")
        if survivor not in uids:
            report.errors.append("the model named a survivor that is not in the cluster")
            return None
        ordered = [survivor, *(u for u in uids if u != survivor)]
        return Proposal(None, "supersede", ordered, survivor, None, None,
                        reason or "superseded by the model's choice", RELATED_COSINE)  # fmt: skip
    if action == "merge":
        content = str(data.get("content") or "").strip()
        title = str(data.get("title") or "").strip()[:200] or None
        if not content:
            report.errors.append("the model proposed a merge without content")
            return None
        return Proposal(None, "merge", uids, None, title, content,
                        reason or "merged by the model", RELATED_COSINE)  # fmt: skip
    return Proposal(None, "keep", uids, None, None, None, reason or "distinct", RELATED_COSINE)
