"""Exact dense ranking over the vectors a Chroma collection stores.

The matrix ranks every question against every chunk of a chunking, so it reads the
collection's stored vectors once and takes the dot products with numpy: the exact cosine
ranking (the vectors are unit length). Chroma's HNSW search, which llama-index's
VectorIndexRetriever runs, is approximate and not reproducible here: over the same
persisted collection two processes return different top-50s for about one question in
five (MiniLM, n=25, M's chunking: 58 of 275), so a rerun's records could not equal the
run they repeat. On a collection small enough for HNSW to be exact both give the same
chunks in the same order (tests/test_pipeline_warm_rerun.py), the scores equal to float32 rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_GET_BATCH = 5000  # ids per collection.get: stay under SQLite's variable limit


class StoredVectors:
    """The vectors a collection holds for `chunk_ids`, as one float32 matrix."""

    def __init__(self, collection: Any, chunk_ids: Sequence[str]) -> None:
        by_id: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(wanted), _GET_BATCH):
            got = collection.get(ids=wanted[start : start + _GET_BATCH], include=["embeddings"])
            by_id.update(
                zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True)
            )
        # chunking order; a chunk the collection lacks is never ranked
        self.chunk_ids = [chunk_id for chunk_id in wanted if chunk_id in by_id]
        self.matrix = np.stack([by_id[c] for c in self.chunk_ids]) if self.chunk_ids else None
        self._row = {chunk_id: row for row, chunk_id in enumerate(self.chunk_ids)}
        # rows by chunk id: equal cosines are ordered by id, never by storage order
        self._by_id = np.array(sorted(range(len(self.chunk_ids)), key=self.chunk_ids.__getitem__))

    @classmethod
    def of_rows(cls, chunk_ids: Sequence[str], matrix: np.ndarray | None) -> StoredVectors:
        """Vectors already in hand (a mutant's overlay: the base rows it keeps and the
        rows of the chunks it adds), ranked exactly as the stored ones."""
        self = cls.__new__(cls)
        self.chunk_ids = list(chunk_ids)
        self.matrix = matrix if self.chunk_ids else None
        self._row = {chunk_id: row for row, chunk_id in enumerate(self.chunk_ids)}
        self._by_id = np.array(sorted(range(len(self.chunk_ids)), key=self.chunk_ids.__getitem__))
        return self

    def cosines(self, query_embedding: Sequence[float]) -> np.ndarray:
        """The query's cosine with every stored chunk, in `chunk_ids` order."""
        if self.matrix is None:
            return np.zeros(0, dtype=np.float32)
        return self.matrix @ np.asarray(query_embedding, dtype=np.float32)

    def ranking(self, cosines: np.ndarray, depth: int) -> list[tuple[str, float]]:
        """Top `depth` (chunk_id, cosine), best first, equal cosines by chunk id."""
        if not self.chunk_ids:
            return []
        order = self._by_id[np.argsort(-cosines[self._by_id], kind="stable")][:depth]
        return [(self.chunk_ids[row], float(cosines[row])) for row in order]

    def cosine_of(self, cosines: np.ndarray, chunk_ids: Sequence[str]) -> dict[str, float]:
        """chunk_id -> cosine, for those of `chunk_ids` the collection holds."""
        return {cid: float(cosines[self._row[cid]]) for cid in chunk_ids if cid in self._row}
