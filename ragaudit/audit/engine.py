"""Embed the audit's chunks into a real Chroma collection and rank every chunk for a
question: dense cosine, or dense fused with BM25 by reciprocal rank when settings ask.

Embedding failures are never dropped: a chunk whose embedding fails is left out of the
index *and recorded*, so a case expecting its source reads "not indexed", and a question
whose embedding fails is a failed case that stays in the denominator."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ragaudit import paths
from ragaudit.audit.chunks import AuditChunk
from ragaudit.audit.policy import Candidate
from ragaudit.errors import ModelCallFailed
from ragaudit.stack.configs import RRF_K  # the same fusion constant as the matrix's config M

EMBED_BATCH = 64
ADD_BATCH = 1000

_TOKEN = re.compile(r"\w+")


@dataclass
class EmbedFailure:
    """One text that could not be embedded after the backend's retries."""

    kind: str
    """`passage` (a chunk) or `query` (a case's question)."""
    item: str
    """The chunk id or case id."""
    error: str


@dataclass
class AuditIndex:
    """The indexed chunks of one audit and the failures met while embedding them."""

    chunks: list[AuditChunk]
    indexed: dict[str, AuditChunk]
    collection: Any
    collection_name: str
    failures: list[EmbedFailure] = field(default_factory=list)
    _bm25: Any = None
    _order: list[str] = field(default_factory=list)
    """Chunk ids in the order of the BM25 corpus."""

    def bm25(self) -> Any:
        """BM25 over the indexed chunks' embed texts (built on first use)."""
        if self._bm25 is None:
            from rank_bm25 import BM25Okapi

            self._order = list(self.indexed)
            self._bm25 = BM25Okapi([tokenize(self.indexed[c].embed_text) for c in self._order])
        return self._bm25


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens for BM25."""
    return _TOKEN.findall(text.lower()) or ["_"]


def embed_texts(
    embedder: Any, items: list[tuple[str, str]], role: str
) -> tuple[dict[str, list[float]], list[EmbedFailure]]:
    """Vectors for every (id, text) that could be embedded. A failing batch is retried one
    text at a time, so one bad text costs one item, and each failure is recorded."""
    vectors: dict[str, list[float]] = {}
    failures: list[EmbedFailure] = []
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        try:
            got = embedder.embed([text for _, text in batch], role=role)
            vectors.update({item: v for (item, _), v in zip(batch, got, strict=True)})
            continue
        except ModelCallFailed:
            pass  # isolate the failing texts below
        for item, text in batch:
            try:
                vectors[item] = embedder.embed([text], role=role)[0]
            except ModelCallFailed as error:
                failures.append(EmbedFailure(role, item, str(error)))
    return vectors, failures


def _collection_name(embedder: Any, chunks: list[AuditChunk]) -> str:
    digest = hashlib.sha256(f"{embedder.spec}\0{embedder.name}\0{embedder.digest}\n".encode())
    for chunk in chunks:
        digest.update(f"{chunk.chunk_id}\0{chunk.source_type}\0{chunk.embed_text}\n".encode())
    return f"audit-{digest.hexdigest()[:24]}"


def open_client() -> Any:
    """A Chroma PersistentClient under data/chroma/audit (telemetry off)."""
    import chromadb
    from chromadb.config import Settings

    target = paths.chroma_dir() / "audit"
    target.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(
        path=str(target), settings=Settings(anonymized_telemetry=False)
    )


def build_index(embedder: Any, chunks: list[AuditChunk]) -> AuditIndex:
    """Embed `chunks` (through the call cache) and load them into a Chroma collection named
    by their content, reused when it already holds exactly these chunks."""
    vectors, failures = embed_texts(
        embedder, [(c.chunk_id, c.embed_text) for c in chunks], "passage"
    )
    indexed = {c.chunk_id: c for c in chunks if c.chunk_id in vectors}
    client = open_client()
    name = _collection_name(embedder, list(indexed.values()))
    # Our embeddings always; cosine space so distance = 1 - cosine similarity. The name is
    # a hash of the content, so upserting into an existing collection is idempotent (and
    # two audits building the same index at once write the same rows).
    collection = client.get_or_create_collection(
        name, metadata={"hnsw:space": "cosine"}, embedding_function=None
    )
    if collection.count() != len(indexed):
        ids = list(indexed)
        for start in range(0, len(ids), ADD_BATCH):
            part = ids[start : start + ADD_BATCH]
            collection.upsert(
                ids=part,
                embeddings=[vectors[i] for i in part],
                metadatas=[{"doc_id": indexed[i].doc_id, "kind": indexed[i].kind} for i in part],
            )
    return AuditIndex(chunks, indexed, collection, name, failures)


def rank_chunks(
    index: AuditIndex, query_vector: list[float], question: str, depth: int, hybrid: bool
) -> list[Candidate]:
    """The first `depth` chunks for one question, best first, as policy candidates."""
    n = min(depth, len(index.indexed))
    if n == 0:
        return []
    found = index.collection.query(
        query_embeddings=[query_vector], n_results=n, include=["distances"]
    )
    dense = [
        (chunk_id, 1.0 - float(distance))
        for chunk_id, distance in zip(found["ids"][0], found["distances"][0], strict=True)
    ]
    dense_score = dict(dense)
    bm25_score: dict[str, float] = {}
    order = [chunk_id for chunk_id, _ in dense]
    if hybrid:
        scores = index.bm25().get_scores(tokenize(question))
        lexical = sorted(zip(index._order, scores, strict=True), key=lambda p: -p[1])[:n]
        bm25_score = {chunk_id: float(score) for chunk_id, score in lexical}
        fused: dict[str, float] = {}
        for ranking in (order, [chunk_id for chunk_id, _ in lexical]):
            for position, chunk_id in enumerate(ranking, start=1):
                fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + position)
        order = sorted(fused, key=lambda c: (-fused[c], c))[:n]
        missing = [c for c in order if c not in dense_score]
        if missing:
            dense_score.update(_cosines(index, missing, query_vector))
    return [
        Candidate(
            chunk_id=chunk_id,
            source=index.indexed[chunk_id].doc_id,
            source_type=index.indexed[chunk_id].source_type,
            rank=position,
            score=round(dense_score[chunk_id], 6),
            bm25_score=round(bm25_score[chunk_id], 6) if chunk_id in bm25_score else None,
        )
        for position, chunk_id in enumerate(order, start=1)
    ]


def _cosines(index: AuditIndex, chunk_ids: list[str], query_vector: list[float]) -> dict:
    # A chunk only BM25 ranked still needs its dense score for the threshold.
    got = index.collection.get(ids=chunk_ids, include=["embeddings"])
    out = {}
    for chunk_id, vector in zip(got["ids"], got["embeddings"], strict=True):
        out[chunk_id] = float(sum(a * b for a, b in zip(vector, query_vector, strict=True)))
    return out
