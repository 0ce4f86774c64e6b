"""A vector does not depend on the batch it was computed in (the embedded models).

`stack.index.embed_texts` sorts texts longest first across a whole call, so which texts
share a model batch (and how far each is padded) changes with the call. That is safe only
because each local model gives a text the same vector, bit for bit, alone or batched with
texts of other lengths in any order; here that is checked against the text embedded alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from ragaudit.backends.e5 import E5Engine
from ragaudit.backends.minilm import MiniLMEngine

TEXTS = [
    "Forklift batteries are swapped every 6 hours.",
    "What is the inspection interval for loading ramps at section 4533-Z?",
    # long enough to be cut at the model's window (256 tokens for MiniLM, 512 for E5)
    " ".join(
        f"Clause {n}: store K8MK keeps {n} drums of solvent behind the cage." for n in range(60)
    ),
    "Visitors sign in at reception.",
    " ".join(f"Row {n} | site 4417-B | checked every {n + 3} days |" for n in range(12)),
]


# E5 takes about 20 s a case here: the full suite only
@pytest.mark.parametrize(
    "engine_class", [MiniLMEngine, pytest.param(E5Engine, marks=pytest.mark.slow(model=False))]
)
@pytest.mark.parametrize("role", ["passage", "query"])
def test_each_vector_is_bitwise_the_one_its_text_gets_alone(engine_class, role):
    engine = engine_class()
    alone = np.stack([engine.embed_batch([text], role)[0] for text in TEXTS])
    together = engine.embed_batch(TEXTS, role)
    reversed_order = engine.embed_batch(TEXTS[::-1], role)[::-1]
    assert np.array_equal(together, alone)
    assert np.array_equal(reversed_order, alone)
    # and the texts really differ in length, so the batches above were padded
    lengths = [len(t) for t in TEXTS]
    assert max(lengths) > 10 * min(lengths)
