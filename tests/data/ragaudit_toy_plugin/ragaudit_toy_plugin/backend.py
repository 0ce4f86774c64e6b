"""toyhash: bag-of-words vectors hashed into 64 dimensions, computed here with no model."""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ragaudit.backends.catalogue import Backend, Offer

DIMENSIONS = 64


class WordHashEngine:
    """An embedding engine (ragaudit.backends.base.EmbeddingEngine), deterministic."""

    backend = "toyhash"
    remote = False
    uses_roles = False
    batch_size = 64

    def __init__(self, name: str) -> None:
        self.name = name
        self.digest = f"toyhash-{DIMENSIONS}"
        self.digest_reason = None

    def dimensions(self) -> int:
        return DIMENSIONS

    def embed_batch(self, texts: list[str], role: str) -> np.ndarray:
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        vectors[:, 0] = 1e-3  # never a zero vector
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                bucket = int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS
                vectors[row, bucket] += 1
        return vectors


def embedding_engine(spec: str, **settings: object) -> WordHashEngine:
    """The engine of a `toyhash:<name>` spec."""
    return WordHashEngine(spec.removeprefix("toyhash:"))


BACKEND = Backend(
    "toyhash",
    "hashed bag-of-words vectors computed here, no model (a plugin's)",
    embedders=Offer(
        "ragaudit_toy_plugin.backend:embedding_engine",
        any_model="any name: toyhash:<name> (the name only labels the results)",
        examples=("toyhash:words",),
    ),
)
