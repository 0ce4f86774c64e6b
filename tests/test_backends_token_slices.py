"""MiniLM runs a batch in slices of at most TOKEN_BUDGET padded tokens (issue 38: 32 texts
of 256 tokens held 1.5 GB of onnxruntime memory), and slicing changes no vector."""

from __future__ import annotations

import numpy as np

from ragaudit.backends.minilm import MiniLMEngine, token_slices


def test_slices_keep_count_times_longest_within_the_budget():
    # 4 x 256 = 1024 fits and a fifth would not; then 230, 300, 128 (3 x 300 = 900, a
    # fourth would make 4 x 300 = 1200); then 8 x 128 = 1024; then the last 128; a text
    # longer than the budget goes alone
    lengths = [256, 256, 250, 240, 230, 300, *([128] * 10), 1500]
    assert token_slices(lengths, 1024) == [
        [0, 1, 2, 3], [4, 5, 6], [7, 8, 9, 10, 11, 12, 13, 14], [15], [16],
    ]  # fmt: skip
    assert token_slices([], 1024) == []


def test_a_sliced_batch_gives_the_vectors_of_each_text_alone():
    engine = MiniLMEngine()
    texts = ["word " * 240, "a shorter text about the harbour cranes", "x " * 120, "hi"]
    together = engine.embed_batch(texts, "passage")
    alone = np.stack([engine.embed_batch([t], "passage")[0] for t in texts])
    assert together.shape == (4, 384)
    assert np.array_equal(together, alone)
