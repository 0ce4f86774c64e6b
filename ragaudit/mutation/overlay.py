"""ragaudit's own retrieval (settings, or a stack's splitter and embedder) over mutants: the
unmutated corpus is indexed once, and each mutant is ranked over that index plus its own
change only. Its overlay keeps the base rows of every document it does not touch, drops
the rows of the documents it replaces or removes, and adds the rows of the chunks of the
documents it holds; an unchanged chunk's text replays its vector from the call cache. The
ranking is the retrieval core's (exact dense, or config M's fusion with BM25 over the
overlay's chunks), so a mutant ranks as it would in a corpus rebuilt with its change."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragaudit.auditing.chunks import AuditChunk
from ragaudit.auditing.engine import (
    AuditIndex,
    EmbedFailure,
    embed_questions,
    embed_text_of,
    rank_chunks,
)
from ragaudit.documents import Document
from ragaudit.stack.exact import StoredVectors
from ragaudit.stack.index import embed_texts
from ragaudit.stack.retrieval import Retriever


@dataclass
class Ranked:
    """One corpus's cases ranked by the column (None: the case's call failed)."""

    ranked: dict[str, list[Any] | None]
    chunks: list[AuditChunk]
    """The chunks this ranking added to what the records can read (an overlay: the
    chunks of its mutant's documents; a rebuilt corpus: all of its chunks)."""
    indexed: dict[str, Any]
    failures: list[Any] = field(default_factory=list)
    models: list[dict] = field(default_factory=list)
    embedded: int = 0
    """Texts this ranking sent to the embedder (replays from the call cache included)."""


class OverlayIndex:
    """The base index of the unmutated corpus and the query vectors of every case."""

    def __init__(
        self, embedder: Any, index: AuditIndex, cut: Callable[[Sequence[Document]], list],
        cases: Sequence[Any], depth: int, hybrid: bool,
    ) -> None:  # fmt: skip
        self.embedder, self.index, self.cut = embedder, index, cut
        self.depth, self.hybrid = depth, hybrid
        self.stored = index.retriever.stored_vectors()
        self.vectors, self.query_failures = embed_questions(
            embedder, [(c.case_id, c.question) for c in cases]
        )
        rows: dict[str, list[int]] = {}
        for row, chunk_id in enumerate(self.stored.chunk_ids):
            rows.setdefault(index.indexed[chunk_id].doc_id, []).append(row)
        self._rows_of = rows

    def control(self, cases: Sequence[Any]) -> Ranked:
        """The unmutated corpus's ranking of `cases`."""
        return Ranked(
            self._rank(self.index, cases), list(self.index.chunks), self.index.indexed,
            [*self.index.failures, *self.query_failures],
        )  # fmt: skip

    def mutant(self, mutant: Any, cases: Sequence[Any]) -> Ranked:
        """`cases` ranked over the base index with `mutant`'s change only."""
        new_chunks = self.cut(list(mutant.added)) if mutant.added else []
        texts = [embed_text_of(c) for c in new_chunks]
        vectors, errors = embed_texts(self.embedder, texts)
        failures = [
            EmbedFailure("passage", c.chunk_id, errors[t])
            for c, t in zip(new_chunks, texts, strict=True)
            if t in errors
        ]
        added = [c for c in new_chunks if embed_text_of(c) in vectors]
        keep = np.ones(len(self.stored.chunk_ids), dtype=bool)
        for doc_id in mutant.dropped:
            keep[self._rows_of.get(doc_id, [])] = False
        kept = [cid for cid, k in zip(self.stored.chunk_ids, keep, strict=True) if k]
        parts = [self.stored.matrix[keep]] if self.stored.matrix is not None else []
        if added:
            parts.append(np.asarray([vectors[embed_text_of(c)] for c in added], np.float32))
        matrix = np.vstack(parts) if parts else None
        stored = StoredVectors.of_rows(kept + [c.chunk_id for c in added], matrix)
        indexed = {cid: self.index.indexed[cid] for cid in kept} | {c.chunk_id: c for c in added}
        base = self.index.retriever
        retriever = Retriever(self.embedder, list(indexed.values()), base.chunk_index, stored)
        overlay = AuditIndex(list(indexed.values()), indexed, retriever, self.index.collection_name)
        ranked = self._rank(overlay, cases)
        query_failures = [f for f in self.query_failures if f.item in {c.case_id for c in cases}]
        return Ranked(ranked, new_chunks, indexed, failures + query_failures,
                      embedded=len(set(texts)))  # fmt: skip

    def _rank(self, index: AuditIndex, cases: Sequence[Any]) -> dict[str, list | None]:
        return {
            c.case_id: rank_chunks(
                index, self.vectors[c.case_id], c.question, self.depth, self.hybrid
            )  # fmt: skip
            if c.case_id in self.vectors
            else None
            for c in cases
        }
