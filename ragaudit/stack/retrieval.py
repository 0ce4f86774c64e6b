"""The one retrieval core: the tokenizer, BM25, reciprocal-rank fusion and the Retriever that
ranks one (embedder, chunking) index dense or hybrid. The matrix, the Lab and the audit all
rank through it, so the audit's hybrid is config M's hybrid.

Fusion is reciprocal-rank fusion: a chunk scores the sum of 1/(60 + rank) over the dense
and the BM25 rankings it appears in (each taken to the ranking depth). Rank-based, so the
two scales (cosine, BM25) never need normalising against each other.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ragaudit.stack.configs import RRF_K
from ragaudit.stack.exact import StoredVectors
from ragaudit.stack.index import ChunkIndex, chunk_text
from ragaudit.stack.settings import POOL_DEPTH

_TOKEN = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")

Ranking = Sequence[tuple[str, float]]
"""(chunk_id, score) pairs, best first."""


def tokenize(text: str) -> list[str]:
    """Lowercase words and numbers; hyphenated codes (``4417-b``) stay one token, and their
    parts are added too so ``4417`` alone still matches."""
    tokens: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        tokens.append(token)
        if "-" in token or "_" in token:
            tokens.extend(part for part in re.split(r"[-_]", token) if part)
    return tokens


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k: int = RRF_K) -> list[tuple[str, float]]:
    """(chunk_id, fused score) best first: each chunk scores the sum of 1/(k + rank) over the
    rankings it appears in.

    Tie-break (equal fused scores): the higher score in the *first* ranking wins (the dense
    cosine in a hybrid; a chunk absent from it comes after every chunk in it), then the
    smaller chunk id, so the order never depends on dict or set order.
    """
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, (chunk_id, _) in enumerate(ranking, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (k + rank)
    first = dict(rankings[0]) if rankings else {}
    order = sorted(fused, key=lambda cid: (-fused[cid], -first.get(cid, -math.inf), cid))
    return [(chunk_id, fused[chunk_id]) for chunk_id in order]


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk in one ranking."""

    chunk_id: str
    doc_id: str
    rank: int
    """1-based position in this ranking."""
    score: float
    """What the ranking sorted on: cosine (dense) or the fused RRF score (hybrid)."""
    dense_score: float | None
    """Cosine similarity of query and chunk."""
    bm25_score: float | None
    """BM25 score (hybrid rankings only; None for dense-only)."""
    start: int
    end: int

    def to_json(self) -> dict:
        """The hit as a `retrieved` entry of an instance record."""
        return asdict(self)


class BM25Ranker:
    """rank-bm25's Okapi BM25 over one chunking's chunks, each read by `searched_text`."""

    def __init__(
        self, chunks: Sequence[Any], searched_text: Callable[[Any], str] = chunk_text
    ) -> None:
        from rank_bm25 import BM25Okapi

        self.chunk_ids = [chunk.chunk_id for chunk in chunks]
        # rank-bm25 takes neither an empty corpus nor an empty document ("\0" stands in)
        corpus = [tokenize(searched_text(chunk)) or ["\0"] for chunk in chunks]
        self._bm25 = BM25Okapi(corpus) if corpus else None
        # token -> (rows, counts): a query token's term frequencies without a pass over
        # every chunk (rank-bm25 builds that array per token with a Python loop)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for row, frequencies in enumerate(self._bm25.doc_freqs if self._bm25 else []):
            for token, count in frequencies.items():
                rows, counts = postings.setdefault(token, ([], []))
                rows.append(row)
                counts.append(count)
        self._postings = postings

    def scores(self, tokens: list[str]) -> np.ndarray:
        """rank-bm25's BM25Okapi.get_scores(tokens), the same arithmetic in the same order
        (so the same floats), each token's frequencies read from the postings."""
        bm25 = self._bm25
        score = np.zeros(bm25.corpus_size)
        doc_len = np.array(bm25.doc_len)
        length_norm = bm25.k1 * (1 - bm25.b + bm25.b * doc_len / bm25.avgdl)
        for token in tokens:
            q_freq = np.zeros(bm25.corpus_size, dtype=np.int64)
            rows, counts = self._postings.get(token, ((), ()))
            q_freq[list(rows)] = counts
            idf = bm25.idf.get(token) or 0
            score += idf * (q_freq * (bm25.k1 + 1) / (q_freq + length_norm))
        return score

    def ranking(self, question: str, depth: int = POOL_DEPTH) -> list[tuple[str, float]]:
        """Top `depth` (chunk_id, score) with a positive score, best first (ties by id)."""
        if self._bm25 is None:
            return []
        scores = self.scores(tokenize(question))
        order = sorted(
            (i for i, s in enumerate(scores) if s > 0),
            key=lambda i: (-scores[i], self.chunk_ids[i]),
        )
        return [(self.chunk_ids[i], float(scores[i])) for i in order[:depth]]


def true_cosines(
    collection: Any, chunk_ids: Sequence[str], query_embedding: Sequence[float]
) -> dict[str, float]:
    """chunk_id -> cosine of its stored vector with the query (vectors are unit length).

    A chunk that reached a fused ranking through BM25 alone has no dense score yet; this
    gives it the real one, which a score threshold and the records need."""
    if not chunk_ids:
        return {}
    got = collection.get(ids=list(chunk_ids), include=["embeddings"])
    query = list(query_embedding)
    return {
        chunk_id: float(sum(a * b for a, b in zip(vector, query, strict=True)))
        for chunk_id, vector in zip(got["ids"], got["embeddings"], strict=True)
    }


class Retriever:
    """Dense, BM25 and fused rankings over one (embedder, chunking) index.

    `chunks` are the chunks to rank (those in `chunk_index`); BM25 reads each by the index's
    `searched_text`, so lexical and dense search see the same text. Used by the matrix, the
    audit and, live, by the inspector's Lab.
    """

    def __init__(
        self, embedder: Any, chunks: Sequence[Any], chunk_index: ChunkIndex,
        stored: StoredVectors | None = None,
    ) -> None:  # fmt: skip
        """`stored`: the vectors to rank when they are not the collection's (a mutant's
        overlay on a base index)."""
        self.embedder = embedder
        self.chunks = {chunk.chunk_id: chunk for chunk in chunks}
        self.chunk_index = chunk_index
        self._bm25: BM25Ranker | None = None
        self._ordered_chunks = list(chunks)
        self._stored: StoredVectors | None = stored

    @property
    def bm25(self) -> BM25Ranker:
        """Built on first use (only hybrid configs need it)."""
        if self._bm25 is None:
            self._bm25 = BM25Ranker(self._ordered_chunks, self.chunk_index.searched_text)
        return self._bm25

    def embed_query(self, question: str) -> list[float]:
        """The query vector (raises ModelCallFailed after the backend's retries)."""
        return self.embedder.embed([question], role="query")[0]

    def dense_ranking(
        self, question: str, query_embedding: Sequence[float], depth: int = POOL_DEPTH
    ) -> list[tuple[str, float]]:
        """Top `depth` (chunk_id, cosine) for one question, exact over the collection's
        stored vectors as `dense_rankings` ranks many: the Lab, the audit and a stack's
        column rank as the matrix does, the same in every process (Chroma's HNSW search is
        approximate; see stack/exact.py). `question` names the query in errors only."""
        if not self.chunks:
            return []
        stored = self._stored_vectors()
        return stored.ranking(stored.cosines(query_embedding), depth)

    def dense_rankings(
        self, query_embeddings: dict[str, Sequence[float]], depth: int = POOL_DEPTH
    ) -> dict[str, list[tuple[str, float]]]:
        """question -> top `depth` (chunk_id, cosine), exact, over the vectors the collection
        stores (read once): what a matrix ranking hundreds of questions uses. The same in
        every process, unlike Chroma's HNSW search (see stack/exact.py)."""
        stored = self._stored_vectors()
        return {
            question: stored.ranking(stored.cosines(vector), depth)
            for question, vector in query_embeddings.items()
        }

    def ranking(
        self,
        question: str,
        hybrid: bool = False,
        depth: int = POOL_DEPTH,
        query_embedding: Sequence[float] | None = None,
        dense: list[tuple[str, float]] | None = None,
    ) -> list[Hit]:
        """The full ranking to `depth`: dense cosine, or RRF of dense and BM25. `dense` is
        the question's dense ranking when already found (`dense_rankings`)."""
        if query_embedding is None:
            query_embedding = self.embed_query(question)
        if dense is None:
            dense = self.dense_ranking(question, query_embedding, depth)
        if not hybrid:
            return [
                self._hit(cid, rank, score, score, None)
                for rank, (cid, score) in enumerate(dense, start=1)
            ]
        lexical = self.bm25.ranking(question, depth)
        fused = reciprocal_rank_fusion([dense, lexical])[:depth]
        dense_scores, bm25_scores = dict(dense), dict(lexical)
        only_bm25 = [cid for cid, _ in fused if cid not in dense_scores]
        dense_scores.update(self._true_cosines(only_bm25, query_embedding))
        return [
            self._hit(cid, rank, score, dense_scores.get(cid), bm25_scores.get(cid, 0.0))
            for rank, (cid, score) in enumerate(fused, start=1)
        ]

    def retrieve(self, question: str, k: int, hybrid: bool = False) -> list[Hit]:
        """The top `k` chunks for `question` (dense, or fused with BM25 when `hybrid`)."""
        return self.ranking(question, hybrid, depth=max(k, POOL_DEPTH))[:k]

    def stored_vectors(self) -> StoredVectors:
        """The vectors this retriever ranks, read from the collection once."""
        return self._stored_vectors()

    def _stored_vectors(self) -> StoredVectors:
        if self._stored is None:
            self._stored = StoredVectors(self.chunk_index.collection, list(self.chunks))
        return self._stored

    def _true_cosines(
        self, chunk_ids: list[str], query_embedding: Sequence[float]
    ) -> dict[str, float]:
        if self._stored is None:  # one question: ask the collection for these few
            return true_cosines(self.chunk_index.collection, chunk_ids, query_embedding)
        stored = self._stored  # ranked exactly: the same dot products as the dense ranking
        return stored.cosine_of(stored.cosines(query_embedding), chunk_ids)

    def _hit(
        self, chunk_id: str, rank: int, score: float, dense: float | None, bm25: float | None
    ) -> Hit:
        chunk = self.chunks[chunk_id]
        return Hit(chunk_id, chunk.doc_id, rank, score, dense, bm25, chunk.start, chunk.end)
