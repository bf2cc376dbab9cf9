"""The shipped local models: a text's vector is the same whatever it is embedded with."""

from __future__ import annotations

import numpy as np

from nano_brain.embedding.base import EmbeddingProvider


def test_mixed_length_batch_keeps_each_text_with_its_vector(
    real_provider: EmbeddingProvider,
) -> None:
    # lengths from one word to past the 256-token cap, interleaved, more than one group's worth
    vocabulary = "ledger refund shard token parser invoice replica quota budget retry".split()
    rng = np.random.default_rng(7)
    texts = [" ".join(rng.choice(vocabulary, size=1 + (i * 37) % 300).tolist()) for i in range(20)]
    batch = real_provider.embed_documents(texts)
    alone = np.stack([real_provider.embed_documents([t])[0] for t in texts])
    assert batch.shape == alone.shape == (20, real_provider.dim)
    # exactly: int8 activations are quantized per call, so neighbours in a call would shift a
    # text's vector (a note's vector must not depend on what else was pending)
    assert np.array_equal(batch, alone)
    assert np.array_equal(batch[::-1], real_provider.embed_documents(texts[::-1]))
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-4)


def test_the_code_model_runs_in_int8_and_matches_the_shipped_graph() -> None:
    """all-MiniLM-L6 ships int8 weights that its graph turns back into fp32 at every load;
    the prepared graph multiplies in int8 and must still give the shipped model's vectors."""
    import onnx
    import onnxruntime as ort

    from nano_brain.config import EmbeddingConfig
    from nano_brain.embedding import create_provider
    from nano_brain.embedding.local import LOCAL_MODELS, _load_tokenizer, _model_file

    spec = LOCAL_MODELS["all-minilm-l6-v2-int8"]
    provider = create_provider(EmbeddingConfig(), model=spec.key)
    assert provider is not None
    prepared = provider._session._model_path  # type: ignore[attr-defined]
    graph = onnx.load(prepared).graph
    weights = {init.name for init in graph.initializer}
    assert any(node.op_type == "MatMulInteger" for node in graph.node)
    # no weight is cast back to fp32 at load any more
    assert not [n for n in graph.node if n.op_type == "Cast" and n.input[0] in weights]
    shipped = ort.InferenceSession(str(_model_file(spec)), providers=["CPUExecutionProvider"])
    tokenizer = _load_tokenizer(spec)
    texts = [
        "def parse_header(line):\n    key, _, value = line.partition(':')\n    return key, value",
        "how to read a csv file into a list of dicts",
        "Retry card charges three times, then give up.",
    ]
    for text, vector in zip(texts, provider.embed_documents(texts), strict=True):
        ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
        mask = np.ones_like(ids)
        out = shipped.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        expected = out[0].mean(axis=0)
        expected /= np.linalg.norm(expected)
        # over 400 CoSQA texts: median cosine 0.995, lowest 0.982
        assert float(expected @ vector) > 0.98
