"""toyhash: bag-of-words vectors hashed into 64 dimensions, computed here with no model; its
one option, `salt`, is mixed into every word's hash (a stack file may name it)."""

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

    def __init__(self, name: str, salt: str | None = None) -> None:
        self.name = name
        self.salt = salt
        # another salt, other vectors: the call cache must not mix them
        self.digest = f"toyhash-{DIMENSIONS}" + (f"-{salt}" if salt else "")
        self.digest_reason = None

    def dimensions(self) -> int:
        return DIMENSIONS

    def embed_batch(self, texts: list[str], role: str) -> np.ndarray:
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        vectors[:, 0] = 1e-3  # never a zero vector
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                salted = f"{self.salt or ''}{word}"
                bucket = int(hashlib.sha256(salted.encode()).hexdigest(), 16) % DIMENSIONS
                vectors[row, bucket] += 1
        return vectors


def embedding_engine(
    spec: str, *, options: dict | None = None, **settings: object
) -> WordHashEngine:
    """The engine of a `toyhash:<name>` spec; `options` arrive checked against the
    backend's (ragaudit.backends.specs.server_options), every backend's key present."""
    return WordHashEngine(spec.removeprefix("toyhash:"), (options or {}).get("salt"))


BACKEND = Backend(
    "toyhash",
    "hashed bag-of-words vectors computed here, no model (a plugin's)",
    embedders=Offer(
        "ragaudit_toy_plugin.backend:embedding_engine",
        any_model="any name: toyhash:<name> (the name only labels the results)",
        examples=("toyhash:words",),
    ),
    options=("salt",),
    recorded=("salt",),
)
