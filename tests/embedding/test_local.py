"""The shipped local model: batches of mixed lengths embed like their texts one by one."""

from __future__ import annotations

import numpy as np

from nano_brain.embedding.base import EmbeddingProvider


def test_mixed_length_batch_keeps_each_text_with_its_vector(
    real_provider: EmbeddingProvider,
) -> None:
    # lengths from one word to past the 256-token cap, interleaved, more than one group's worth
    vocabulary = "ledger refund shard token parser invoice replica quota budget retry".split()
    rng = np.random.default_rng(7)
    texts = [
        " ".join(rng.choice(vocabulary, size=1 + (i * 37) % 300).tolist()) for i in range(20)
    ]
    batch = real_provider.embed_documents(texts)
    alone = np.stack([real_provider.embed_documents([t])[0] for t in texts])
    assert batch.shape == alone.shape == (20, real_provider.dim)
    similarity = batch @ alone.T
    # each batched vector is (nearly) its own text's vector, and closer to it than to any other
    assert np.all(np.diag(similarity) > 0.98)
    assert np.array_equal(similarity.argmax(axis=1), np.arange(20))
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-4)
